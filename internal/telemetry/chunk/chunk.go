package chunk

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
)

const (
	// Version is the format of chunks Encode writes.
	Version = 1
	// Resolution is the quantum values are kept to (1e-6 of the unit).
	Resolution = 1e-6
	// MaxQuantised bounds the values kept as quantised integers; larger
	// magnitudes and ±Inf are stored as raw float64 bits (exactly).
	MaxQuantised = 1e11
	// MaxPoints bounds the timestamps of one chunk (18 hours at 1 Hz), so a
	// corrupt header cannot make Decode allocate without limit.
	MaxPoints = 1 << 16
	// MaxColumns bounds the columns of one chunk.
	MaxColumns = 1024

	scale = 1 / Resolution
	// deflateMin: shorter streams are stored as they are; deflate's own
	// framing would outweigh what it saves.
	deflateMin = 24
	// maxToken is the longest encoding of one value (a 10-byte varint).
	maxToken = binary.MaxVarintLen64
)

// Token kinds, in the low two bits of each token's varint.
const (
	tokRun = 0 // arg values continue the line: delta of delta 0
	tokDod = 1 // one value: arg is the zigzag delta of delta
	tokNaN = 2 // arg absent values
	tokRaw = 3 // one value as 8 raw little-endian bytes (arg 0)
)

// ErrCorrupt is wrapped by every Decode error about the data itself.
var ErrCorrupt = errors.New("chunk: corrupt data")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// Block is the content of a chunk: strictly increasing timestamps (Unix
// milliseconds) and one value per timestamp in each column (NaN = absent).
// A decoded Block holds empty columns for those not asked for.
type Block struct {
	Times   []int64
	Columns [][]float64
}

// Column returns column i, nil when it was not decoded or the chunk
// predates it.
func (b Block) Column(i int) []float64 {
	if i < 0 || i >= len(b.Columns) || len(b.Columns[i]) != len(b.Times) || len(b.Times) == 0 {
		return nil
	}
	return b.Columns[i]
}

// Encode encodes b in one go (see Encoder).
func Encode(b Block) ([]byte, error) {
	e := NewEncoder(len(b.Columns))
	row := make([]float64, len(b.Columns))
	for i, t := range b.Times {
		for c, col := range b.Columns {
			if len(col) != len(b.Times) {
				return nil, fmt.Errorf("chunk: column %d has %d values for %d timestamps", c, len(col), len(b.Times))
			}
			row[c] = col[i]
		}
		if err := e.Append(t, row); err != nil {
			return nil, err
		}
	}
	return e.AppendTo(nil), nil
}

// Encoder builds a chunk row by row. Rows are tokenised as they arrive, so
// AppendTo, called as often as the chunk should be written, only frames
// and deflates the streams. Not safe for concurrent use.
type Encoder struct {
	times stream
	cols  []stream
	n     int
	last  int64
}

// NewEncoder returns an empty encoder for rows of columns values.
func NewEncoder(columns int) *Encoder {
	return &Encoder{times: stream{ints: true}, cols: make([]stream, columns)}
}

// Len is the number of rows appended.
func (e *Encoder) Len() int { return e.n }

// Columns is the number of values of a row.
func (e *Encoder) Columns() int { return len(e.cols) }

// Last is the timestamp of the last row (Unix ms); meaningless when Len is 0.
func (e *Encoder) Last() int64 { return e.last }

// Append adds a row at t (Unix ms, after the previous row) with one value
// per column.
func (e *Encoder) Append(t int64, values []float64) error {
	if len(values) != len(e.cols) {
		return fmt.Errorf("chunk: row of %d values for %d columns", len(values), len(e.cols))
	}
	if e.n > 0 && t <= e.last {
		return fmt.Errorf("chunk: timestamp %d not after %d", t, e.last)
	}
	if e.n >= MaxPoints {
		return fmt.Errorf("chunk: more than %d points", MaxPoints)
	}
	e.times.addInt(t)
	for c, v := range values {
		e.cols[c].addFloat(v)
	}
	e.n++
	e.last = t
	return nil
}

