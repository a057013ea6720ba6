package restrictionshttp_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"atcp/internal/store"
	"atcp/internal/testkit"
)

type request struct {
	ID           string   `json:"id"`
	Status       string   `json:"status"`
	Kind         string   `json:"kind"`
	RequestedBy  string   `json:"requested_by"`
	DecidedBy    *string  `json:"decided_by"`
	DecisionNote *string  `json:"decision_note"`
	UpperMW      *float64 `json:"upper_limit_mw"`
	UpperMWh     *float64 `json:"upper_limit_mwh"`
}

const requests = "/v1/assets/a1/restriction_requests"

func submit(t *testing.T, e *env, token string, body map[string]any) request {
	t.Helper()
	var r request
	e.h.Do("POST", requests, token, body).Expect(t, 201, "").JSON(t, &r)
	if r.Status != "pending" {
		t.Fatalf("submitted %+v", r)
	}
	return r
}

func TestRestrictionRequests(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		// Default kind power_limit; requested_by filled.
		p := submit(t, e, e.acmeAssetOnly, map[string]any{"start_time": ts(time.Hour), "end_time": ts(2 * time.Hour),
			"upper_limit_mw": 0, "lower_limit_mw": 0, "reason": "grid_event"})
		if p.Kind != "power_limit" || p.RequestedBy != "test-acme" || p.UpperMW == nil || *p.UpperMW != 0 {
			t.Fatalf("request %+v", p)
		}
		en := submit(t, e, e.requester2, map[string]any{"start_time": ts(time.Hour), "kind": "energy_limit", "upper_limit_mwh": 5, "reason": "other"})
		un := submit(t, e, e.acmeAssetOnly, map[string]any{"start_time": ts(time.Hour), "end_time": ts(3 * time.Hour), "kind": "unavailability", "reason": "maintenance"})

		// Submission errors.
		h.Do("POST", requests, e.acmeRO, map[string]any{"start_time": ts(time.Hour), "reason": "other", "upper_limit_mw": 1}).Expect(t, 403, "")
		h.Do("POST", requests, "", nil).Expect(t, 401, "")
		h.Do("POST", "/v1/assets/b1/restriction_requests", e.acme, map[string]any{"start_time": ts(time.Hour), "reason": "other", "upper_limit_mw": 1}).Expect(t, 404, "")
		h.Do("POST", requests, e.acme, map[string]any{"start_time": ts(time.Hour), "reason": "other", "upper_limit_mwh": 1}).Expect(t, 422, "validation_failed")
		h.Do("POST", requests, e.acme, map[string]any{"start_time": ts(time.Hour), "reason": "other", "kind": "unavailability", "upper_limit_mw": 1}).Expect(t, 422, "")
		h.Do("POST", requests, e.acme, map[string]any{"start_time": ts(time.Hour), "reason": "other", "action": "delete", "upper_limit_mw": 1}).Expect(t, 422, "")
		h.Do("POST", requests, e.acme, map[string]any{"start_time": ts(time.Hour), "upper_limit_mw": 1}).Expect(t, 422, "")
		h.Do("POST", requests, e.acme, map[string]any{"start_time": ts(time.Hour), "reason": "other", "upper_limit_mw": 11}).Expect(t, 422, "")

		// Reads and filters.
		var list struct{ Requests []request }
		h.Do("GET", q("/v1/restriction_requests", "kind", "energy_limit"), e.acme, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Requests) != 1 || list.Requests[0].ID != en.ID {
			t.Fatalf("kind filter %+v", list)
		}
		h.Do("GET", q("/v1/restriction_requests", "asset_id", "a1", "status", "pending"), e.acme, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Requests) != 3 {
			t.Fatalf("status filter %+v", list)
		}
		h.Do("GET", "/v1/restriction_requests", e.beta, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Requests) != 0 {
			t.Fatalf("beta sees %+v", list)
		}
		h.Do("GET", q("/v1/restriction_requests", "status", "bogus"), e.acme, nil).Expect(t, 422, "")
		h.Do("GET", "/v1/restriction_requests", e.acmeAssetOnly, nil).Expect(t, 403, "")
		h.Do("GET", "/v1/restriction_requests", "", nil).Expect(t, 401, "")
		h.Do("GET", "/v1/restriction_requests/"+p.ID, e.acme, nil).Expect(t, 200, "")
		h.Do("GET", "/v1/restriction_requests/"+p.ID, e.beta, nil).Expect(t, 404, "not_found")
		h.Do("GET", "/v1/restriction_requests/not-a-uuid", e.acme, nil).Expect(t, 404, "not_found")
		h.Do("GET", "/v1/restriction_requests/"+p.ID, e.acmeRO, nil).Expect(t, 403, "")

		// Cancel: only the requester or a platform administrator.
		h.Do("POST", "/v1/restriction_requests/"+en.ID+"/cancel", e.acmeAssetOnly, map[string]any{"note": "mine?"}).Expect(t, 403, "not_requester")
		h.Do("POST", "/v1/restriction_requests/"+en.ID+"/cancel", e.acmeRO, nil).Expect(t, 403, "")
		var got request
		h.Do("POST", "/v1/restriction_requests/"+en.ID+"/cancel", e.requester2, map[string]any{"note": "not needed"}).Expect(t, 200, "").JSON(t, &got)
		if got.Status != "cancelled" || *got.DecidedBy != "someone-else" || *got.DecisionNote != "not needed" {
			t.Fatalf("cancelled %+v", got)
		}
		h.Do("POST", "/v1/restriction_requests/"+en.ID+"/approve", e.approver, nil).Expect(t, 409, "request_not_pending")

		// Reject needs restrictions.approve.
		h.Do("POST", "/v1/restriction_requests/"+un.ID+"/reject", e.acme, nil).Expect(t, 403, "")
		h.Do("POST", "/v1/restriction_requests/"+un.ID+"/reject", e.beta, nil).Expect(t, 404, "")
		h.Do("POST", "/v1/restriction_requests/"+un.ID+"/reject", e.approver, map[string]any{"note": "use a window"}).Expect(t, 200, "").JSON(t, &got)
		if got.Status != "rejected" || *got.DecidedBy != "approver" {
			t.Fatalf("rejected %+v", got)
		}
		h.Do("POST", "/v1/restriction_requests/"+un.ID+"/reject", e.approver, nil).Expect(t, 409, "request_not_pending")

		// Approve applies the power limit; the asset is then fully restricted inside the window.
		h.Do("POST", "/v1/restriction_requests/"+p.ID+"/approve", e.approver, map[string]any{"note": "ok"}).Expect(t, 200, "").JSON(t, &got)
		if got.Status != "approved" {
			t.Fatalf("approved %+v", got)
		}
		if n := len(starts(t, h.Do("GET", power, e.acme, nil).Expect(t, 200, ""))); n != 1 {
			t.Fatalf("approval applied %d limits", n)
		}
		for at, want := range map[time.Duration]bool{59 * time.Minute: false, time.Hour: true, 119 * time.Minute: true, 2 * time.Hour: false} {
			if full, err := e.svc.FullyRestricted(context.Background(), "a1", testkit.Start.Add(at)); err != nil || full != want {
				t.Errorf("FullyRestricted at +%s = %v, %v; want %v", at, full, err, want)
			}
		}

		// Approval re-validates: an overlapping request stays pending with the reason.
		clash := submit(t, e, e.acmeAssetOnly, map[string]any{"start_time": ts(3 * time.Hour), "upper_limit_mw": 1, "reason": "other"})
		h.Do("POST", power, e.acme, map[string]any{"start_time": ts(150 * time.Minute), "upper_limit_mw": 2, "reason": "other"}).Expect(t, 201, "")
		h.Do("POST", "/v1/restriction_requests/"+clash.ID+"/approve", e.approver, nil).Expect(t, 409, "overlapping_interval")
		h.Do("GET", "/v1/restriction_requests/"+clash.ID, e.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if got.Status != "pending" || got.DecidedBy != nil {
			t.Fatalf("after failed approval %+v", got)
		}

		// Expiry: a pending request whose window has passed reads expired and cannot be decided.
		short := submit(t, e, e.acmeAssetOnly, map[string]any{"start_time": ts(4 * time.Hour), "end_time": ts(5 * time.Hour), "kind": "unavailability", "reason": "other"})
		e.at(testkit.Start.Add(5 * time.Hour))
		h.Do("GET", "/v1/restriction_requests/"+short.ID, e.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if got.Status != "expired" {
			t.Fatalf("lapsed %+v", got)
		}
		h.Do("GET", q("/v1/restriction_requests", "status", "expired"), e.acme, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Requests) != 2 { // short, and the open-ended clash whose start passed
			t.Fatalf("expired list %+v", list)
		}
		h.Do("POST", "/v1/restriction_requests/"+short.ID+"/approve", e.approver, nil).Expect(t, 409, "request_expired")
		h.Do("POST", "/v1/restriction_requests/"+short.ID+"/cancel", e.acmeAssetOnly, nil).Expect(t, 409, "request_not_pending")
	})
}

