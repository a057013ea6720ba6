package restrictionshttp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type curtailmentList struct {
	Curtailments []struct {
		StartTime      time.Time  `json:"start_time"`
		EndTime        *time.Time `json:"end_time"`
		MaxCurtailment float64    `json:"max_curtailment"`
		MinCurtailment float64    `json:"min_curtailment"`
	} `json:"curtailments"`
}

func (l curtailmentList) starts() string {
	out := []string{}
	for _, c := range l.Curtailments {
		out = append(out, c.StartTime.Format("15:04"))
	}
	return fmt.Sprint(out)
}

// TestCurtailment lists curtailments the simulator opened and closed
// through the service's internal API.
func TestCurtailment(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h, ctx := e.h, context.Background()
		const path = "/v1/assets/a1/curtailment"
		// 06:00-07:00, 08:00-08:30, 09:00 ongoing.
		for _, w := range []struct{ open, close time.Duration }{{0, time.Hour}, {2 * time.Hour, 150 * time.Minute}, {3 * time.Hour, 0}} {
			e.at(testkit.Start.Add(w.open))
			if _, err := e.svc.OpenCurtailment(ctx, "a1", h.Clock.Now(), 4, 1); err != nil {
				t.Fatal(err)
			}
			if w.close == 0 {
				continue
			}
			e.at(testkit.Start.Add(w.close))
			if c, err := e.svc.CloseCurtailment(ctx, "a1", h.Clock.Now()); err != nil || c.End == nil {
				t.Fatal(c, err)
			}
		}
		if _, err := e.svc.OpenCurtailment(ctx, "a1", h.Clock.Now(), 1, 0); !errs.Is(err, errs.Conflict) {
			t.Fatalf("second ongoing curtailment: %v", err)
		}
		if _, err := e.svc.CloseCurtailment(ctx, "b1", h.Clock.Now()); !errs.Is(err, errs.NotFound) {
			t.Fatalf("closing none: %v", err)
		}
		if _, err := e.svc.OpenCurtailment(ctx, "nope", h.Clock.Now(), 1, 0); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown asset: %v", err)
		}
		e.at(testkit.Start.Add(4 * time.Hour))
		for _, c := range []struct {
			args []string
			want string
		}{
			{nil, "[06:00 08:00 09:00]"},
			{[]string{"sort_order", "desc"}, "[09:00 08:00 06:00]"},
			{[]string{"sort_by", "end_time", "sort_order", "desc"}, "[09:00 08:00 06:00]"},
			{[]string{"start_time", ts(time.Hour)}, "[08:00 09:00]"},                                   // ending exactly at the start filter
			{[]string{"end_time", ts(2 * time.Hour)}, "[06:00]"},                                       // starting exactly at the end filter
			{[]string{"start_time", ts(150 * time.Minute), "end_time", ts(24 * time.Hour)}, "[09:00]"}, // the ongoing one
		} {
			var l curtailmentList
			h.Do("GET", q(path, c.args...), e.acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
			if got := l.starts(); got != c.want {
				t.Errorf("%v: got %s want %s", c.args, got, c.want)
			}
		}
		var l curtailmentList
		h.Do("GET", path, e.acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if c := l.Curtailments[2]; c.EndTime != nil || c.MaxCurtailment != 4 || c.MinCurtailment != 1 {
			t.Fatalf("ongoing %+v", c)
		}
		h.Do("GET", q(path, "start_time", testkit.Start.Add(-31*24*time.Hour).Format(time.RFC3339)), e.acmeRO, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", q(path, "sort_by", "reason"), e.acmeRO, nil).Expect(t, 422, "")
		h.Do("GET", path, e.beta, nil).Expect(t, 404, "not_found")
		h.Do("GET", path, e.approver, nil).Expect(t, 403, "")
		h.Do("GET", path, "", nil).Expect(t, 401, "")
	})
}

// TestUTCAcrossDST: instants with any offset are stored and returned as
// UTC, and the clock change in Europe/Berlin (2026-03-29 01:00Z) makes no
// difference to the arithmetic.
func TestUTCAcrossDST(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.at(time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC))
		// 01:30 CET = 00:30Z until 04:00 CEST = 02:00Z: 90 minutes across the switch.
		r := e.h.Do("POST", power, e.acme, map[string]any{"start_time": "2026-03-29T01:30:00+01:00",
			"end_time": "2026-03-29T04:00:00+02:00", "upper_limit_mw": 0, "lower_limit_mw": 0, "reason": "other"}).Expect(t, 201, "")
		var l limitList
		r.JSON(t, &l)
		if got := l.Limits[0]; got.StartTime.Format(time.RFC3339) != "2026-03-29T00:30:00Z" || got.EndTime.Sub(got.StartTime) != 90*time.Minute {
			t.Fatalf("stored %s", r.Body)
		}
		if s := string(r.Body); !strings.Contains(s, `"start_time":"2026-03-29T00:30:00Z"`) {
			t.Fatalf("not UTC on the wire: %s", s)
		}
		e.h.Do("PATCH", q(power, "start_time", "2026-03-29T02:30:00+02:00"), e.acme, map[string]any{"new_end_time": "2026-03-29T03:30:00+02:00"}).Expect(t, 200, "")
		full, err := e.svc.FullyRestricted(context.Background(), "a1", time.Date(2026, 3, 29, 1, 29, 0, 0, time.UTC))
		if err != nil || !full {
			t.Fatalf("fully restricted before the new end: %v %v", full, err)
		}
		if full, _ := e.svc.FullyRestricted(context.Background(), "a1", time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)); full {
			t.Fatal("still restricted at the new end")
		}
	})
}
