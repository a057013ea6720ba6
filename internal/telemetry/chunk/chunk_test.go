package chunk_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"atcp/internal/telemetry"
	"atcp/internal/telemetry/chunk"
	"atcp/internal/telemetry/simulator"
)

// near reports whether got is want within the resolution (exact for what
// is stored raw, NaN for NaN).
func near(got, want float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) || math.Abs(want) > chunk.MaxQuantised {
		return math.Float64bits(got) == math.Float64bits(want) || (math.IsNaN(got) && math.IsNaN(want))
	}
	return math.Abs(got-want) <= chunk.Resolution/2+math.Abs(want)*1e-15
}

func checkRoundTrip(t *testing.T, b chunk.Block) []byte {
	t.Helper()
	data, err := chunk.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := chunk.Decode(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Times) != len(b.Times) || len(got.Columns) != len(b.Columns) {
		t.Fatalf("decoded %d times %d columns, want %d %d", len(got.Times), len(got.Columns), len(b.Times), len(b.Columns))
	}
	for i := range b.Times {
		if got.Times[i] != b.Times[i] {
			t.Fatalf("time %d = %d, want %d", i, got.Times[i], b.Times[i])
		}
		for c := range b.Columns {
			if !near(got.Columns[c][i], b.Columns[c][i]) {
				t.Fatalf("column %d value %d = %v, want %v", c, i, got.Columns[c][i], b.Columns[c][i])
			}
		}
	}
	return data
}

func TestRoundTrip(t *testing.T) {
	base := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC).UnixMilli()
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name    string
		times   []int64
		columns [][]float64
	}{
		{"empty", nil, [][]float64{{}, {}}},
		{"no columns", []int64{base, base + 1000}, nil},
		{"one point", []int64{base}, [][]float64{{3.25}}},
		{"constant and linear", []int64{base, base + 1000, base + 2000, base + 3000},
			[][]float64{{5, 5, 5, 5}, {1, 2, 3, 4}, {0, 0, 0, 0}}},
		{"irregular times", []int64{base, base + 1, base + 1000, base + 86_400_000}, [][]float64{{1, -1, 1, -1}}},
		{"absent runs", []int64{base, base + 1000, base + 2000, base + 3000, base + 4000},
			[][]float64{{nan, nan, 1.5, nan, 2}, {nan, nan, nan, nan, nan}, {0, nan, 0, 0, nan}}},
		{"exceptions", []int64{base, base + 1000, base + 2000, base + 3000},
			[][]float64{{inf, -inf, 1e300, -1e-300}, {chunk.MaxQuantised, -chunk.MaxQuantised, 1e11 + 1, 0}}},
		{"micro resolution", []int64{base, base + 1000, base + 2000},
			[][]float64{{49.999, 50.001, 50.0000004}, {-0.000001, 0.0000015, 1e-7}}},
		{"extreme times", []int64{math.MinInt64, -1, 0, math.MaxInt64}, [][]float64{{1, 2, 3, 4}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkRoundTrip(t, chunk.Block{Times: tc.times, Columns: tc.columns})
		})
	}
}

func TestEncoderRejects(t *testing.T) {
	e := chunk.NewEncoder(2)
	if err := e.Append(10, []float64{1}); err == nil {
		t.Fatal("short row accepted")
	}
	if err := e.Append(10, []float64{1, 2}); err != nil {
		t.Fatal(err)
	}
	for _, ts := range []int64{10, 9} {
		if err := e.Append(ts, []float64{1, 2}); err == nil {
			t.Fatalf("timestamp %d after 10 accepted", ts)
		}
	}
	if e.Len() != 1 || e.Last() != 10 {
		t.Fatalf("len %d last %d", e.Len(), e.Last())
	}
	if _, err := chunk.Encode(chunk.Block{Times: []int64{1, 2}, Columns: [][]float64{{1}}}); err == nil {
		t.Fatal("ragged block accepted")
	}
}