// AppendTo appends the chunk as it stands to dst.
func (e *Encoder) AppendTo(dst []byte) []byte {
	scratch := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(scratch)
	return e.appendTo(dst, scratch)
}

// AppendRawTo appends the chunk as it stands to dst without deflating any
// stream: a valid chunk, larger, but framed at the cost of a copy. It
// suits a short chunk written far more often than it is read (the
// recorder's unflushed tail, each second).
func (e *Encoder) AppendRawTo(dst []byte) []byte { return e.appendTo(dst, nil) }

// appendTo frames every stream, deflating those that shrink when scratch
// is not nil.
func (e *Encoder) appendTo(dst []byte, scratch *bytes.Buffer) []byte {
	dst = append(dst, Version)
	dst = binary.AppendUvarint(dst, uint64(e.n))
	dst = binary.AppendUvarint(dst, uint64(len(e.cols)))
	dst = e.times.appendFramed(dst, scratch)
	for i := range e.cols {
		dst = e.cols[i].appendFramed(dst, scratch)
	}
	return dst
}

// Reset empties the encoder for rows of the same columns, keeping its
// buffers.
func (e *Encoder) Reset() {
	e.times = stream{ints: true, buf: e.times.buf[:0]}
	for i := range e.cols {
		e.cols[i] = stream{buf: e.cols[i].buf[:0]}
	}
	e.n, e.last = 0, 0
}

// stream is the token stream of one column (or of the timestamps, ints).
// prev and delta are the last value and the last step; a pending run of
// zero delta-of-delta or of NaN is counted until another token ends it.
type stream struct {
	ints        bool
	buf         []byte
	prev, delta int64
	has         bool
	pendKind    uint64
	pendCount   uint64
}

func (s *stream) addInt(q int64) {
	dod := q - s.prev - s.delta
	zz := zigzag(dod)
	if zz >= 1<<62 {
		// Only arbitrary (non-clock) timestamps get here.
		s.flush()
		s.buf = binary.AppendUvarint(s.buf, tokRaw)
		s.buf = binary.LittleEndian.AppendUint64(s.buf, uint64(q))
		s.prev, s.delta, s.has = q, 0, true
		return
	}
	if zz == 0 {
		s.pend(tokRun)
	} else {
		s.flush()
		s.buf = binary.AppendUvarint(s.buf, zz<<2|tokDod)
	}
	if s.has {
		s.delta = q - s.prev
	} else {
		s.delta = 0
	}
	s.prev, s.has = q, true
}

func (s *stream) addFloat(v float64) {
	switch {
	case math.IsNaN(v):
		s.pend(tokNaN)
		s.delta = 0
	case math.Abs(v) > MaxQuantised: // ±Inf too
		s.flush()
		s.buf = binary.AppendUvarint(s.buf, tokRaw)
		s.buf = binary.LittleEndian.AppendUint64(s.buf, math.Float64bits(v))
		s.delta = 0
	default:
		s.addInt(int64(math.Round(v * scale)))
	}
}

func (s *stream) pend(kind uint64) {
	if s.pendCount > 0 && s.pendKind != kind {
		s.flush()
	}
	s.pendKind = kind
	s.pendCount++
}

func (s *stream) flush() {
	if s.pendCount > 0 {
		s.buf = binary.AppendUvarint(s.buf, s.pendCount<<2|s.pendKind)
		s.pendCount = 0
	}
}

// appendFramed appends the stream with its pending run, deflated when
// scratch is given and that is shorter, behind its header (length<<1 |
// deflated).
func (s *stream) appendFramed(dst []byte, scratch *bytes.Buffer) []byte {
	raw := s.buf
	if s.pendCount > 0 {
		// The pending token goes past the end of buf only for this write.
		raw = binary.AppendUvarint(s.buf, s.pendCount<<2|s.pendKind)
		s.buf = raw[:len(s.buf)]
	}
	if scratch != nil && len(raw) >= deflateMin {
		scratch.Reset()
		w := writerPool.Get().(*flate.Writer)
		w.Reset(scratch)
		_, _ = w.Write(raw) // a bytes.Buffer does not fail
		_ = w.Close()
		writerPool.Put(w)
		if scratch.Len() < len(raw) {
			dst = binary.AppendUvarint(dst, uint64(scratch.Len())<<1|1)
			return append(dst, scratch.Bytes()...)
		}
	}
	dst = binary.AppendUvarint(dst, uint64(len(raw))<<1)
	return append(dst, raw...)
}

