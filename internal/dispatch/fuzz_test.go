package dispatch

import (
	"errors"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
)

// FuzzPlanSchedule: whatever the targets, a request is either refused with
// a 409 or 422, or stored as events sorted by set_time, one per second,
// inside [From, To), each block of the range starting with an event when
// a span crosses it, and every target kept at its second.
func FuzzPlanSchedule(f *testing.F) {
	f.Add(int64(3000), 3.0, int64(4800), -2.0, int64(8000), 1.5, "bess_only")
	f.Add(int64(3000), 3.0, int64(4800), -2.0, int64(9000), 1.5, "bess_and_poc")
	f.Add(int64(60), 0.0, int64(60), 1.0, int64(-5), 30.0, "poc_only")
	f.Add(int64(900), 1.0, int64(90000), 2.0, int64(172000), -1.0, "bess_and_poc")
	now := time.Date(2026, 10, 25, 0, 50, 0, 0, time.UTC)
	a := assets.NewAsset("a1", "acme", "A1", "Kiel", assets.GreyColocation)
	ten := 10.0
	a.UsablePowerCapacityMW = &ten
	f.Fuzz(func(t *testing.T, s1 int64, p1 float64, s2 int64, p2 float64, s3 int64, p3 float64, mode string) {
		targets := []Target{}
		for _, x := range []struct {
			s int64
			p float64
		}{{s1, p1}, {s2, p2}, {s3, p3}} {
			tg := Target{ControlMode: mode, DeliveryTime: now.Add(time.Duration(x.s%300000) * time.Second / 2)}
			p, poc := x.p, x.p+1
			if mode != "poc_only" {
				tg.BESSPowerMW = &p
			}
			if mode == "poc_only" || mode == "bess_and_poc" {
				tg.PoCPowerMW = &poc
			}
			targets = append(targets, tg)
		}
		sch, err := PlanSchedule(targets, a, now)
		if err != nil {
			if k := errs.KindOf(err); k != errs.Invalid && k != errs.Conflict {
				t.Fatalf("unexpected error %v", err)
			}
			var e *errs.Error
			if errors.As(err, &e) && e.Kind == errs.Conflict && e.Code != "gate_closed" {
				t.Fatalf("conflict %v", err)
			}
			return
		}
		if !sch.From.Equal(BlockOf(sch.From)) || !sch.To.Equal(BlockOf(sch.To)) || !sch.From.Before(sch.To) {
			t.Fatalf("range %s..%s", sch.From, sch.To)
		}
		for i, ev := range sch.Events {
			if ev.SetTime.Before(sch.From) || !ev.SetTime.Before(sch.To) || !ev.DeliveryTime.Equal(BlockOf(ev.SetTime)) ||
				ev.SetTime.Nanosecond() != 0 || ev.DeliveryTime.Sub(now) < GateLead || !ev.SetTime.Before(HorizonEnd(now)) {
				t.Fatalf("event %d %+v outside %s..%s", i, ev, sch.From, sch.To)
			}
			if i > 0 && !ev.SetTime.After(sch.Events[i-1].SetTime) {
				t.Fatalf("events not strictly increasing at %d", i)
			}
		}
		for b := sch.From; b.Before(sch.To); b = b.Add(Block) {
			found := false
			for _, ev := range sch.Events {
				found = found || (ev.SetTime.Before(b.Add(Block)) && !ev.SetTime.Before(b))
			}
			if !found {
				t.Fatalf("block %s of the replaced range has no event", b)
			}
		}
		for _, tg := range targets {
			at := tg.DeliveryTime.Truncate(time.Second)
			found := false
			for _, ev := range sch.Events {
				found = found || ev.SetTime.Equal(at)
			}
			if !found {
				t.Fatalf("target at %s not stored", at)
			}
		}
	})
}

// TestFuzzSeedsAccepted keeps the fuzz seeds meaningful: the first two are
// stored, so the invariants above are exercised on accepted requests.
func TestFuzzSeedsAccepted(t *testing.T) {
	now := time.Date(2026, 10, 25, 0, 50, 0, 0, time.UTC)
	a := assets.NewAsset("a1", "acme", "A1", "Kiel", assets.GreyColocation)
	for _, mode := range []string{"bess_only", "bess_and_poc"} {
		var targets []Target
		for _, s := range []int64{3000, 4800, 8000} {
			p, poc := 1.0, 2.0
			tg := Target{ControlMode: mode, BESSPowerMW: &p, DeliveryTime: now.Add(time.Duration(s) * time.Second / 2)}
			if mode == "bess_and_poc" {
				tg.PoCPowerMW = &poc
			}
			targets = append(targets, tg)
		}
		if sch, err := PlanSchedule(targets, a, now); err != nil || len(sch.Events) < 3 {
			t.Fatalf("%s: %v", mode, err)
		}
	}
}