// AppendTo may be called between appends: each version decodes to the rows
// appended so far, and continuing a run after a write keeps it intact.
func TestEncoderIncremental(t *testing.T) {
	e := chunk.NewEncoder(1)
	var want chunk.Block
	want.Columns = [][]float64{nil}
	for i := range 50 {
		v := float64(i / 10) // runs of equal values broken every ten rows
		if i%7 == 3 {
			v = math.NaN()
		}
		if err := e.Append(int64(i*1000), []float64{v}); err != nil {
			t.Fatal(err)
		}
		want.Times = append(want.Times, int64(i*1000))
		want.Columns[0] = append(want.Columns[0], v)
		got, err := chunk.Decode(e.AppendTo(nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := range want.Times {
			if got.Times[j] != want.Times[j] || !near(got.Columns[0][j], want.Columns[0][j]) {
				t.Fatalf("after %d rows, row %d = %d %v", i+1, j, got.Times[j], got.Columns[0][j])
			}
		}
	}
}

// TestEncoderRawAndReset: AppendRawTo frames the same rows as AppendTo,
// undeflated, and decodes to them; a Reset encoder starts a new chunk
// whose first row may come at any time, earlier ones included.
func TestEncoderRawAndReset(t *testing.T) {
	e := chunk.NewEncoder(2)
	rows := func(from, n int) chunk.Block {
		b := chunk.Block{Columns: [][]float64{nil, nil}}
		for i := from; i < from+n; i++ {
			v := []float64{math.Sin(float64(i)) * 1000, float64(i % 3)}
			if err := e.Append(int64(i*1000), v); err != nil {
				t.Fatal(err)
			}
			b.Times = append(b.Times, int64(i*1000))
			b.Columns[0], b.Columns[1] = append(b.Columns[0], v[0]), append(b.Columns[1], v[1])
		}
		return b
	}
	check := func(data []byte, want chunk.Block) {
		t.Helper()
		got, err := chunk.Decode(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Times) != len(want.Times) {
			t.Fatalf("%d rows, want %d", len(got.Times), len(want.Times))
		}
		for i := range want.Times {
			if got.Times[i] != want.Times[i] || !near(got.Columns[0][i], want.Columns[0][i]) || !near(got.Columns[1][i], want.Columns[1][i]) {
				t.Fatalf("row %d: %d %v %v", i, got.Times[i], got.Columns[0][i], got.Columns[1][i])
			}
		}
	}
	want := rows(100, 200)
	raw, deflated := e.AppendRawTo(nil), e.AppendTo(nil)
	check(raw, want)
	check(deflated, want)
	if len(raw) <= len(deflated) {
		t.Fatalf("raw %d bytes, deflated %d: nothing was deflated", len(raw), len(deflated))
	}
	e.Reset()
	if e.Len() != 0 {
		t.Fatalf("reset encoder has %d rows", e.Len())
	}
	check(e.AppendRawTo(nil), chunk.Block{Columns: [][]float64{{}, {}}})
	want = rows(5, 3)
	check(e.AppendRawTo(nil), want)
	check(e.AppendTo(nil), want)
}

func TestDecodeSelectedColumns(t *testing.T) {
	day := simulatedDay(t, false, 600)
	data := checkRoundTrip(t, day)
	got, err := chunk.Decode(data, []int{2, 7, 999, -1})
	if err != nil {
		t.Fatal(err)
	}
	for c := range got.Columns {
		if (c == 2 || c == 7) != (got.Column(c) != nil) {
			t.Fatalf("column %d decoded: %v", c, got.Column(c) != nil)
		}
	}
	if got.Column(999) != nil || len(got.Times) != 600 {
		t.Fatal("absent column or times wrong")
	}
	if len(got.Columns) != len(telemetry.PointNames()) {
		t.Fatalf("%d columns", len(got.Columns))
	}
}

func TestDecodeCorrupt(t *testing.T) {
	data, err := chunk.Encode(simulatedDay(t, true, 120))
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{
		"empty":     nil,
		"version":   append([]byte{2}, data[1:]...),
		"truncated": data[:len(data)-3],
		"trailing":  append(bytes.Clone(data), 0),
		"points":    {chunk.Version, 0xff, 0xff, 0xff, 0x7f, 0},
		"run":       {chunk.Version, 2, 0, 2, 8 << 2},
	}
	for name, b := range bad {
		if _, err := chunk.Decode(b, nil); !errors.Is(err, chunk.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, pv := range []bool{false, true} {
		data, err := chunk.Encode(simulatedDay(f, pv, 30))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte{chunk.Version, 1, 1, 2, 4, 2, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := chunk.Decode(data, nil)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to the same content.
		checkRoundTrip(t, b)
	})
}

// FuzzRoundTrip reads rows of three columns from the fuzz bytes: a time
// step and three float64 values each.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"))
	f.Add(bytes.Repeat([]byte{1, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		const row = 2 + 3*8
		b := chunk.Block{Columns: make([][]float64, 3)}
		ts := int64(1_769_925_600_000)
		for ; len(data) >= row; data = data[row:] {
			ts += 1 + int64(data[0])<<8 | int64(data[1])
			b.Times = append(b.Times, ts)
			for c := range 3 {
				bits := uint64(0)
				for k := range 8 {
					bits |= uint64(data[2+c*8+k]) << (8 * k)
				}
				v := math.Float64frombits(bits)
				if c == 1 && !math.IsNaN(v) && !math.IsInf(v, 0) {
					v = math.Mod(v, 1000) // the usual magnitudes
				}
				b.Columns[c] = append(b.Columns[c], v)
			}
		}
		checkRoundTrip(t, b)
	})
}

// simulatedDay drives one simulated 10 MW / 20 MWh battery (with or without
// PV) through n seconds from midnight UTC: a schedule changing every 15
// minutes, FCR and aFRR reservations in 4-hour blocks, an aFRR setpoint
// changing every 4 seconds, and a measured grid frequency wandering at
// 1 mHz resolution. It returns the measurements as one block.
func simulatedDay(t testing.TB, pv bool, n int) chunk.Block {
	t.Helper()
	cacheMu.Lock()
	defer cacheMu.Unlock()
	key := [2]int{n, 0}
	if pv {
		key[1] = 1
	}
	if b, ok := dayCache[key]; ok {
		return b
	}
	ctx := context.Background()
	start := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	sim := simulator.New(7)
	cfg := simulator.Config{AssetID: "bess", EnergyCapacityMWh: 20, PowerCapacityMW: 10,
		ChargeEfficiency: 0.95, DischargeEfficiency: 0.95, RampUpMWPerSec: 1, RampDownMWPerSec: 1,
		GridImportAllowed: true, PVActive: pv, LongitudeDeg: 10}
	if pv {
		cfg.PVPeakMW = 8
	}
	if err := sim.Add(cfg, start); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cols := len(telemetry.PointNames())
	b := chunk.Block{Columns: make([][]float64, cols)}
	cmd := telemetry.Command{ControlMode: telemetry.BESSOnly}
	freq := 50.0
	var values []float64
	for s := 1; s <= n; s++ {
		now := start.Add(time.Duration(s) * time.Second)
		if s%900 == 1 {
			cmd.BESSPowerMW = math.Round(rng.Float64()*12-6) / 2
			cmd.Dispatch15PowerMW = cmd.BESSPowerMW
		}
		if s%14400 == 1 {
			block := s / 14400
			cmd.FCRReservedMW = float64(block%2) * 2
			cmd.AFRRReservedPosMW = float64((block+1)%2) * 3
			cmd.AFRRReservedNegMW = float64((block+1)%2) * 3
		}
		if s%4 == 0 {
			cmd.AFRRSetpointMW = math.Round((rng.Float64()*6-3)*10) / 10
		}
		if err := sim.Send(ctx, "bess", cmd); err != nil {
			t.Fatal(err)
		}
		freq += (rng.Float64() - 0.5) * 0.004
		freq += (50 - freq) * 0.05
		if err := sim.SetFrequency(math.Round(freq*1000) / 1000); err != nil {
			t.Fatal(err)
		}
		sim.Tick(now)
		m, err := sim.Read(ctx, "bess")
		if err != nil {
			t.Fatal(err)
		}
		values = m.Values(values[:0])
		b.Times = append(b.Times, now.UnixMilli())
		for c, v := range values {
			b.Columns[c] = append(b.Columns[c], v)
		}
	}
	dayCache[key] = b
	return b
}

var (
	cacheMu  sync.Mutex
	dayCache = map[[2]int]chunk.Block{}
)

// slice returns rows [i, j) of b.
func slice(b chunk.Block, i, j int) chunk.Block {
	s := chunk.Block{Times: b.Times[i:j], Columns: make([][]float64, len(b.Columns))}
	for c, col := range b.Columns {
		s.Columns[c] = col[i:j]
	}
	return s
}

// TestSimulatedDaySize checks a realistic day round-trips and stays far
// under the 5 MB per asset-day budget.
func TestSimulatedDaySize(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a day")
	}
	for _, pv := range []bool{false, true} {
		day := simulatedDay(t, pv, 86_400)
		total := 0
		for i := 0; i < len(day.Times); i += 600 {
			total += len(checkRoundTrip(t, slice(day, i, i+600)))
		}
		if total > 1<<20 {
			t.Fatalf("pv %v: %d bytes per asset-day", pv, total)
		}
	}
}

func BenchmarkEncodeChunk(b *testing.B) {
	chunk10 := slice(simulatedDay(b, true, 3600), 1800, 2400)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := chunk.Encode(chunk10); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncoderWrite is the recorder's periodic rewrite of an open
// chunk: framing and deflating 300 tokenised rows.
func BenchmarkEncoderWrite(b *testing.B) {
	day := simulatedDay(b, true, 3600)
	e := chunk.NewEncoder(len(day.Columns))
	row := make([]float64, len(day.Columns))
	for i := range 300 {
		for c := range row {
			row[c] = day.Columns[c][i]
		}
		if err := e.Append(day.Times[i], row); err != nil {
			b.Fatal(err)
		}
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = e.AppendTo(buf[:0])
	}
}

func BenchmarkDecodeChunk(b *testing.B) {
	data, err := chunk.Encode(slice(simulatedDay(b, true, 3600), 1800, 2400))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := chunk.Decode(data, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one column", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := chunk.Decode(data, []int{22}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAssetDay reports the stored size of a simulated asset-day in
// 10-minute chunks.
func BenchmarkAssetDay(b *testing.B) {
	for _, pv := range []bool{false, true} {
		name := "battery"
		if pv {
			name = "battery+pv"
		}
		b.Run(name, func(b *testing.B) {
			day := simulatedDay(b, pv, 86_400)
			present := 0
			for _, col := range day.Columns {
				if !math.IsNaN(col[0]) {
					present++
				}
			}
			var total int
			for b.Loop() {
				total = 0
				for i := 0; i < len(day.Times); i += 600 {
					data, err := chunk.Encode(slice(day, i, i+600))
					if err != nil {
						b.Fatal(err)
					}
					total += len(data)
				}
			}
			b.ReportMetric(float64(total)/1e6, "MB/asset-day")
			b.ReportMetric(float64(total)/float64(len(day.Times)*present), "bytes/point")
		})
	}
}
