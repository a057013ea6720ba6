package dispatch

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/telemetry"
)

func schedAsset(typ assets.AssetType) assets.Asset {
	a := assets.NewAsset("a1", "acme", "A1", "Kiel", typ)
	a.UsablePowerCapacityMW = f64(10)
	return a
}

// fields returns the locations of a 422, or the code of another error.
func fields(err error) string {
	var e *errs.Error
	if !errors.As(err, &e) {
		return fmt.Sprint(err)
	}
	if e.Kind != errs.Invalid {
		return string(e.Code)
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Location)
	}
	return strings.Join(out, " ")
}

func TestPlanScheduleRules(t *testing.T) {
	// 2026-03-29 is the spring clock change in Berlin; blocks stay UTC quarter-hours.
	now := time.Date(2026, 3, 29, 0, 50, 0, 0, time.UTC)
	ok := now.Add(25 * time.Minute) // 01:15 block, 25 min ahead
	standalone, grey, green := schedAsset(assets.Standalone), schedAsset(assets.GreyColocation), schedAsset(assets.GreenColocation)
	noImport := schedAsset(assets.Standalone)
	noImport.GridImportAllowed = new(bool)
	noCap := schedAsset(assets.Standalone)
	noCap.UsablePowerCapacityMW = nil
	tests := []struct {
		name    string
		a       assets.Asset
		targets []Target
		want    string // "" ok, else the 422 locations or the code
	}{
		{"bess_only default", standalone, []Target{{BESSPowerMW: f64(-4), DeliveryTime: ok}}, ""},
		{"bess_only needs bess", standalone, []Target{{DeliveryTime: ok}}, "body.schedules[0].bess_power_mw"},
		{"bess_only with poc 0", standalone, []Target{{BESSPowerMW: f64(1), PoCPowerMW: f64(0), DeliveryTime: ok}}, ""},
		{"bess_only with poc", standalone, []Target{{BESSPowerMW: f64(1), PoCPowerMW: f64(1), DeliveryTime: ok}}, "body.schedules[0].poc_power_mw"},
		{"power_mw alias", standalone, []Target{{PowerMW: f64(3), DeliveryTime: ok}}, ""},
		{"alias agreeing", standalone, []Target{{PowerMW: f64(3), BESSPowerMW: f64(3), DeliveryTime: ok}}, ""},
		{"alias differing", standalone, []Target{{PowerMW: f64(3), BESSPowerMW: f64(2), DeliveryTime: ok}}, "body.schedules[0].power_mw"},
		{"pv reserved", standalone, []Target{{BESSPowerMW: f64(1), PVPowerMW: f64(0), DeliveryTime: ok}}, "body.schedules[0].pv_power_mw"},
		{"passive", standalone, []Target{{ControlMode: "passive", BESSPowerMW: f64(0), DeliveryTime: ok}}, ""},
		{"passive with power", standalone, []Target{{ControlMode: "passive", BESSPowerMW: f64(1), PoCPowerMW: f64(2), DeliveryTime: ok}},
			"body.schedules[0].bess_power_mw body.schedules[0].poc_power_mw"},
		{"unknown mode", standalone, []Target{{ControlMode: "auto", DeliveryTime: ok}}, "body.schedules[0].control_mode"},
		{"bess_and_poc standalone", standalone, []Target{{ControlMode: "bess_and_poc", BESSPowerMW: f64(1), PoCPowerMW: f64(2), DeliveryTime: ok}},
			"body.schedules[0].control_mode"},
		{"bess_and_poc grey", grey, []Target{{ControlMode: "bess_and_poc", BESSPowerMW: f64(1), PoCPowerMW: f64(2), DeliveryTime: ok}}, ""},
		{"bess_and_poc bess above poc", grey, []Target{{ControlMode: "bess_and_poc", BESSPowerMW: f64(3), PoCPowerMW: f64(2), DeliveryTime: ok}},
			"body.schedules[0].bess_power_mw"},
		{"bess_and_poc missing both", grey, []Target{{ControlMode: "bess_and_poc", DeliveryTime: ok}},
			"body.schedules[0].bess_power_mw body.schedules[0].poc_power_mw"},
		{"poc_only grey", grey, []Target{{ControlMode: "poc_only", PoCPowerMW: f64(-2), DeliveryTime: ok}}, ""},
		{"poc_only with bess", grey, []Target{{ControlMode: "poc_only", BESSPowerMW: f64(1), PoCPowerMW: f64(2), DeliveryTime: ok}},
			"body.schedules[0].bess_power_mw"},
		{"poc_only needs poc", grey, []Target{{ControlMode: "poc_only", DeliveryTime: ok}}, "body.schedules[0].poc_power_mw"},
		{"green charging bess_only", green, []Target{{BESSPowerMW: f64(-1), DeliveryTime: ok}}, "body.schedules[0].bess_power_mw"},
		{"green discharging bess_only", green, []Target{{BESSPowerMW: f64(1), DeliveryTime: ok}}, ""},
		{"green import at poc", green, []Target{{ControlMode: "poc_only", PoCPowerMW: f64(-1), DeliveryTime: ok}}, "body.schedules[0].poc_power_mw"},
		{"green charges through bess_and_poc", green, []Target{{ControlMode: "bess_and_poc", BESSPowerMW: f64(-4), PoCPowerMW: f64(0), DeliveryTime: ok}}, ""},
		{"no grid import standalone", noImport, []Target{{BESSPowerMW: f64(-1), DeliveryTime: ok}}, "body.schedules[0].bess_power_mw"},
		{"sanity bound", standalone, []Target{{BESSPowerMW: f64(20.01), DeliveryTime: ok}}, "body.schedules[0].bess_power_mw"},
		{"sanity bound at twice", standalone, []Target{{BESSPowerMW: f64(-20), DeliveryTime: ok}}, ""},
		{"sanity bound poc", grey, []Target{{ControlMode: "poc_only", PoCPowerMW: f64(25), DeliveryTime: ok}}, "body.schedules[0].poc_power_mw"},
		{"no capacity recorded", noCap, []Target{{BESSPowerMW: f64(500), DeliveryTime: ok}}, ""},
		{"same second", standalone, []Target{{BESSPowerMW: f64(1), DeliveryTime: ok.Add(300 * time.Millisecond)}, {BESSPowerMW: f64(2), DeliveryTime: ok}},
			"body.schedules[1].delivery_time"},
		{"last second of the next UTC day", standalone, []Target{{BESSPowerMW: f64(1), DeliveryTime: time.Date(2026, 3, 30, 23, 59, 59, 0, time.UTC)}}, ""},
		{"beyond the next UTC day", standalone, []Target{{BESSPowerMW: f64(1), DeliveryTime: time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)}},
			"body.schedules[0].delivery_time"},
		{"block starting in 6 minutes", standalone, []Target{{BESSPowerMW: f64(1), DeliveryTime: time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC).Add(-4 * time.Minute)}}, "gate_closed"},
		{"block starting in under 6 minutes", schedAsset(assets.Standalone), []Target{{BESSPowerMW: f64(1), DeliveryTime: ok}, {BESSPowerMW: f64(1), DeliveryTime: now.Add(9 * time.Minute)}}, "gate_closed"},
		{"past block", standalone, []Target{{BESSPowerMW: f64(1), DeliveryTime: now.Add(-time.Hour)}}, "gate_closed"},
		{"422 before 409", standalone, []Target{{BESSPowerMW: f64(99), DeliveryTime: now.Add(-time.Hour)}}, "body.schedules[0].bess_power_mw"},
		{"empty", standalone, nil, "body.schedules"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PlanSchedule(tc.targets, tc.a, now)
			got := ""
			if err != nil {
				got = fields(err)
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	// The gate: 6 minutes ahead of a block start is open.
	if _, err := PlanSchedule([]Target{{BESSPowerMW: f64(1), DeliveryTime: now.Add(16 * time.Minute)}}, standalone, now.Add(4*time.Minute)); err != nil {
		t.Fatalf("block 6 minutes ahead: %v", err)
	}
}

func TestPlanScheduleStorage(t *testing.T) {
	// 2026-10-25 is the autumn clock change in Berlin: 25 local hours, still 96 UTC blocks.
	now := time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC)
	day := now
	at := func(h, m, s int) time.Time {
		return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
	}
	sch, err := PlanSchedule([]Target{
		{BESSPowerMW: f64(-2), DeliveryTime: at(1, 40, 0)},
		{BESSPowerMW: f64(3), DeliveryTime: at(1, 5, 30).Add(700 * time.Millisecond)}, // truncated to the second
		{ControlMode: "passive", DeliveryTime: at(1, 10, 0)},
	}, schedAsset(assets.Standalone), now)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range sch.Events {
		p := "nil"
		if e.BESSPowerMW != nil {
			p = fmt.Sprint(*e.BESSPowerMW)
		}
		got = append(got, fmt.Sprintf("%s@%s/%s", p, e.SetTime.Format("15:04:05"), e.DeliveryTime.Format("15:04")))
	}
	want := "3@01:05:30/01:00 nil@01:10:00/01:00 nil@01:15:00/01:15 nil@01:30:00/01:30 -2@01:40:00/01:30"
	if strings.Join(got, " ") != want {
		t.Fatalf("events\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if !sch.From.Equal(at(1, 0, 0)) || !sch.To.Equal(at(1, 45, 0)) || len(sch.Warnings) != 0 {
		t.Fatalf("range %s..%s %v", sch.From, sch.To, sch.Warnings)
	}
	if sch.Events[1].ControlMode != telemetry.Passive || sch.Events[0].PoCPowerMW != nil {
		t.Fatalf("modes %+v", sch.Events)
	}
	// Above the capacity but inside the sanity bound: stored, with a
	// warning naming the target.
	sch, err = PlanSchedule([]Target{{BESSPowerMW: f64(4), DeliveryTime: at(2, 0, 0)}, {BESSPowerMW: f64(-12.5), DeliveryTime: at(2, 5, 0)}},
		schedAsset(assets.Standalone), now)
	if err != nil || len(sch.Warnings) != 1 || !strings.HasPrefix(sch.Warnings[0], "schedules[1]: bess_power_mw -12.5 exceeds") {
		t.Fatalf("%v %v", sch.Warnings, err)
	}
	// A single target spans only its own block; the alias warns.
	sch, err = PlanSchedule([]Target{{PowerMW: f64(1), DeliveryTime: at(23, 59, 59)}}, schedAsset(assets.Standalone), now)
	if err != nil || len(sch.Events) != 1 || !sch.From.Equal(at(23, 45, 0)) || !sch.To.Equal(at(24, 0, 0)) || len(sch.Warnings) != 1 {
		t.Fatalf("%+v %v", sch, err)
	}
}

func TestWindows(t *testing.T) {
	now := time.Date(2026, 3, 29, 10, 7, 0, 0, time.UTC)
	q := func(h, m int) time.Time { return time.Date(2026, 3, 29, h, m, 0, 0, time.UTC) }
	w, err := ScheduleWindow(time.Time{}, time.Time{}, now)
	if err != nil || !w.From.Equal(q(0, 0)) || !w.To.Equal(q(24, 0)) {
		t.Fatal(w, err)
	}
	for name, c := range map[string]struct {
		from, to time.Time
		want     string
	}{
		"only start":  {q(1, 0), time.Time{}, "query.end_time"},
		"only end":    {time.Time{}, q(1, 0), "query.start_time"},
		"unaligned":   {q(1, 5), q(2, 0), "query.start_time"},
		"inverted":    {q(2, 0), q(1, 0), "query.end_time"},
		"too old":     {q(0, 0).Add(-31 * 24 * time.Hour), q(1, 0), "query.start_time"},
		"aligned":     {q(1, 0), q(2, 15), ""},
		"next day ok": {q(24, 0), q(48, 0), ""},
	} {
		_, err := ScheduleWindow(c.from, c.to, now)
		if got := map[bool]string{true: "", false: fields(err)}[err == nil]; got != c.want {
			t.Errorf("%s: got %q want %q", name, got, c.want)
		}
	}
	for name, c := range map[string]struct {
		from, to time.Time
		want     string
	}{
		"hour":       {q(1, 0), q(2, 0), ""},
		"quarter":    {q(1, 0), q(1, 15), ""},
		"over hour":  {q(1, 0), q(2, 15), "query.end_time"},
		"unaligned":  {q(1, 0), q(1, 10), "query.end_time"},
		"empty":      {q(1, 0), q(1, 0), "query.end_time"},
		"offset ok":  {time.Date(2026, 3, 29, 3, 0, 0, 0, time.FixedZone("CEST", 2*3600)), q(2, 0), ""},
		"odd offset": {time.Date(2026, 3, 29, 3, 0, 0, 0, time.FixedZone("X", 5*3600+600)), q(2, 0), "query.start_time query.end_time"},
	} {
		_, err := ReportWindow(c.from, c.to)
		if got := map[bool]string{true: "", false: fields(err)}[err == nil]; got != c.want {
			t.Errorf("report %s: got %q want %q", name, got, c.want)
		}
	}
}

func TestPowerAt(t *testing.T) {
	b := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	ev := func(d time.Duration, p *float64) Event { return Event{SetTime: b.Add(d), BESSPowerMW: p} }
	events := []Event{ev(-time.Minute, f64(9)), ev(10*time.Second, f64(2)), ev(5*time.Minute, nil), ev(7*time.Minute, f64(-3))}
	for _, c := range []struct {
		at, set time.Duration
		want    float64
	}{
		{0, 0, 0}, {9 * time.Second, 0, 0}, {10 * time.Second, 10 * time.Second, 2}, {4 * time.Minute, 10 * time.Second, 2},
		{5 * time.Minute, 5 * time.Minute, 0}, {6 * time.Minute, 5 * time.Minute, 0}, {14 * time.Minute, 7 * time.Minute, -3},
		{15 * time.Minute, 15 * time.Minute, 0}, {29 * time.Minute, 15 * time.Minute, 0},
	} {
		set, got := PowerAt(events, b.Add(c.at))
		if got != c.want || !set.Equal(b.Add(c.set)) {
			t.Errorf("at +%s: %v at %s, want %v at +%s", c.at, got, set, c.want, c.set)
		}
	}
}

// TestReported: the scheduled-dispatch read reports every event as
// bess_only with poc null; a passive event as a 0 MW target, so that a
// read schedule is a valid request again.
func TestReported(t *testing.T) {
	at := time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		mode      telemetry.ControlMode
		bess, poc *float64
		want      string
	}{
		{telemetry.BESSOnly, f64(-3), nil, "-3"},
		{telemetry.Passive, nil, nil, "0"},
		{telemetry.BESSAndPoC, f64(-2), f64(1), "-2"},
		{telemetry.PoCOnly, nil, f64(4), "nil"},
	} {
		r := Reported(Event{ControlMode: c.mode, BESSPowerMW: c.bess, PoCPowerMW: c.poc, SetTime: at, DeliveryTime: at})
		got := "nil"
		if r.BESSPowerMW != nil {
			got = fmt.Sprint(*r.BESSPowerMW)
		}
		if r.ControlMode != telemetry.BESSOnly || r.PoCPowerMW != nil || got != c.want || !r.SetTime.Equal(at) {
			t.Errorf("%s: %+v (bess %s), want bess %s", c.mode, r, got, c.want)
		}
	}
}

