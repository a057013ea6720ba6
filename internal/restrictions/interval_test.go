package restrictions

import (
	"math"
	"testing"
	"time"

	"atcp/internal/errs"
)

var t0 = time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time   { return t0.Add(d) }
func end(d time.Duration) *time.Time { e := t0.Add(d); return &e }
func f(x float64) *float64           { return &x }
func strp(x string) *string          { return &x }

func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		name     string
		start    time.Time
		end      *time.Time
		from, to time.Time
		want     bool
	}{
		{"ends exactly at from", at(0), end(time.Hour), at(time.Hour), time.Time{}, false},
		{"ends just after from", at(0), end(time.Hour), at(time.Hour - time.Microsecond), time.Time{}, true},
		{"starts exactly at to", at(time.Hour), end(2 * time.Hour), time.Time{}, at(time.Hour), false},
		{"starts just before to", at(time.Hour), end(2 * time.Hour), time.Time{}, at(time.Hour + time.Microsecond), true},
		{"open-ended after from", at(0), nil, at(100 * time.Hour), at(101 * time.Hour), true},
		{"open-ended starting at to", at(0), nil, time.Time{}, at(0), false},
		{"unbounded window", at(0), end(time.Hour), time.Time{}, time.Time{}, true},
		{"inside", at(0), end(time.Hour), at(10 * time.Minute), at(20 * time.Minute), true},
		{"covering", at(10 * time.Minute), end(20 * time.Minute), at(0), at(time.Hour), true},
	} {
		if got := Overlap(c.start, c.end, c.from, c.to); got != c.want {
			t.Errorf("%s: got %v", c.name, got)
		}
	}
}

