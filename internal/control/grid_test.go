package control

import (
	"math"
	"testing"
	"time"

	"atcp/internal/markets/replay"
	"atcp/internal/telemetry/simulator"
)

func TestFrequencySeriesFollowsReplayedStats(t *testing.T) {
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	period := time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC)
	src, err := replay.SourceQuarterHour(period)
	if err != nil {
		t.Fatal(err)
	}
	stats, ok := data.Frequency(src)
	if !ok {
		t.Fatal("no replayed frequency")
	}
	series := FrequencySeries(data, 7, period)
	if len(series) != 900 {
		t.Fatalf("%d samples", len(series))
	}
	var sum float64
	for _, f := range series {
		if f < stats.MinHz || f > stats.MaxHz {
			t.Fatalf("%v outside [%v, %v]", f, stats.MinHz, stats.MaxHz)
		}
		sum += f
	}
	if mean := sum / 900; math.Abs(mean-stats.MeanHz) > stats.StdHz/2+1e-9 {
		t.Fatalf("mean %v, replayed %v (std %v)", mean, stats.MeanHz, stats.StdHz)
	}
	again := FrequencySeries(data, 7, period)
	for i := range series {
		if series[i] != again[i] {
			t.Fatal("not deterministic")
		}
	}
	if other := FrequencySeries(data, 8, period); other[100] == series[100] {
		t.Fatal("the seed does not matter")
	}
	for _, f := range FrequencySeries(nil, 7, period) {
		if f != replay.NominalHz {
			t.Fatalf("without data %v", f)
		}
	}
}

func TestAFRRSetpointDeliversTheActivatedEnergy(t *testing.T) {
	start := time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name                      string
		activated, pos, neg, mean float64
		swings                    bool
	}{
		{name: "well within the award", activated: 2, pos: 5, mean: 2, swings: true},
		// Activated at the full award: the swing may not clip at the
		// award, or the energy delivered falls short.
		{name: "full neg award", activated: -5, neg: 5, mean: -5},
		{name: "near the award", activated: 4.5, pos: 5, mean: 4.5, swings: true},
		{name: "beyond the award", activated: 6, pos: 5, mean: 5},
		{name: "no award in that direction", activated: -3, pos: 5},
		{name: "nothing activated", pos: 5, neg: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sum, lo, hi float64
			lo, hi = math.Inf(1), math.Inf(-1)
			for s := range 900 {
				mw := AFRRSetpoint(tc.activated, tc.pos, tc.neg, start.Add(time.Duration(s)*time.Second))
				if mw > tc.pos+1e-12 || mw < -tc.neg-1e-12 {
					t.Fatalf("second %d: %v outside the award [%v, %v]", s, mw, -tc.neg, tc.pos)
				}
				sum += mw
				lo, hi = math.Min(lo, mw), math.Max(hi, mw)
			}
			if math.Abs(sum/900-tc.mean) > 1e-9 {
				t.Fatalf("mean %v, want %v", sum/900, tc.mean)
			}
			if tc.swings != (hi-lo > 1e-9) {
				t.Fatalf("swing %v..%v", lo, hi)
			}
		})
	}
}

func TestCurtailmentModel(t *testing.T) {
	day := time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC)
	pvDays, otherDays := 0, 0
	for d := range 200 {
		pvOn, otherOn := false, false
		for m := 0; m < 1440; m += 5 {
			at := day.AddDate(0, 0, d).Add(time.Duration(m) * time.Minute)
			g := Curtailment(1, "pv-1", true, at)
			if g.PVExportCurtailmentPct > 0 {
				pvOn = true
				if h := at.Hour(); h < 10 || h >= 14 {
					t.Fatalf("PV curtailment at %v", at)
				}
			}
			if c := Curtailment(1, "bess-1", false, at); curtailed(c) {
				otherOn = true
				if c.PVExportCurtailmentPct != 0 {
					t.Fatal("PV curtailment of a battery without PV")
				}
			}
			if g != Curtailment(1, "pv-1", true, at) {
				t.Fatal("not deterministic")
			}
		}
		if pvOn {
			pvDays++
		}
		if otherOn {
			otherDays++
		}
	}
	if pvDays < 40 || pvDays > 90 || otherDays < 8 || otherDays > 35 {
		t.Fatalf("curtailed days: PV %d of 200, battery %d of 200", pvDays, otherDays)
	}
}

func TestCurtailmentBounds(t *testing.T) {
	cfg := simulator.Config{PowerCapacityMW: 10, PVPeakMW: 5}
	maxMW, minMW := curtailmentBounds(cfg, simulator.GridSignals{ExportCurtailmentPct: 40})
	if maxMW != 9 || minMW != -15 {
		t.Fatalf("bounds %v %v", maxMW, minMW)
	}
	cfg.GridConnectionMW = 8
	maxMW, minMW = curtailmentBounds(cfg, simulator.GridSignals{ImportCurtailmentPct: 50})
	if maxMW != 8 || minMW != -4 {
		t.Fatalf("bounds %v %v", maxMW, minMW)
	}
}
