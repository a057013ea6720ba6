package telemetry

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"atcp/internal/detrand"
	"atcp/internal/errs"
	"atcp/internal/store/workload"
	"atcp/internal/telemetry/chunk"
)

// Retention is how long history is kept (document 1: state history reaches
// 30 days back).
const Retention = 30 * 24 * time.Hour

// MaxChunkSpan bounds a stored chunk's [Start, End). Stores rely on it to
// find the chunks overlapping a window by a short key range and reject
// longer chunks.
const MaxChunkSpan = time.Hour

// Recorder defaults; see docs/telemetry.md, "Storage".
const (
	DefaultChunkLength = 10 * time.Minute
	DefaultFlushEvery  = 15 * time.Second
)

// RecorderOptions tune a Recorder; zero values take the defaults.
type RecorderOptions struct {
	// ChunkLength is the window of one chunk, aligned to UTC (a length
	// dividing a day starts a chunk at every midnight). At most
	// MaxChunkSpan.
	ChunkLength time.Duration
	// FlushEvery is how far stored history may lag behind the recorded
	// snapshots, judged by their timestamps (platform time).
	FlushEvery time.Duration
}

// Recorder turns the control loop's per-tick snapshots into the latest
// state and history of every asset. Each asset's current window is held
// as an open chunk whose rows are tokenised on arrival; it is written at
// the asset's own flush slot (assets are spread over FlushEvery by a hash
// of their id, so about 1/FlushEvery-seconds of them encode per tick), a
// chunk whose window ended is written final at the next slot and dropped.
// The rows not yet written (at most FlushEvery of them) also form the
// asset's tail, stored with its latest snapshot each tick, so that any
// instance reads history up to the last tick.
//
// As background work (workload.Background) it yields its processor every
// few dozen assets (workload.Yield): at 10,000 assets a tick runs tens of
// milliseconds.
//
// A Recorder is not safe for concurrent use: one control loop calls it.
type Recorder struct {
	store   Store
	length  time.Duration
	every   time.Duration
	assets  map[string]*assetHistory
	values  []float64
	columns int
	latest  []Snapshot // the snapshots with their tails, reused
	tails   []byte     // their encoded tails, reused
}

// assetHistory is what the recorder holds for one asset.
type assetHistory struct {
	id     string
	phase  int64 // offset of the asset's flush slots, ms
	slot   int64 // the flush slot last handled
	open   *openChunk
	closed []*openChunk // windows ended, waiting for their final write
	// tail holds the rows of open and closed not yet written, in the
	// recorder's columns; emptied when they are.
	tail *chunk.Encoder
}

type openChunk struct {
	start   time.Time
	enc     *chunk.Encoder
	written int // rows in the stored version
}

// NewRecorder returns a recorder writing to store.
func NewRecorder(store Store, opts RecorderOptions) *Recorder {
	if opts.ChunkLength <= 0 {
		opts.ChunkLength = DefaultChunkLength
	}
	opts.ChunkLength = min(opts.ChunkLength, MaxChunkSpan)
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = DefaultFlushEvery
	}
	return &Recorder{store: store, length: opts.ChunkLength, every: opts.FlushEvery,
		assets: map[string]*assetHistory{}, columns: len(points)}
}