func TestBuild(t *testing.T) {
	power := Capacity{PowerMW: f(10), EnergyMWh: f(20)}
	for _, c := range []struct {
		name         string
		kind         Kind
		d            Draft
		c            Capacity
		upper, lower float64
		bad          []string
	}{
		{"upper only", PowerLimit, Draft{Start: at(time.Hour), Upper: f(4), Reason: "fault"}, power, 4, -10, nil},
		{"lower only", PowerLimit, Draft{Start: at(time.Hour), Lower: f(-3), Reason: "fault"}, power, 10, -3, nil},
		{"both", PowerLimit, Draft{Start: at(time.Hour), Upper: f(0), Lower: f(0), Reason: "fault"}, power, 0, 0, nil},
		{"energy lower only", EnergyLimit, Draft{Start: at(time.Hour), Lower: f(2), Reason: "other"}, power, 20, 2, nil},
		{"energy upper only", EnergyLimit, Draft{Start: at(time.Hour), Upper: f(2), Reason: "other"}, power, 2, 0, nil},
		{"no bound", PowerLimit, Draft{Start: at(time.Hour), Reason: "fault"}, power, 0, 0, []string{"body.upper_limit_mw"}},
		{"no capacity to default", PowerLimit, Draft{Start: at(time.Hour), Upper: f(1), Reason: "fault"}, Capacity{}, 0, 0, []string{"body.lower_limit_mw"}},
		{"no capacity both given", PowerLimit, Draft{Start: at(time.Hour), Upper: f(100), Lower: f(-100), Reason: "fault"}, Capacity{}, 100, -100, nil},
		{"above capacity", PowerLimit, Draft{Start: at(time.Hour), Upper: f(10.5), Reason: "fault"}, power, 0, 0, []string{"body.upper_limit_mw"}},
		{"NaN", PowerLimit, Draft{Start: at(time.Hour), Upper: f(math.NaN()), Reason: "fault"}, power, 0, 0, []string{"body.upper_limit_mw"}},
		{"negative energy", EnergyLimit, Draft{Start: at(time.Hour), Lower: f(-1), Upper: f(1), Reason: "fault"}, Capacity{}, 0, 0, []string{"body.lower_limit_mwh"}},
		{"lower above upper", PowerLimit, Draft{Start: at(time.Hour), Upper: f(1), Lower: f(2), Reason: "fault"}, power, 0, 0, []string{"body.lower_limit_mw"}},
		{"bad reason and end", Unavailability, Draft{Start: at(time.Hour), End: end(time.Hour), Reason: "x"}, power, 0, 0, []string{"body.reason", "body.end_time"}},
		{"past start", Unavailability, Draft{Start: at(-2 * time.Minute), Reason: "fault"}, power, 0, 0, []string{"body.start_time"}},
		{"slightly past start", Unavailability, Draft{Start: at(-time.Minute), Reason: "fault"}, power, 0, 0, nil},
		{"missing start", Unavailability, Draft{Reason: "fault"}, power, 0, 0, []string{"body.start_time"}},
		{"description with line breaks and tabs", Unavailability, Draft{Start: at(time.Hour), Reason: "fault", ReasonDescription: strp("Inverter 2:\r\n\tfan failure")}, power, 0, 0, nil},
		{"description with NUL", Unavailability, Draft{Start: at(time.Hour), Reason: "fault", ReasonDescription: strp("fan\x00")}, power, 0, 0, []string{"body.reason_description"}},
		{"description with escape", PowerLimit, Draft{Start: at(time.Hour), Upper: f(4), Reason: "fault", ReasonDescription: strp("\x1b]0;title\x07")}, power, 0, 0, []string{"body.reason_description"}},
		{"description with a C1 control", Unavailability, Draft{Start: at(time.Hour), Reason: "fault", ReasonDescription: strp("fan\u0085")}, power, 0, 0, []string{"body.reason_description"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			iv, err := Build(c.kind, c.d, c.c, t0)
			if c.bad != nil {
				var e *errs.Error
				if !asErr(err, &e) || len(e.Fields) != len(c.bad) {
					t.Fatalf("got %v, want fields %v", err, c.bad)
				}
				for i, loc := range c.bad {
					if e.Fields[i].Location != loc {
						t.Errorf("field %d = %s, want %s", i, e.Fields[i].Location, loc)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.kind == Unavailability {
				if iv.Upper != nil || iv.Lower != nil {
					t.Fatal("unavailability with bounds")
				}
				return
			}
			if *iv.Upper != c.upper || *iv.Lower != c.lower {
				t.Fatalf("bounds [%v, %v]", *iv.Lower, *iv.Upper)
			}
		})
	}
}

func asErr(err error, e **errs.Error) bool {
	x, ok := err.(*errs.Error)
	*e = x
	return ok
}

func TestFull(t *testing.T) {
	for _, c := range []struct {
		iv   Interval
		want bool
	}{
		{Interval{Kind: Unavailability}, true},
		{Interval{Kind: PowerLimit, Upper: f(0), Lower: f(0)}, true},
		{Interval{Kind: PowerLimit, Upper: f(-1), Lower: f(1)}, true},
		{Interval{Kind: PowerLimit, Upper: f(0.1), Lower: f(0)}, false},
		{Interval{Kind: PowerLimit, Upper: f(0), Lower: f(-0.1)}, false},
		{Interval{Kind: EnergyLimit, Upper: f(5), Lower: f(5)}, true},
		{Interval{Kind: EnergyLimit, Upper: f(5), Lower: f(4.9)}, false},
	} {
		if got := c.iv.Full(); got != c.want {
			t.Errorf("%+v: got %v", c.iv, got)
		}
	}
	ivs := []Interval{{Kind: Unavailability, Start: at(time.Hour), End: end(2 * time.Hour)}, {Kind: PowerLimit, Start: at(0), Upper: f(1), Lower: f(-1)}}
	for d, want := range map[time.Duration]bool{0: false, time.Hour: true, 2*time.Hour - time.Microsecond: true, 2 * time.Hour: false} {
		if got := FullyRestrictedBy(ivs, at(d)); got != want {
			t.Errorf("at +%s: got %v", d, got)
		}
	}
}

func code(err error) errs.Code {
	if e, ok := err.(*errs.Error); ok {
		return e.Code
	}
	return ""
}

func TestPlans(t *testing.T) {
	existing := []Interval{
		{Kind: PowerLimit, Start: at(-time.Hour), End: end(-10 * time.Minute)}, // ended
		{Kind: PowerLimit, Start: at(-time.Hour + time.Second), End: end(time.Hour)},
		{Kind: PowerLimit, Start: at(2 * time.Hour)}, // future, open-ended
	}
	now := t0
	for _, c := range []struct {
		name string
		plan func() (Change, error)
		op   Op
		code errs.Code
		end  *time.Time
	}{
		{"create touching", func() (Change, error) {
			return PlanCreate(existing, Interval{Kind: PowerLimit, Start: at(time.Hour), End: end(2 * time.Hour)})
		}, OpInsert, "", end(2 * time.Hour)},
		{"create overlapping open-ended", func() (Change, error) {
			return PlanCreate(existing, Interval{Kind: PowerLimit, Start: at(100 * time.Hour), End: end(101 * time.Hour)})
		}, 0, "overlapping_interval", nil},
		{"create open-ended over a future one", func() (Change, error) {
			return PlanCreate(existing, Interval{Kind: PowerLimit, Start: at(time.Hour)})
		}, 0, "overlapping_interval", nil},
		{"shorten needs one", func() (Change, error) { return PlanShorten(existing, at(2*time.Hour), Shortening{}, now) }, 0, "bad_shortening", nil},
		{"shorten unknown", func() (Change, error) {
			return PlanShorten(existing, at(3*time.Hour), Shortening{EndNow: true}, now)
		}, 0, "not_found", nil},
		{"end now", func() (Change, error) {
			return PlanShorten(existing, at(-time.Hour+time.Second), Shortening{EndNow: true}, now)
		}, OpSetEnd, "", end(0)},
		{"end now retried", func() (Change, error) {
			return PlanShorten(existing, at(-time.Hour), Shortening{EndNow: true}, now)
		}, OpNone, "", end(-10 * time.Minute)},
		{"end now future", func() (Change, error) {
			return PlanShorten(existing, at(2*time.Hour), Shortening{EndNow: true}, now)
		}, 0, "interval_not_started", nil},
		{"schedule on ended", func() (Change, error) {
			return PlanShorten(existing, at(-time.Hour), Shortening{NewEnd: end(time.Hour)}, now)
		}, 0, "interval_ended", nil},
		{"schedule within lead", func() (Change, error) {
			return PlanShorten(existing, at(-time.Hour+time.Second), Shortening{NewEnd: end(ShorteningLead - time.Second)}, now)
		}, 0, "validation_failed", nil},
		{"schedule at lead", func() (Change, error) {
			return PlanShorten(existing, at(-time.Hour+time.Second), Shortening{NewEnd: end(ShorteningLead)}, now)
		}, OpSetEnd, "", end(ShorteningLead)},
		{"schedule extension", func() (Change, error) {
			return PlanShorten(existing, at(-time.Hour+time.Second), Shortening{NewEnd: end(time.Hour)}, now)
		}, 0, "validation_failed", nil},
		{"schedule open-ended before start", func() (Change, error) {
			return PlanShorten(existing, at(2*time.Hour), Shortening{NewEnd: end(2 * time.Hour)}, now)
		}, 0, "validation_failed", nil},
		{"schedule open-ended", func() (Change, error) {
			return PlanShorten(existing, at(2*time.Hour), Shortening{NewEnd: end(3 * time.Hour)}, now)
		}, OpSetEnd, "", end(3 * time.Hour)},
		{"delete future", func() (Change, error) { return PlanDelete(existing, at(2*time.Hour), now) }, OpDelete, "", nil},
		{"delete started", func() (Change, error) { return PlanDelete(existing, at(-time.Hour+time.Second), now) }, 0, "interval_started", nil},
		{"delete unknown", func() (Change, error) { return PlanDelete(existing, at(time.Second), now) }, 0, "not_found", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch, err := c.plan()
			if code(err) != c.code {
				t.Fatalf("error %v, want code %q", err, c.code)
			}
			if err != nil {
				return
			}
			if ch.Op != c.op {
				t.Fatalf("op %d, want %d", ch.Op, c.op)
			}
			if c.end != nil && (ch.Interval.End == nil || !ch.Interval.End.Equal(*c.end)) {
				t.Fatalf("end %v, want %v", ch.Interval.End, *c.end)
			}
		})
	}
}

// FuzzBuild: Build never panics, and what it accepts is consistent.
func FuzzBuild(f *testing.F) {
	f.Add(int64(3600), int64(7200), 4.0, -4.0, true, true, "fault", 10.0)
	f.Add(int64(0), int64(0), math.NaN(), math.Inf(1), false, true, "x", -1.0)
	f.Fuzz(func(t *testing.T, startS, endS int64, upper, lower float64, hasUpper, hasLower bool, reason string, capacity float64) {
		for _, kind := range []Kind{PowerLimit, EnergyLimit, Unavailability} {
			d := Draft{Start: t0.Add(time.Duration(startS%1e6) * time.Second), Reason: reason}
			if endS != 0 {
				d.End = end(time.Duration(endS%1e6) * time.Second)
			}
			if hasUpper {
				d.Upper = &upper
			}
			if hasLower {
				d.Lower = &lower
			}
			iv, err := Build(kind, d, Capacity{PowerMW: &capacity, EnergyMWh: &capacity}, t0)
			if err != nil {
				if errs.KindOf(err) != errs.Invalid {
					t.Fatalf("non-422 error %v", err)
				}
				continue
			}
			if iv.End != nil && !iv.End.After(iv.Start) || !iv.Reason.Valid() {
				t.Fatalf("accepted %+v", iv)
			}
			if kind != Unavailability && (*iv.Lower > *iv.Upper || math.IsNaN(*iv.Lower) || math.IsNaN(*iv.Upper)) {
				t.Fatalf("accepted bounds [%v, %v]", *iv.Lower, *iv.Upper)
			}
		}
	})
}
