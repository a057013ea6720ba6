package dispatch

import (
	"errors"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
)

func f64(v float64) *float64 { return &v }

func immAsset(capMW *float64, strict bool) assets.Asset {
	a := assets.NewAsset("a1", "acme", "A1", "Kiel", assets.Standalone)
	a.UsablePowerCapacityMW, a.StrictValidation = capMW, strict
	return a
}

func TestPlanImmediate(t *testing.T) {
	now := time.Date(2026, 3, 29, 0, 59, 59, 500_000_000, time.UTC) // Berlin skips 02:00 local a second later
	at := func(d time.Duration) *time.Time { x := now.Add(d); return &x }
	ten := f64(10)
	tests := []struct {
		name      string
		d         ImmediateDraft
		a         assets.Asset
		kind      errs.Kind
		code      errs.Code
		wantStart time.Time
		warnings  int
	}{
		{"start defaults to now", ImmediateDraft{End: now.Add(time.Minute), SetPowerMW: 5}, immAsset(ten, false), -1, "", now, 0},
		{"start 1 s back", ImmediateDraft{Start: at(-time.Second), End: now.Add(time.Minute), SetPowerMW: 5}, immAsset(ten, false), -1, "", now.Add(-time.Second), 0},
		{"start slightly ahead is now", ImmediateDraft{Start: at(800 * time.Millisecond), End: now.Add(time.Minute)}, immAsset(ten, false), -1, "", now, 0},
		{"backdated", ImmediateDraft{Start: at(-1001 * time.Millisecond), End: now.Add(time.Minute)}, immAsset(ten, false), errs.Invalid, "validation_failed", time.Time{}, 0},
		{"scheduled", ImmediateDraft{Start: at(2 * time.Second), End: now.Add(time.Minute)}, immAsset(ten, false), errs.Invalid, "validation_failed", time.Time{}, 0},
		{"end in the past", ImmediateDraft{End: now, SetPowerMW: 1}, immAsset(ten, false), errs.Invalid, "validation_failed", time.Time{}, 0},
		{"window too short", ImmediateDraft{End: now.Add(9 * time.Second)}, immAsset(ten, false), errs.Malformed, "window_too_short", time.Time{}, 0},
		{"window exactly the minimum", ImmediateDraft{End: now.Add(10 * time.Second)}, immAsset(ten, false), -1, "", now, 0},
		{"short counted from a backdated start", ImmediateDraft{Start: at(-time.Second), End: now.Add(9 * time.Second)}, immAsset(ten, false), -1, "", now.Add(-time.Second), 0},
		{"above capacity warns", ImmediateDraft{End: now.Add(time.Minute), SetPowerMW: -12}, immAsset(ten, false), -1, "", now, 1},
		{"above capacity strict", ImmediateDraft{End: now.Add(time.Minute), SetPowerMW: 12}, immAsset(ten, true), errs.Conflict, "strict_validation", time.Time{}, 0},
		{"at capacity strict", ImmediateDraft{End: now.Add(time.Minute), SetPowerMW: 10}, immAsset(ten, true), -1, "", now, 0},
		{"above twice capacity", ImmediateDraft{End: now.Add(time.Minute), SetPowerMW: 20.5}, immAsset(ten, false), errs.Invalid, "validation_failed", time.Time{}, 0},
		{"no capacity recorded", ImmediateDraft{End: now.Add(time.Minute), SetPowerMW: 500}, immAsset(nil, true), -1, "", now, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			im, warnings, err := PlanImmediate(tc.d, tc.a, now, DefaultMinImmediateWindow)
			if tc.kind < 0 {
				if err != nil {
					t.Fatal(err)
				}
				if !im.Start.Equal(tc.wantStart) || !im.End.Equal(tc.d.End) || len(warnings) != tc.warnings || im.AssetID != "a1" || im.OrganizationID != "acme" {
					t.Fatalf("got %+v %v", im, warnings)
				}
				return
			}
			var e *errs.Error
			if err == nil || !errors.As(err, &e) || e.Kind != tc.kind || e.Code != tc.code {
				t.Fatalf("err %v, want kind %d code %s", err, tc.kind, tc.code)
			}
		})
	}
}

func TestReplacement(t *testing.T) {
	t0 := time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC) // Berlin repeats 02:00-03:00 local from 01:00 UTC
	old := Immediate{Start: t0, End: t0.Add(time.Hour)}
	tests := []struct {
		name   string
		start  time.Time
		remove bool
		end    time.Time
	}{
		{"cut in force", t0.Add(10 * time.Minute), false, t0.Add(10 * time.Minute)},
		{"ended before", t0.Add(time.Hour), false, t0.Add(time.Hour)},
		{"backdated to its start", t0, true, t0},
		{"backdated before it", t0.Add(-time.Second), true, t0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cut, remove := Replacement(old, tc.start)
			if remove != tc.remove || !cut.End.Equal(tc.end) {
				t.Fatalf("got %+v %v", cut, remove)
			}
		})
	}
}

func TestHistoryWindow(t *testing.T) {
	now := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	w, err := HistoryWindow(Window{}, now)
	if err != nil || !w.From.Equal(now.Add(-History)) || !w.To.IsZero() {
		t.Fatal(w, err)
	}
	if _, err := HistoryWindow(Window{From: now.Add(-History - time.Second)}, now); !errs.Is(err, errs.Invalid) {
		t.Fatal(err)
	}
	if _, err := HistoryWindow(Window{From: now, To: now}, now); !errs.Is(err, errs.Invalid) {
		t.Fatal(err)
	}
}