// Record stores one control tick: every asset's snapshot becomes its
// latest state and a row of its open chunk, and the chunks whose flush
// slot came are written. A snapshot at or before the asset's last
// recorded instant is not added to history.
func (r *Recorder) Record(ctx context.Context, snapshots []Snapshot) error {
	var errList []error
	var now time.Time
	r.latest, r.tails = r.latest[:0], r.tails[:0]
	for i, sn := range snapshots {
		workload.Yield(ctx, i)
		if err := r.append(ctx, sn); err != nil {
			errList = append(errList, err)
		}
		if ts := sn.Measurements.Timestamp; ts.After(now) {
			now = ts
		}
		sn.Tail = nil
		if a := r.assets[sn.AssetID]; a != nil && a.tail != nil && a.tail.Len() > 0 {
			// Undeflated: it is rewritten every tick and read rarely.
			start := len(r.tails)
			r.tails = a.tail.AppendRawTo(r.tails)
			sn.Tail = r.tails[start:len(r.tails):len(r.tails)]
		}
		r.latest = append(r.latest, sn)
	}
	if err := r.store.SaveLatest(ctx, r.latest); err != nil {
		errList = append(errList, fmt.Errorf("save latest telemetry: %w", err))
	}
	if len(snapshots) > 0 {
		errList = append(errList, r.flushDue(ctx, now))
	}
	return errors.Join(errList...)
}

// slotOf is the index of the asset's flush slot holding instant t.
func (r *Recorder) slotOf(a *assetHistory, t time.Time) int64 {
	ms, every := t.UnixMilli()-a.phase, r.everyMs()
	slot := ms / every
	if ms < 0 && ms%every != 0 {
		slot--
	}
	return slot
}

func (r *Recorder) everyMs() int64 { return max(r.every.Milliseconds(), 1) }

func (r *Recorder) append(ctx context.Context, sn Snapshot) error {
	ts := sn.Measurements.Timestamp.UTC()
	a := r.assets[sn.AssetID]
	if a == nil {
		a = &assetHistory{id: sn.AssetID, phase: int64(detrand.Hash(sn.AssetID) % uint64(r.everyMs()))}
		a.slot = r.slotOf(a, ts)
		r.assets[sn.AssetID] = a
	}
	start := ts.Truncate(r.length)
	if a.open != nil && ts.UnixMilli() <= a.open.enc.Last() && a.open.enc.Len() > 0 {
		return nil
	}
	if a.open == nil || !a.open.start.Equal(start) {
		var prev *openChunk
		if a.open != nil {
			a.closed = append(a.closed, a.open)
			prev = a.open
		}
		a.open = nil
		c, err := r.startChunk(ctx, sn.AssetID, start, prev == nil)
		if err != nil {
			// The point is lost; the next tick tries the load again.
			return err
		}
		a.open = c
		if c.enc.Len() > 0 && ts.UnixMilli() <= c.enc.Last() {
			return nil
		}
	}
	r.values = sn.Measurements.Values(r.values[:0])
	for len(r.values) < a.open.enc.Columns() {
		r.values = append(r.values, math.NaN())
	}
	if err := a.open.enc.Append(ts.UnixMilli(), r.values); err != nil {
		return err
	}
	if a.tail == nil {
		a.tail = chunk.NewEncoder(r.columns)
	}
	return a.tail.Append(ts.UnixMilli(), r.values[:r.columns])
}

// startChunk opens the asset's chunk at start. When the recorder meets the
// asset for the first time the store may hold that chunk already (another
// instance recorded before a failover, or this one before a restart): it
// is loaded and continued.
func (r *Recorder) startChunk(ctx context.Context, assetID string, start time.Time, load bool) (*openChunk, error) {
	c := &openChunk{start: start, enc: chunk.NewEncoder(r.columns)}
	if !load {
		return c, nil
	}
	stored, err := r.store.Chunks(ctx, assetID, start, start.Add(r.length))
	if err != nil {
		return nil, fmt.Errorf("load telemetry chunk of %s at %s: %w", assetID, start, err)
	}
	for _, s := range stored {
		if !s.Start.Equal(start) {
			continue
		}
		b, err := chunk.Decode(s.Data, nil)
		if err != nil {
			// Unreadable: the window starts over and replaces it.
			return c, nil
		}
		c.enc = chunk.NewEncoder(max(r.columns, len(b.Columns)))
		row := make([]float64, c.enc.Columns())
		for i, t := range b.Times {
			for col := range row {
				row[col] = math.NaN()
				if v := b.Column(col); v != nil {
					row[col] = v[i]
				}
			}
			if err := c.enc.Append(t, row); err != nil {
				return nil, err
			}
		}
		c.written = c.enc.Len()
	}
	return c, nil
}