// TestOutcomeRequestedMW: the report's requested power is in the terms of
// the effective power the control loop reports (the point of connection
// in the PoC modes).
func TestOutcomeRequestedMW(t *testing.T) {
	for _, c := range []struct {
		mode      telemetry.ControlMode
		bess, poc *float64
		want      string
	}{
		{telemetry.BESSOnly, f64(-3), nil, "-3"},
		{telemetry.Passive, nil, nil, "0"},
		{telemetry.BESSAndPoC, f64(-2), f64(1), "1"},
		{telemetry.PoCOnly, nil, f64(4), "4"},
		{telemetry.BESSOnly, nil, nil, "nil"},
	} {
		got := "nil"
		if p := (Outcome{ControlMode: c.mode, RequestedPowerMW: c.bess, PoCPowerMW: c.poc}).RequestedMW(); p != nil {
			got = fmt.Sprint(*p)
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.mode, got, c.want)
		}
	}
}

// TestEventSetPowerMW: an event's power is read in the terms the control
// loop executes it, as the report's set_power_mw is.
func TestEventSetPowerMW(t *testing.T) {
	for _, c := range []struct {
		mode      telemetry.ControlMode
		bess, poc *float64
		want      float64
	}{
		{telemetry.BESSOnly, f64(-3), nil, -3},
		{telemetry.Passive, f64(2), nil, 0},
		{telemetry.BESSAndPoC, f64(-2), f64(1), 1},
		{telemetry.PoCOnly, nil, f64(4), 4},
		{telemetry.BESSOnly, nil, nil, 0},
	} {
		e := Event{ControlMode: c.mode, BESSPowerMW: c.bess, PoCPowerMW: c.poc}
		if got := e.SetPowerMW(); got != c.want {
			t.Errorf("%s: %v, want %v", c.mode, got, c.want)
		}
		if _, got := PowerAt([]Event{e}, e.SetTime); got != c.want {
			t.Errorf("PowerAt %s: %v, want %v", c.mode, got, c.want)
		}
	}
}