// TestApprovalRacesCancel: exactly one of a concurrent approve and cancel wins.
func TestApprovalRacesCancel(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		for i := range 10 {
			r := submit(t, e, e.acmeAssetOnly, map[string]any{"start_time": ts(time.Duration(i+1) * time.Hour),
				"end_time": ts(time.Duration(i+1)*time.Hour + 30*time.Minute), "upper_limit_mw": 1, "reason": "other"})
			var wg sync.WaitGroup
			statuses := make([]int, 2)
			for j, call := range []struct{ action, token string }{{"approve", e.approver}, {"cancel", e.acmeAssetOnly}} {
				wg.Go(func() {
					statuses[j] = e.h.Do("POST", "/v1/restriction_requests/"+r.ID+"/"+call.action, call.token, nil).Status
				})
			}
			wg.Wait()
			if (statuses[0] == 200) == (statuses[1] == 200) || statuses[0]+statuses[1] != 200+409 {
				t.Fatalf("approve %d, cancel %d", statuses[0], statuses[1])
			}
			var got request
			e.h.Do("GET", "/v1/restriction_requests/"+r.ID, e.acme, nil).Expect(t, 200, "").JSON(t, &got)
			applied := len(starts(t, e.h.Do("GET", q(power, "start_time", ts(time.Duration(i+1)*time.Hour), "end_time", ts(time.Duration(i+1)*time.Hour+time.Minute)), e.acme, nil).Expect(t, 200, "")))
			if (got.Status == "approved") != (applied == 1) || (statuses[0] == 200) != (got.Status == "approved") {
				t.Fatalf("status %s with %d limits applied (approve %d)", got.Status, applied, statuses[0])
			}
		}
	})
}