// flushDue writes the chunks of the assets whose flush slot came by now
// and forgets assets whose window ended with everything written (they
// stopped reporting; they are loaded again if they come back).
func (r *Recorder) flushDue(ctx context.Context, now time.Time) error {
	var out []Chunk
	var due []*assetHistory
	for _, a := range r.assets {
		slot := r.slotOf(a, now)
		if slot <= a.slot {
			continue
		}
		workload.Yield(ctx, len(due))
		a.slot = slot
		out = r.collect(out, a)
		due = append(due, a)
	}
	if len(out) > 0 {
		if err := r.store.PutChunks(ctx, out); err != nil {
			return fmt.Errorf("write telemetry chunks: %w", err)
		}
	}
	for _, a := range due {
		a.closed = nil
		if a.tail != nil {
			a.tail.Reset()
		}
		if a.open == nil {
			continue
		}
		a.open.written = a.open.enc.Len()
		if !now.Before(a.open.start.Add(r.length)) {
			delete(r.assets, a.id)
		}
	}
	return nil
}

// collect appends the asset's chunks holding rows not yet written.
func (r *Recorder) collect(out []Chunk, a *assetHistory) []Chunk {
	for _, c := range append(slices.Clip(a.closed), a.open) {
		if c == nil || c.enc.Len() == c.written || c.enc.Len() == 0 {
			continue
		}
		out = append(out, Chunk{AssetID: a.id, Start: c.start, End: c.start.Add(r.length),
			Points: c.enc.Len(), Data: c.enc.AppendTo(nil)})
	}
	return out
}

// Flush writes every chunk holding unwritten rows and forgets all
// assets, so that a recorder used again (after a lease came back)
// continues from what the store holds. Call it at shutdown and on lease
// loss. It forgets them even when the write fails (a lease is often lost
// because the database is): another instance may record those windows
// meanwhile, and rows kept here would later overwrite its chunks; the
// unwritten tail is lost instead, as in a crash.
func (r *Recorder) Flush(ctx context.Context) error {
	var out []Chunk
	for _, a := range r.assets {
		out = r.collect(out, a)
	}
	r.assets = map[string]*assetHistory{}
	if len(out) > 0 {
		if err := r.store.PutChunks(ctx, out); err != nil {
			return fmt.Errorf("write telemetry chunks: %w", err)
		}
	}
	return nil
}

// Forget drops every open chunk without writing it: another instance
// recorded these windows meanwhile (a lease that moved), and writing this
// instance's older copy would overwrite its points. The next Record
// continues each chunk from the store.
func (r *Recorder) Forget() { r.assets = map[string]*assetHistory{} }

// NewHistoryReader reads history from store's chunks.
func NewHistoryReader(store Store) HistoryReader { return historyReader{store} }

type historyReader struct{ store Store }

// byLast marks the points downsampled to their bucket's last value rather
// than its mean: codes, flags and counters, whose mean would be a value
// the asset never reported.
var byLast = func() []bool {
	last := make([]bool, len(points))
	for i, p := range points {
		switch n := p.name; {
		case n == "asset_status", n == "operational_status", n == "control_mode", n == "grid_switch_status",
			n == "pv_switch_status", n == "redispatch_active", n == "actual_battery_cycles",
			strings.HasPrefix(n, "is_"), strings.HasPrefix(n, "lan_connected_"), strings.HasSuffix(n, "_throughput"):
			last[i] = true
		}
	}
	return last
}()

