package assetstate

import (
	"fmt"
	"testing"
	"time"

	"atcp/internal/dispatch"
	"atcp/internal/telemetry"
)

func ev(hhmmss string, mw float64) dispatch.Event {
	t, err := time.Parse(time.DateTime, "2026-03-29 "+hhmmss)
	if err != nil {
		panic(err)
	}
	return dispatch.Event{SetTime: t, DeliveryTime: t.Truncate(Block), BESSPowerMW: &mw}
}

func at(hhmm string) time.Time {
	t, _ := time.Parse(time.DateTime, "2026-03-29 "+hhmm+":00")
	return t
}

func steps(ps []SetPoint) string {
	out := ""
	for _, p := range ps {
		out += fmt.Sprintf("%s=%g ", p.SetTime.Format("15:04:05"), p.PowerMW)
	}
	return out
}

// TestScheduleSteps runs on the spring-forward day (01:00Z): UTC blocks
// carry on unaffected.
func TestScheduleSteps(t *testing.T) {
	poc := 3.0
	pocOnly := dispatch.Event{SetTime: at("10:30"), ControlMode: telemetry.PoCOnly, PoCPowerMW: &poc}
	passive := dispatch.Event{SetTime: at("10:45"), ControlMode: telemetry.Passive}
	tests := []struct {
		name       string
		events     []dispatch.Event
		start, end time.Time
		want       string
	}{
		{"nothing", nil, at("10:00"), at("11:00"), ""},
		{"one event resets at the next block", []dispatch.Event{ev("10:05:00", 5)}, at("10:00"), at("11:00"),
			"10:05:00=5 10:15:00=0 "},
		{"event at the next block start: no reset", []dispatch.Event{ev("10:05:00", 5), ev("10:15:00", 2)}, at("10:00"), at("11:00"),
			"10:05:00=5 10:15:00=2 10:30:00=0 "},
		{"next block has a later event: reset first", []dispatch.Event{ev("10:05:00", 5), ev("10:20:00", -4)}, at("10:00"), at("11:00"),
			"10:05:00=5 10:15:00=0 10:20:00=-4 10:30:00=0 "},
		{"several events in a block", []dispatch.Event{ev("10:00:00", 1), ev("10:07:30", 2), ev("10:14:59", 3)}, at("10:00"), at("10:30"),
			"10:00:00=1 10:07:30=2 10:14:59=3 10:15:00=0 "},
		{"event before the window resets inside it", []dispatch.Event{ev("09:50:00", 5)}, at("10:00"), at("11:00"),
			"10:00:00=0 "},
		{"mid-block start: earlier event of that block only resets later", []dispatch.Event{ev("10:01:00", 5)}, at("10:05"), at("10:40"),
			"10:15:00=0 "},
		{"reset at end excluded", []dispatch.Event{ev("10:05:00", 5)}, at("10:00"), at("10:15"), "10:05:00=5 "},
		{"event at end excluded", []dispatch.Event{ev("10:05:00", 5), ev("10:15:00", 1)}, at("10:00"), at("10:15"), "10:05:00=5 "},
		{"poc only and passive", []dispatch.Event{pocOnly, passive}, at("10:30"), at("11:00"), "10:30:00=3 10:45:00=0 "},
		{"across the clock change", []dispatch.Event{ev("00:50:00", 7), ev("01:05:00", 6)}, at("00:45"), at("01:30"),
			"00:50:00=7 01:00:00=0 01:05:00=6 01:15:00=0 "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := steps(ScheduleSteps(tc.events, tc.start, tc.end)); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := scheduleFrom(at("10:05")); !got.Equal(at("09:45")) {
		t.Fatalf("scheduleFrom = %v", got)
	}
}
