package assetstate

import (
	"fmt"
	"strings"
	"time"

	"atcp/internal/errs"
	"atcp/internal/telemetry"
)

// The reading limits of document 1 ("Limits": state history window, bid
// history) and the planned-state window atcp chooses.
const (
	// HistoryReach is how far back state history and planned state
	// reach: a start_time older than now minus HistoryReach is refused.
	HistoryReach = 30 * 24 * time.Hour
	// RawWindow is the longest state-history window without downsampling.
	RawWindow = 5 * time.Minute
	// DownsampledWindow is the longest downsampled state-history window:
	// everything that is kept.
	DownsampledWindow = HistoryReach
	// DownsampledPoints is about how many points per measurement a
	// downsampled history returns.
	DownsampledPoints = 200
	// PlannedWindow is the longest planned-state window: one window from
	// now reaches everything that can be planned (schedules reach the end
	// of the next UTC day; a capacity bid placed when its market opens, at
	// D-7 10:00 local, ends with delivery day D, up to 7 days 15 hours
	// ahead across a clock change) without unbounded responses.
	PlannedWindow = 8 * 24 * time.Hour
)

// checkWindow validates a required [start, end) query window: both given,
// start before end, end-start at most max, start not before now-reach.
// what names the limit in the message.
func checkWindow(v *errs.Validation, start, end, now time.Time, max time.Duration, what string) {
	if start.IsZero() {
		v.Add("query.start_time", "is required", nil)
	}
	if end.IsZero() {
		v.Add("query.end_time", "is required", nil)
	}
	if start.IsZero() || end.IsZero() {
		return
	}
	if oldest := now.Add(-HistoryReach); start.Before(oldest) {
		v.Add("query.start_time", fmt.Sprintf("reaches back at most 30 days (to %s)", oldest.UTC().Format(time.RFC3339)), start.UTC().Format(time.RFC3339Nano))
	}
	switch {
	case !end.After(start):
		v.Add("query.end_time", "must be after start_time", end.UTC().Format(time.RFC3339Nano))
	case end.Sub(start) > max:
		v.Add("query.end_time", what, end.UTC().Format(time.RFC3339Nano))
	}
}

// HistoryQuery is a state-history request.
type HistoryQuery struct {
	Start, End time.Time
	// Downsample allows windows up to DownsampledWindow, aggregated to
	// about DownsampledPoints points per measurement.
	Downsample bool
	// PointNames are measurement names, canonical or deprecated alias,
	// each entry possibly a comma-separated list; empty means all.
	PointNames []string
}

// Validate checks q at now (422 naming each offending parameter) and
// returns the requested measurement names, split, trimmed and without
// repeats, in the order given.
func (q HistoryQuery) Validate(now time.Time) ([]string, error) {
	var v errs.Validation
	if q.Downsample {
		checkWindow(&v, q.Start, q.End, now, DownsampledWindow, "with do_downsample the window is at most 30 days")
	} else {
		checkWindow(&v, q.Start, q.End, now, RawWindow, "without do_downsample the window is at most 5 minutes")
	}
	names := ParsePointNames(&v, q.PointNames)
	return names, v.Err()
}

// ParsePointNames splits the point_names parameter (repeated and/or
// comma-separated), checks every name against the measurements of
// document 1 and its deprecated aliases (an unknown one is reported at
// query.point_names with its value) and drops repeats.
func ParsePointNames(v *errs.Validation, params []string) []string {
	var names []string
	seen := map[string]bool{}
	for _, p := range params {
		for name := range strings.SplitSeq(p, ",") {
			name = strings.TrimSpace(name)
			if name == "" || seen[name] {
				continue
			}
			seen[name] = true
			if _, ok := telemetry.PointIndex(name); !ok {
				v.Add("query.point_names", "unknown measurement name", name)
				continue
			}
			names = append(names, name)
		}
	}
	return names
}

// checkPlannedWindow validates a planned-state window at now.
func checkPlannedWindow(start, end, now time.Time) error {
	var v errs.Validation
	checkWindow(&v, start, end, now, PlannedWindow, "the window is at most 8 days")
	return v.Err()
}