// History implements HistoryReader. Timestamps are the stored ones
// (millisecond resolution); downsampled buckets are [from + k*w, from +
// (k+1)*w) with w = (to - from) / maxPoints rounded up to the nanosecond.
func (h historyReader) History(ctx context.Context, assetID string, from, to time.Time, names []string, maxPoints int) (map[string][]Point, error) {
	if maxPoints < 0 {
		return nil, errs.Invalidf("max_points", maxPoints, "must not be negative")
	}
	type request struct {
		name string
		col  int
	}
	var reqs []request
	if len(names) == 0 {
		for i, p := range points {
			reqs = append(reqs, request{p.name, i})
		}
		for _, alias := range slices.Sorted(maps.Keys(Aliases)) {
			i, _ := PointIndex(alias)
			reqs = append(reqs, request{alias, i})
		}
	}
	for _, n := range names {
		i, ok := PointIndex(n)
		if !ok {
			return nil, errs.Invalidf("point_names", n, "unknown measurement %s", n)
		}
		reqs = append(reqs, request{n, i})
	}
	result := map[string][]Point{}
	if !to.After(from) {
		return result, nil
	}
	var cols []int
	for _, q := range reqs {
		if !slices.Contains(cols, q.col) {
			cols = append(cols, q.col)
		}
	}
	// The tail before the chunks: a flush in between moves rows from the
	// one to the other, which then reads them twice (dropped below) rather
	// than not at all.
	var tail []byte
	switch latest, err := h.store.Latest(ctx, assetID); {
	case err == nil:
		tail = latest.Tail
	case !errs.Is(err, errs.NotFound):
		return nil, err
	}
	chunks, err := h.store.Chunks(ctx, assetID, from, to)
	if err != nil {
		return nil, err
	}
	var series map[int][]Point
	if maxPoints == 0 {
		series, err = rawSeries(chunks, tail, cols, from, to)
	} else {
		series, err = downsampled(chunks, tail, cols, from, to, maxPoints)
	}
	if err != nil {
		return nil, err
	}
	used := map[int]bool{}
	for _, q := range reqs {
		s := series[q.col]
		if len(s) == 0 {
			continue
		}
		if used[q.col] {
			// A caller may rescale one name's points (virtual assets).
			s = slices.Clone(s)
		}
		used[q.col] = true
		result[q.name] = s
	}
	return result, nil
}

// msBounds returns the stored-millisecond range [lo, hi) of [from, to).
func msBounds(from, to time.Time) (int64, int64) {
	ceil := func(t time.Time) int64 {
		ms := t.UnixMilli()
		if time.UnixMilli(ms).Before(t) {
			ms++
		}
		return ms
	}
	return ceil(from), ceil(to)
}

// rows calls fn, in chunk order, with each decoded chunk and its row
// range inside [lo, hi), then with the rows of tail (the recorder's
// unflushed rows, see Snapshot.Tail) after the last stored one. Chunks
// are decoded in parallel batches (decoding is most of a long query's
// cost), the next batch decoding while fn consumes the previous one in
// order.
func rows(chunks []Chunk, tail []byte, cols []int, lo, hi int64, fn func(b chunk.Block, i, j int)) error {
	batch := min(len(chunks), 2*runtime.GOMAXPROCS(0))
	var blocks [2][]chunk.Block
	var errList [2][]error
	var wg [2]sync.WaitGroup
	for s := range blocks {
		blocks[s], errList[s] = make([]chunk.Block, batch), make([]error, batch)
	}
	decode := func(slot int, part []Chunk) {
		for k := range part {
			wg[slot].Go(func() {
				errList[slot][k] = chunk.DecodeInto(&blocks[slot][k], part[k].Data, cols)
				if errList[slot][k] != nil {
					errList[slot][k] = fmt.Errorf("telemetry chunk of %s at %s: %w", part[k].AssetID, part[k].Start, errList[slot][k])
				}
			})
		}
	}
	stored := int64(math.MinInt64) // the last stored row
	cur, rest := chunks[:batch], chunks[batch:]
	decode(0, cur)
	for slot := 0; len(cur) > 0; slot = 1 - slot {
		next := rest[:min(batch, len(rest))]
		rest = rest[len(next):]
		wg[slot].Wait()
		if err := errors.Join(errList[slot][:len(cur)]...); err != nil {
			return err
		}
		decode(1-slot, next)
		for _, b := range blocks[slot][:len(cur)] {
			if len(b.Times) > 0 {
				stored = max(stored, b.Times[len(b.Times)-1])
			}
			i, _ := slices.BinarySearch(b.Times, lo)
			j, _ := slices.BinarySearch(b.Times, hi)
			if i < j {
				fn(b, i, j)
			}
		}
		cur = next
	}
	if len(tail) == 0 {
		return nil
	}
	var b chunk.Block
	if err := chunk.DecodeInto(&b, tail, cols); err != nil {
		// The tail is a convenience: history without it is still right.
		return nil
	}
	// Any chunk holding a row of [lo, hi) overlaps the window, so stored
	// is the last stored row that could repeat one of the tail's.
	i, _ := slices.BinarySearch(b.Times, max(lo, stored+1))
	j, _ := slices.BinarySearch(b.Times, hi)
	if i < j {
		fn(b, i, j)
	}
	return nil
}

