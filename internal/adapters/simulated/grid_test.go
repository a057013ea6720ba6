package simulated

import (
	"math"
	"testing"
	"time"

	"atcp/internal/markets/replay"
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
			if c := Curtailment(1, "bess-1", false, at); c.ExportCurtailmentPct > 0 || c.ImportCurtailmentPct > 0 {
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
