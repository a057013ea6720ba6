package restrictionshttp_test

import (
	"testing"
	"time"

	"atcp/internal/store"
	"atcp/internal/testkit"
)

// expectInvalidAt checks a 422 naming exactly the field at loc.
func expectInvalidAt(t *testing.T, r *testkit.Response, loc string) {
	t.Helper()
	r.Expect(t, 422, "validation_failed")
	var p struct {
		Errors []struct {
			Location string `json:"location"`
		} `json:"errors"`
	}
	r.JSON(t, &p)
	if len(p.Errors) != 1 || p.Errors[0].Location != loc {
		t.Fatalf("want one error at %s: %s", loc, r.Body)
	}
}

// TestControlCharactersAreRefused: descriptions and notes may hold line
// breaks and tabs but no NUL or other control character, the asset filter
// no control character at all: 422 naming the field on both stores (a
// NUL was a 500 on PostgreSQL), and nothing is stored or changed.
func TestControlCharactersAreRefused(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		for _, bad := range []string{"inverter\x00swap", "\x1b]0;pwned\x07"} {
			expectInvalidAt(t, h.Do("POST", power, e.acme, map[string]any{"start_time": ts(time.Hour),
				"upper_limit_mw": 4, "reason": "maintenance", "reason_description": bad}), "body.reason_description")
			expectInvalidAt(t, h.Do("POST", requests, e.acme, map[string]any{"start_time": ts(time.Hour),
				"upper_limit_mw": 4, "reason": "maintenance", "reason_description": bad}), "body.reason_description")
		}
		if got := starts(t, h.Do("GET", power, e.acme, nil).Expect(t, 200, "")); len(got) != 0 {
			t.Fatalf("stored: %v", got)
		}
		for _, bad := range []string{"a1\x00", "a1\t"} {
			expectInvalidAt(t, h.Do("GET", q("/v1/restriction_requests", "asset_id", bad), e.acme, nil), "query.asset_id")
		}
		var list struct {
			Requests []request `json:"requests"`
		}
		h.Do("GET", "/v1/restriction_requests", e.acme, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Requests) != 0 {
			t.Fatalf("stored: %+v", list.Requests)
		}

		p := submit(t, e, e.acme, map[string]any{"start_time": ts(time.Hour), "upper_limit_mw": 4, "reason": "fault",
			"reason_description": "line one\r\n\tline two"})
		for _, bad := range []string{"no\x00", "no\u009b"} {
			expectInvalidAt(t, h.Do("POST", "/v1/restriction_requests/"+p.ID+"/reject", e.approver, map[string]any{"note": bad}), "body.note")
		}
		var got request
		h.Do("GET", "/v1/restriction_requests/"+p.ID, e.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if got.Status != "pending" {
			t.Fatalf("a refused decision changed the request: %+v", got)
		}
		h.Do("POST", "/v1/restriction_requests/"+p.ID+"/reject", e.approver, map[string]any{"note": "use\ta window\n"}).Expect(t, 200, "")
	})
}