// reported reports whether a stored value is a reading the API can
// show: NaN is an absent point, and ±Inf (an adapter's overflow, which the
// chunk keeps exactly) is no JSON number and would poison a bucket's
// mean, so it reads as absent too.
func reported(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func rawSeries(chunks []Chunk, tail []byte, cols []int, from, to time.Time) (map[int][]Point, error) {
	lo, hi := msBounds(from, to)
	out := map[int][]Point{}
	err := rows(chunks, tail, cols, lo, hi, func(b chunk.Block, i, j int) {
		for _, col := range cols {
			values := b.Column(col)
			if values == nil {
				continue
			}
			s := out[col]
			for k := i; k < j; k++ {
				if reported(values[k]) {
					s = append(s, Point{Timestamp: time.UnixMilli(b.Times[k]).UTC(), Value: values[k]})
				}
			}
			out[col] = s
		}
	})
	return out, err
}

func downsampled(chunks []Chunk, tail []byte, cols []int, from, to time.Time, maxPoints int) (map[int][]Point, error) {
	span := to.Sub(from)
	width := (span + time.Duration(maxPoints) - 1) / time.Duration(maxPoints)
	buckets := int((span + width - 1) / width)
	type acc struct {
		sum, last []float64
		n         []int32
	}
	accs := map[int]*acc{}
	for _, col := range cols {
		accs[col] = &acc{sum: make([]float64, buckets), last: make([]float64, buckets), n: make([]int32, buckets)}
	}
	lo, hi := msBounds(from, to)
	fromNs := from.UnixNano()
	err := rows(chunks, tail, cols, lo, hi, func(b chunk.Block, i, j int) {
		for _, col := range cols {
			values := b.Column(col)
			if values == nil {
				continue
			}
			a := accs[col]
			for k := i; k < j; k++ {
				v := values[k]
				if !reported(v) {
					continue
				}
				bucket := int((b.Times[k]*int64(time.Millisecond) - fromNs) / int64(width))
				a.sum[bucket] += v
				a.last[bucket] = v
				a.n[bucket]++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	out := map[int][]Point{}
	for col, a := range accs {
		var s []Point
		for k := range buckets {
			if a.n[k] == 0 {
				continue
			}
			v := a.last[k]
			if !byLast[col] {
				v = a.sum[k] / float64(a.n[k])
			}
			s = append(s, Point{Timestamp: from.Add(time.Duration(k) * width).UTC(), Value: v})
		}
		out[col] = s
	}
	return out, nil
}

// Prune deletes the history that left the retention window at now. The
// lead instance schedules it (a worker job, e.g. hourly); it returns the
// number of chunks deleted.
func Prune(ctx context.Context, store Store, now time.Time) (int, error) {
	return store.PruneChunks(ctx, now.Add(-Retention))
}
