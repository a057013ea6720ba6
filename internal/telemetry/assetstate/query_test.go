package assetstate

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

var now = time.Date(2026, 3, 29, 12, 0, 0, 0, time.UTC)

// fields returns "location=value" of each field error of err.
func fields(err error) []string {
	var e *errs.Error
	if !errors.As(err, &e) {
		return nil
	}
	out := []string{}
	for _, f := range e.Fields {
		out = append(out, fmt.Sprintf("%s=%v", f.Location, f.Value))
	}
	return out
}

func TestHistoryQueryValidate(t *testing.T) {
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	tests := []struct {
		name      string
		q         HistoryQuery
		wantNames []string
		wantErr   []string
	}{
		{"five minutes raw", HistoryQuery{Start: ago(5 * time.Minute), End: now}, nil, nil},
		{"raw too long", HistoryQuery{Start: ago(5*time.Minute + time.Second), End: now}, nil, []string{"query.end_time=2026-03-29T12:00:00Z"}},
		{"downsampled day", HistoryQuery{Start: ago(24 * time.Hour), End: now, Downsample: true}, nil, nil},
		{"downsampled 30 days", HistoryQuery{Start: ago(HistoryReach), End: now, Downsample: true}, nil, nil},
		{"older than 30 days", HistoryQuery{Start: ago(HistoryReach + time.Second), End: ago(HistoryReach - time.Minute), Downsample: true},
			nil, []string{"query.start_time=2026-02-27T11:59:59Z"}},
		{"downsampled too long", HistoryQuery{Start: ago(time.Hour), End: now.Add(HistoryReach), Downsample: true}, nil, []string{"query.end_time=2026-04-28T12:00:00Z"}},
		{"future window", HistoryQuery{Start: now, End: now.Add(time.Minute)}, nil, nil},
		{"end before start", HistoryQuery{Start: now, End: ago(time.Minute)}, nil, []string{"query.end_time=2026-03-29T11:59:00Z"}},
		{"empty window", HistoryQuery{Start: now, End: now}, nil, []string{"query.end_time=2026-03-29T12:00:00Z"}},
		{"missing bounds", HistoryQuery{}, nil, []string{"query.start_time=<nil>", "query.end_time=<nil>"}},
		{"names repeated and comma-separated", HistoryQuery{Start: ago(time.Minute), End: now,
			PointNames: []string{"soc_max, frequency", "available_soc_charge", "frequency,,"}},
			[]string{"soc_max", "frequency", "available_soc_charge"}, nil},
		{"unknown names", HistoryQuery{Start: ago(time.Minute), End: now, PointNames: []string{"soc_max,soc", "power"}},
			nil, []string{"query.point_names=soc", "query.point_names=power"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			names, err := tc.q.Validate(now)
			if got := fields(err); !slices.Equal(got, tc.wantErr) {
				t.Fatalf("errors %v, want %v (%v)", got, tc.wantErr, err)
			}
			if err == nil && !slices.Equal(names, tc.wantNames) {
				t.Fatalf("names %v, want %v", names, tc.wantNames)
			}
		})
	}
}

func TestPlannedWindow(t *testing.T) {
	tests := []struct {
		name       string
		start, end time.Time
		wantErr    []string
	}{
		{"a day ahead", now, now.Add(24 * time.Hour), nil},
		{"eight days", now, now.Add(PlannedWindow), nil},
		{"longer", now, now.Add(PlannedWindow + time.Second), []string{"query.end_time=2026-04-06T12:00:01Z"}},
		{"30 days back", now.Add(-HistoryReach), now.Add(-HistoryReach + time.Hour), nil},
		{"older", now.Add(-HistoryReach - time.Minute), now, []string{"query.start_time=2026-02-27T11:59:00Z", "query.end_time=2026-03-29T12:00:00Z"}},
		{"reversed", now, now.Add(-time.Hour), []string{"query.end_time=2026-03-29T11:00:00Z"}},
		{"missing end", now, time.Time{}, []string{"query.end_time=<nil>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fields(checkPlannedWindow(tc.start, tc.end, now)); !slices.Equal(got, tc.wantErr) {
				t.Fatalf("errors %v, want %v", got, tc.wantErr)
			}
		})
	}
}

// TestPlannedWindowReachesEveryBid: from the instant a delivery day's
// capacity auctions open (aFRR at D-7 10:00 local, the earlier of the
// two), one planned-state window reaches the end of that day, the
// clock-change days included.
func TestPlannedWindowReachesEveryBid(t *testing.T) {
	for _, day := range []string{"2026-02-01", "2026-03-29", "2026-03-30", "2026-10-25", "2026-10-26", "2026-06-15"} {
		t.Run(day, func(t *testing.T) {
			d, err := calendar.ParseDay(day)
			if err != nil {
				t.Fatal(err)
			}
			for _, opens := range []time.Time{calendar.AFRRCapacityWindow(d).Opens, calendar.FCRWindow(d).Opens} {
				if err := checkPlannedWindow(opens, d.Span().End, opens); err != nil {
					t.Fatalf("from %s to %s: %v", opens, d.Span().End, err)
				}
			}
		})
	}
}