func zigzag(x int64) uint64   { return uint64(x<<1) ^ uint64(x>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

var (
	bufPool    = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	writerPool = sync.Pool{New: func() any {
		// BestSpeed: the streams are already dense tokens; the higher levels
		// gain little on them and cost several times the CPU.
		w, _ := flate.NewWriter(nil, flate.BestSpeed)
		return w
	}}
	readerPool = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}
)

// headerInfo is what a chunk's header says.
type headerInfo struct {
	Points, Columns int
}

// Decode decodes a chunk. cols lists the columns to decode (nil: every
// column); the others are skipped by their length without being
// inflated. A column asked for but absent from the chunk stays nil.
func Decode(data []byte, cols []int) (Block, error) {
	var b Block
	err := DecodeInto(&b, data, cols)
	return b, err
}

// DecodeInto is Decode into dst, reusing its slices (a reader decoding
// many chunks allocates once). Columns not asked for are left empty.
func DecodeInto(dst *Block, data []byte, cols []int) error {
	d := decoder{src: data}
	info, err := d.header()
	if err != nil {
		return err
	}
	want := make([]bool, info.Columns)
	for i := range want {
		want[i] = cols == nil
	}
	for _, c := range cols {
		if c >= 0 && c < info.Columns {
			want[c] = true
		}
	}
	dst.Times = slices.Grow(dst.Times[:0], info.Points)[:info.Points]
	if len(dst.Columns) < info.Columns {
		dst.Columns = append(dst.Columns, make([][]float64, info.Columns-len(dst.Columns))...)
	}
	dst.Columns = dst.Columns[:info.Columns]
	for c := range dst.Columns {
		dst.Columns[c] = dst.Columns[c][:0]
	}
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	d.inflated = buf
	ts, err := d.stream(info.Points)
	if err != nil {
		return fmt.Errorf("times: %w", err)
	}
	if err := decodeTimes(ts, dst.Times); err != nil {
		return err
	}
	for c := range info.Columns {
		if !want[c] {
			if err := d.skip(); err != nil {
				return fmt.Errorf("column %d: %w", c, err)
			}
			continue
		}
		src, err := d.stream(info.Points)
		if err != nil {
			return fmt.Errorf("column %d: %w", c, err)
		}
		dst.Columns[c] = slices.Grow(dst.Columns[c], info.Points)[:info.Points]
		if err := decodeValues(src, dst.Columns[c]); err != nil {
			return fmt.Errorf("column %d: %w", c, err)
		}
	}
	if len(d.src) != 0 {
		return corrupt("%d trailing bytes", len(d.src))
	}
	return nil
}

type decoder struct {
	src      []byte
	inflated *bytes.Buffer
}

func (d *decoder) uvarint() (uint64, error) {
	v, k := binary.Uvarint(d.src)
	if k <= 0 {
		return 0, corrupt("bad varint")
	}
	d.src = d.src[k:]
	return v, nil
}

func (d *decoder) header() (headerInfo, error) {
	if len(d.src) == 0 {
		return headerInfo{}, corrupt("empty")
	}
	if d.src[0] != Version {
		return headerInfo{}, corrupt("version %d", d.src[0])
	}
	d.src = d.src[1:]
	n, err := d.uvarint()
	if err != nil {
		return headerInfo{}, err
	}
	c, err := d.uvarint()
	if err != nil {
		return headerInfo{}, err
	}
	if n > MaxPoints || c > MaxColumns {
		return headerInfo{}, corrupt("%d points, %d columns", n, c)
	}
	return headerInfo{Points: int(n), Columns: int(c)}, nil
}

// frame reads a stream header and returns the stream's stored bytes.
func (d *decoder) frame() ([]byte, bool, error) {
	h, err := d.uvarint()
	if err != nil {
		return nil, false, err
	}
	length := h >> 1
	if length > uint64(len(d.src)) {
		return nil, false, corrupt("stream of %d bytes, %d left", length, len(d.src))
	}
	s := d.src[:length]
	d.src = d.src[length:]
	return s, h&1 == 1, nil
}

func (d *decoder) skip() error {
	_, _, err := d.frame()
	return err
}

// stream returns the tokens of the next stream of n values, inflated if
// need be (into a buffer reused by the next call).
func (d *decoder) stream(n int) ([]byte, error) {
	s, deflated, err := d.frame()
	if err != nil || !deflated {
		return s, err
	}
	r := readerPool.Get().(io.ReadCloser)
	defer readerPool.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(s), nil); err != nil {
		return nil, corrupt("inflate: %v", err)
	}
	limit := n*(maxToken) + 1
	d.inflated.Reset()
	if _, err := d.inflated.ReadFrom(io.LimitReader(r, int64(limit))); err != nil {
		return nil, corrupt("inflate: %v", err)
	}
	if d.inflated.Len() >= limit {
		return nil, corrupt("stream inflates beyond %d bytes", limit-1)
	}
	return d.inflated.Bytes(), nil
}

// nextToken splits the next token off src.
func nextToken(src []byte) (kind, arg uint64, rest []byte, err error) {
	h, k := binary.Uvarint(src)
	if k <= 0 {
		return 0, 0, nil, corrupt("bad token")
	}
	return h & 3, h >> 2, src[k:], nil
}

func decodeTimes(src []byte, out []int64) error {
	var prev, delta int64
	has := false
	for i := 0; i < len(out); {
		kind, arg, rest, err := nextToken(src)
		if err != nil {
			return err
		}
		src = rest
		switch kind {
		case tokRun:
			if arg == 0 || arg > uint64(len(out)-i) {
				return corrupt("run of %d at time %d of %d", arg, i, len(out))
			}
			for range arg {
				prev += delta
				out[i] = prev
				i++
			}
			has = true
		case tokDod:
			q := prev + delta + unzigzag(arg)
			if has {
				delta = q - prev
			}
			prev, has = q, true
			out[i] = q
			i++
		case tokRaw:
			if arg != 0 || len(src) < 8 {
				return corrupt("raw time")
			}
			prev, delta, has = int64(binary.LittleEndian.Uint64(src)), 0, true
			src = src[8:]
			out[i] = prev
			i++
		default:
			return corrupt("absent timestamp")
		}
		if i > 1 && out[i-1] <= out[i-2] {
			return corrupt("timestamps not increasing")
		}
	}
	if len(src) != 0 {
		return corrupt("%d bytes after the timestamps", len(src))
	}
	return nil
}

func decodeValues(src []byte, out []float64) error {
	var prev, delta int64
	has := false
	for i := 0; i < len(out); {
		kind, arg, rest, err := nextToken(src)
		if err != nil {
			return err
		}
		src = rest
		switch kind {
		case tokRun:
			if arg == 0 || arg > uint64(len(out)-i) {
				return corrupt("run of %d at value %d of %d", arg, i, len(out))
			}
			for range arg {
				prev += delta
				out[i] = float64(prev) / scale
				i++
			}
			has = true
		case tokDod:
			q := prev + delta + unzigzag(arg)
			if has {
				delta = q - prev
			}
			prev, has = q, true
			out[i] = float64(q) / scale
			i++
		case tokNaN:
			if arg == 0 || arg > uint64(len(out)-i) {
				return corrupt("absent run of %d at value %d of %d", arg, i, len(out))
			}
			for range arg {
				out[i] = math.NaN()
				i++
			}
			delta = 0
		case tokRaw:
			if arg != 0 || len(src) < 8 {
				return corrupt("raw value")
			}
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(src))
			src = src[8:]
			delta = 0
			i++
		}
	}
	if len(src) != 0 {
		return corrupt("%d bytes after the values", len(src))
	}
	return nil
}
