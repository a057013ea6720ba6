package alarmshttp_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"atcp/internal/alarms"
	"atcp/internal/alarms/alarmshttp"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type env struct {
	h   *testkit.Harness
	svc *alarms.Service
	// Tokens: platform administrator; acme reader and writer; acme reader
	// only; acme without alarm scopes; beta writer; an acme person.
	admin, acme, acmeRO, acmeNone, beta, person string
	// alarm ids of a1:TELEMETRY-001 (open) and a1:GRID-001 (resolved)
	telemetry, grid string
}

// setup serves the alarm endpoints with acme's a1 and a2 and beta's b1;
// a1's TELEMETRY-001 is open, its GRID-001 opened and resolved, b1's
// TELEMETRY-001 open.
func setup(t *testing.T, b store.Backend) *env {
	t.Helper()
	h := testkit.NewHarness(t, b)
	ctx := context.Background()
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for id, name := range map[string]string{"acme": "Acme Storage", "beta": "Beta Energie"} {
		if err := dir.EnsureOrganization(ctx, id, name); err != nil {
			t.Fatal(err)
		}
	}
	as := assets.NewService(b.Assets(), h.Clock)
	for _, x := range []struct{ id, org string }{{"a1", "acme"}, {"a2", "acme"}, {"b1", "beta"}} {
		if err := as.EnsureAsset(ctx, assets.NewAsset(x.id, x.org, "Battery "+x.id, "Kiel", assets.Standalone)); err != nil {
			t.Fatal(err)
		}
	}
	svc := alarms.NewService(b.Alarms(), as, h.Clock)
	alarmshttp.Register(h.Server, svc)
	e := &env{h: h, svc: svc}
	e.admin = h.AdminToken()
	e.acme = h.TokenFor("acme", auth.AlarmRead, auth.AlarmWrite)
	e.acmeRO = h.TokenFor("acme", auth.AlarmRead)
	e.acmeNone = h.TokenFor("acme", auth.AssetRead, auth.AssetWrite)
	e.beta = h.TokenFor("beta", auth.AlarmRead, auth.AlarmWrite)
	e.person = h.Token(auth.Principal{Subject: "u-1", OrganizationID: "acme", Email: "op@acme.example",
		Scopes: auth.NewScopeSet(auth.AlarmRead, auth.AlarmWrite)})

	open := func(asset, org, rule string, at time.Time) string {
		r, _ := alarms.RuleByID(rule)
		key := alarms.Key{AssetID: asset, RuleID: rule}
		events, err := b.Alarms().Apply(ctx, alarms.Batch{Updates: []alarms.Update{{Key: key, Visibility: auth.Visibility{All: true},
			Decide: alarms.DecideOpen(alarms.Opening{Rule: r, Key: key, OrganizationID: org, At: at, AlarmID: alarms.NewAlarmID(at),
				Evidence: alarms.Evidence{Facts: []string{"a fact"}, SustainedSeconds: 10}})}}})
		if err != nil || len(events) != 1 {
			t.Fatal(events, err)
		}
		return events[0].AlarmID
	}
	t0 := testkit.Start
	e.telemetry = open("a1", "acme", alarms.RuleTelemetry, t0.Add(-time.Hour))
	e.grid = open("a1", "acme", alarms.RuleGrid, t0.Add(-50*time.Minute))
	key := alarms.Key{AssetID: "a1", RuleID: alarms.RuleGrid}
	if _, err := b.Alarms().Apply(ctx, alarms.Batch{Updates: []alarms.Update{{Key: key, Visibility: auth.Visibility{All: true},
		Decide: alarms.DecideResolve(e.grid, "cleared", alarms.Evidence{}, t0.Add(-40*time.Minute))}}}); err != nil {
		t.Fatal(err)
	}
	open("b1", "beta", alarms.RuleTelemetry, t0.Add(-30*time.Minute))
	return e
}

func window(extra ...string) string {
	q := url.Values{"start_time": {testkit.Start.Add(-2 * time.Hour).Format(time.RFC3339)},
		"end_time": {testkit.Start.Add(6 * time.Hour).Format(time.RFC3339)}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Add(extra[i], extra[i+1])
	}
	return q.Encode()
}

type eventList struct {
	Alarms []struct {
		EventID        int64   `json:"event_id"`
		EventType      string  `json:"event_type"`
		AlarmID        string  `json:"alarm_id"`
		AlarmKey       string  `json:"alarm_key"`
		OrganizationID string  `json:"organization_id"`
		Severity       string  `json:"severity"`
		DatePartition  string  `json:"date_partition"`
		Acknowledged   bool    `json:"acknowledged"`
		Muted          bool    `json:"muted"`
		UserEmail      *string `json:"user_email"`
		Notes          *string `json:"notes"`
		Evidence       struct {
			Facts []string `json:"facts"`
		} `json:"evidence"`
	} `json:"alarms"`
	Total  int `json:"total"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

type activeList struct {
	Alarms []struct {
		AlarmID        string  `json:"alarm_id"`
		AlarmKey       string  `json:"alarm_key"`
		RuleName       string  `json:"rule_name"`
		Acknowledged   bool    `json:"acknowledged"`
		AcknowledgedBy *string `json:"acknowledged_by"`
		Notes          *string `json:"notes"`
		Muted          bool    `json:"muted"`
		MuteReason     *string `json:"mute_reason"`
	} `json:"alarms"`
	Total int `json:"total"`
}

func TestAlarmRules(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	var c struct {
		CatalogVersion string    `json:"catalog_version"`
		GeneratedAt    time.Time `json:"generated_at"`
		RuleCount      int       `json:"rule_count"`
		Rules          []struct {
			RuleID         string `json:"rule_id"`
			Severity       string `json:"severity"`
			SustainSeconds int    `json:"sustain_seconds"`
			ClearSeconds   int    `json:"clear_seconds"`
			Pages          bool   `json:"pages"`
		} `json:"rules"`
	}
	e.h.Do(http.MethodGet, "/v1/alarm-rules", e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &c)
	if c.CatalogVersion != alarms.CatalogVersion || c.RuleCount != 9 || len(c.Rules) != 9 || !c.GeneratedAt.Equal(testkit.Start) ||
		c.Rules[0].RuleID != "TELEMETRY-001" || c.Rules[0].SustainSeconds != 10 || !c.Rules[0].Pages {
		t.Fatalf("%+v", c)
	}
	e.h.Do(http.MethodGet, "/v1/alarm-rules", e.acmeNone, nil).Expect(t, http.StatusForbidden, "")
	e.h.Do(http.MethodGet, "/v1/alarm-rules", "", nil).Expect(t, http.StatusUnauthorized, "")
}

func TestAlarmHistory(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		var l eventList
		// A caller of one organisation: its own, newest first.
		h.Do(http.MethodGet, "/v1/alarms?"+window(), e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
		if l.Total != 3 || len(l.Alarms) != 3 || l.Limit != 100 || l.Offset != 0 || l.Alarms[0].EventType != "alarm.resolved" ||
			l.Alarms[2].AlarmKey != "a1:TELEMETRY-001" || l.Alarms[2].DatePartition != "2026-02-01" || l.Alarms[2].Evidence.Facts[0] != "a fact" {
			t.Fatalf("%+v", l)
		}
		for _, a := range l.Alarms {
			if a.OrganizationID != "acme" {
				t.Fatalf("another organisation's event: %+v", a)
			}
		}
		h.Do(http.MethodGet, "/v1/alarms?"+window("organization_id", "acme", "severity", "CRITICAL", "limit", "1"), e.acmeRO, nil).
			Expect(t, http.StatusOK, "").JSON(t, &l)
		if l.Total != 2 || len(l.Alarms) != 1 || l.Alarms[0].Severity != "CRITICAL" || l.Alarms[0].EventType != "alarm.resolved" {
			t.Fatalf("critical: %+v", l)
		}
		h.Do(http.MethodGet, "/v1/alarms?"+window("event_type", "alarm.opened", "severity", "MAJOR", "severity", "CRITICAL", "offset", "1"), e.acmeRO, nil).
			Expect(t, http.StatusOK, "").JSON(t, &l)
		if l.Total != 2 || len(l.Alarms) != 1 || l.Offset != 1 || l.Alarms[0].EventType != "alarm.opened" || l.Alarms[0].AlarmID != e.telemetry {
			t.Fatalf("opened, second page: %+v", l)
		}
		// Platform administrators name the organisation.
		h.Do(http.MethodGet, "/v1/alarms?"+window(), e.admin, nil).Expect(t, http.StatusUnprocessableEntity, "")
		h.Do(http.MethodGet, "/v1/alarms?"+window("organization_id", "beta"), e.admin, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
		if l.Total != 1 || l.Alarms[0].AlarmKey != "b1:TELEMETRY-001" {
			t.Fatalf("beta for an administrator: %+v", l)
		}
		h.Do(http.MethodGet, "/v1/alarms?"+window("organization_id", "beta"), e.acmeRO, nil).Expect(t, http.StatusForbidden, "organization_not_permitted")
		// Validation.
		for _, q := range []string{
			"start_time=2026-02-01T00:00:00Z", window("limit", "1001"), window("limit", "0"), window("offset", "-1"),
			window("severity", "LOW"), window("event_type", "alarm.closed"),
			"start_time=2026-02-01T10:00:00Z&end_time=2026-02-01T10:00:00Z",
		} {
			h.Do(http.MethodGet, "/v1/alarms?"+q, e.acmeRO, nil).Expect(t, http.StatusUnprocessableEntity, "")
		}
		h.Do(http.MethodGet, "/v1/alarms?"+window(), e.acmeNone, nil).Expect(t, http.StatusForbidden, "")

		// Per asset; another organisation's asset is 404.
		h.Do(http.MethodGet, "/v1/assets/a1/alarms?"+window("event_type", "alarm.opened"), e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
		if l.Total != 2 {
			t.Fatalf("a1: %+v", l)
		}
		h.Do(http.MethodGet, "/v1/assets/a2/alarms?"+window(), e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
		if l.Total != 0 || l.Alarms == nil {
			t.Fatalf("a2: %+v", l)
		}
		h.Do(http.MethodGet, "/v1/assets/b1/alarms?"+window(), e.acmeRO, nil).Expect(t, http.StatusNotFound, "")
		h.Do(http.MethodGet, "/v1/assets/nope/alarms?"+window(), e.acmeRO, nil).Expect(t, http.StatusNotFound, "")
		h.Do(http.MethodGet, "/v1/assets/a1/alarms?"+window("limit", "5000"), e.acmeRO, nil).Expect(t, http.StatusUnprocessableEntity, "")
		h.Do(http.MethodGet, "/v1/assets/a1/alarms?"+window(), e.acmeNone, nil).Expect(t, http.StatusForbidden, "")
	})
}

func TestActiveAlarms(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.h
	var l activeList
	acmeActive := "/v1/organizations/acme/alarms/active"
	h.Do(http.MethodGet, acmeActive, e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
	if l.Total != 1 || l.Alarms[0].AlarmKey != "a1:TELEMETRY-001" || l.Alarms[0].AlarmID != e.telemetry || l.Alarms[0].RuleName != "Stale telemetry" {
		t.Fatalf("%+v", l)
	}
	h.Do(http.MethodGet, "/v1/organizations/beta/alarms/active", e.admin, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
	if l.Total != 1 || l.Alarms[0].AlarmKey != "b1:TELEMETRY-001" {
		t.Fatalf("beta: %+v", l)
	}
	h.Do(http.MethodGet, "/v1/organizations/beta/alarms/active", e.acmeRO, nil).Expect(t, http.StatusNotFound, "not_found")
	h.Do(http.MethodGet, acmeActive, e.acmeNone, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
	h.Do(http.MethodGet, acmeActive+"?severity=CRITICAL", e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
	if l.Total != 0 || l.Alarms == nil {
		t.Fatalf("critical: %+v", l)
	}
	h.Do(http.MethodGet, acmeActive+"?limit=1001", e.acmeRO, nil).Expect(t, http.StatusUnprocessableEntity, "")
	h.Do(http.MethodGet, "/v1/assets/a1/alarms/active", e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
	if l.Total != 1 {
		t.Fatalf("a1: %+v", l)
	}
	h.Do(http.MethodGet, "/v1/assets/b1/alarms/active", e.acmeRO, nil).Expect(t, http.StatusNotFound, "")
	h.Do(http.MethodGet, "/v1/assets/a1/alarms/active", e.acmeNone, nil).Expect(t, http.StatusForbidden, "")
}

func TestAcknowledge(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		path := "/v1/alarms/a1:TELEMETRY-001/acknowledge"
		h.Clock.Advance(time.Minute)
		var ack struct {
			EventID        int64     `json:"event_id"`
			AlarmKey       string    `json:"alarm_key"`
			AlarmID        string    `json:"alarm_id"`
			Acknowledged   bool      `json:"acknowledged"`
			AcknowledgedBy string    `json:"acknowledged_by"`
			AcknowledgedAt time.Time `json:"acknowledged_at"`
		}
		h.Do(http.MethodPut, path, e.acmeRO, `{}`).Expect(t, http.StatusForbidden, "")
		h.Do(http.MethodPut, path, e.person, `{"alarm_id":"`+e.grid+`"}`).Expect(t, http.StatusConflict, "alarm_id_mismatch")
		h.Do(http.MethodPut, path, e.person, `{"notes":"`+strings.Repeat("x", 2001)+`"}`).Expect(t, http.StatusUnprocessableEntity, "")
		h.Do(http.MethodPut, path, e.person, `{"notes":"Gateway restarting","alarm_id":"`+e.telemetry+`"}`).Expect(t, http.StatusOK, "").JSON(t, &ack)
		if ack.EventID == 0 || ack.AlarmKey != "a1:TELEMETRY-001" || ack.AlarmID != e.telemetry || !ack.Acknowledged ||
			ack.AcknowledgedBy != "op@acme.example" || !ack.AcknowledgedAt.Equal(testkit.Start.Add(time.Minute)) {
			t.Fatalf("%+v", ack)
		}
		first := ack
		// Again (a retry, or another operator): the first acknowledgement.
		h.Clock.Advance(time.Minute)
		h.Do(http.MethodPut, path, e.acme, nil).Expect(t, http.StatusOK, "").JSON(t, &ack)
		if ack != first {
			t.Fatalf("repeated: %+v, want %+v", ack, first)
		}
		// Later reads show it.
		var l activeList
		h.Do(http.MethodGet, "/v1/organizations/acme/alarms/active", e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
		if !l.Alarms[0].Acknowledged || *l.Alarms[0].AcknowledgedBy != "op@acme.example" || *l.Alarms[0].Notes != "Gateway restarting" {
			t.Fatalf("active: %+v", l)
		}
		var events eventList
		h.Do(http.MethodGet, "/v1/alarms?"+window("event_type", "alarm.acknowledged"), e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &events)
		if events.Total != 1 || events.Alarms[0].EventID != first.EventID || !events.Alarms[0].Acknowledged ||
			*events.Alarms[0].UserEmail != "op@acme.example" || *events.Alarms[0].Notes != "Gateway restarting" {
			t.Fatalf("history: %+v", events)
		}

		// No open alarm: resolved, never opened.
		h.Do(http.MethodPut, "/v1/alarms/a1:GRID-001/acknowledge", e.acme, `{}`).Expect(t, http.StatusConflict, "alarm_not_open")
		h.Do(http.MethodPut, "/v1/alarms/a2:GRID-001/acknowledge", e.acme, `{}`).Expect(t, http.StatusConflict, "alarm_not_open")
		// Unknown or invisible: 404.
		for _, key := range []string{"b1:TELEMETRY-001", "a1:NOPE-001", "nope:GRID-001", "a1", "a1:GRID-001:x"} {
			h.Do(http.MethodPut, "/v1/alarms/"+key+"/acknowledge", e.acme, `{}`).Expect(t, http.StatusNotFound, "")
		}
		h.Do(http.MethodPut, "/v1/alarms/a1:TELEMETRY-001/acknowledge", e.beta, `{}`).Expect(t, http.StatusNotFound, "")
		h.Do(http.MethodPut, "/v1/alarms/b1:TELEMETRY-001/acknowledge", e.admin, `{}`).Expect(t, http.StatusOK, "")
	})
}

func TestMuteAndUnmute(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		path := "/v1/alarms/a1:TELEMETRY-001/"
		var muted struct {
			EventID       int64     `json:"event_id"`
			AlarmID       string    `json:"alarm_id"`
			Muted         bool      `json:"muted"`
			MuteReason    string    `json:"mute_reason"`
			MuteExpiresAt time.Time `json:"mute_expires_at"`
			MutedBy       string    `json:"muted_by"`
			MutedAt       time.Time `json:"muted_at"`
		}
		for _, body := range []string{`{"duration_seconds":60}`, `{"reason":"","duration_seconds":60}`, `{"reason":"x"}`,
			`{"reason":"x","duration_seconds":60,"expires_at":"2026-02-01T07:00:00Z"}`, `{"reason":"x","duration_seconds":604801}`,
			`{"reason":"x","expires_at":"2026-02-09T06:00:01Z"}`, `{"reason":"x","expires_at":"2026-02-01T05:59:59Z"}`} {
			h.Do(http.MethodPut, path+"mute", e.acme, body).Expect(t, http.StatusUnprocessableEntity, "")
		}
		h.Do(http.MethodPut, path+"mute", e.acmeRO, `{"reason":"x","duration_seconds":60}`).Expect(t, http.StatusForbidden, "")
		h.Do(http.MethodPut, path+"mute", e.beta, `{"reason":"x","duration_seconds":60}`).Expect(t, http.StatusNotFound, "")
		h.Do(http.MethodPut, path+"mute", e.acme, `{"reason":"x","duration_seconds":60,"alarm_id":"`+e.grid+`"}`).
			Expect(t, http.StatusConflict, "alarm_id_mismatch")
		h.Do(http.MethodPut, "/v1/alarms/a2:GRID-001/mute", e.acme, `{"reason":"x","duration_seconds":60}`).
			Expect(t, http.StatusConflict, "alarm_never_opened")
		h.Do(http.MethodPut, path+"unmute", e.acme, `{}`).Expect(t, http.StatusConflict, "alarm_not_muted")

		h.Do(http.MethodPut, path+"mute", e.person, `{"reason":"Gateway swap","duration_seconds":7200,"alarm_id":"`+e.telemetry+`"}`).
			Expect(t, http.StatusOK, "").JSON(t, &muted)
		if muted.EventID == 0 || muted.AlarmID != e.telemetry || !muted.Muted || muted.MuteReason != "Gateway swap" ||
			!muted.MuteExpiresAt.Equal(testkit.Start.Add(2*time.Hour)) || muted.MutedBy != "op@acme.example" || !muted.MutedAt.Equal(testkit.Start) {
			t.Fatalf("%+v", muted)
		}
		// A resolved key can be muted too (a noisy, flapping rule).
		h.Do(http.MethodPut, "/v1/alarms/a1:GRID-001/mute", e.acme, `{"reason":"flapping","expires_at":"2026-02-01T08:00:00Z"}`).
			Expect(t, http.StatusOK, "")
		var l activeList
		h.Do(http.MethodGet, "/v1/assets/a1/alarms/active", e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
		if !l.Alarms[0].Muted || *l.Alarms[0].MuteReason != "Gateway swap" {
			t.Fatalf("active: %+v", l)
		}

		var un struct {
			EventID   int64     `json:"event_id"`
			Muted     bool      `json:"muted"`
			UnmutedBy string    `json:"unmuted_by"`
			UnmutedAt time.Time `json:"unmuted_at"`
		}
		h.Clock.Advance(time.Hour)
		h.Do(http.MethodPut, path+"unmute", e.beta, `{}`).Expect(t, http.StatusNotFound, "")
		h.Do(http.MethodPut, path+"unmute", e.acme, `{"notes":"back"}`).Expect(t, http.StatusOK, "").JSON(t, &un)
		if un.EventID <= muted.EventID || un.Muted || un.UnmutedBy != "test-acme" || !un.UnmutedAt.Equal(testkit.Start.Add(time.Hour)) {
			t.Fatalf("%+v", un)
		}
		h.Do(http.MethodPut, path+"unmute", e.acme, nil).Expect(t, http.StatusConflict, "alarm_not_muted")
		// The GRID-001 mute ended at 08:00 by itself: reads show it lifted.
		h.Clock.Advance(2 * time.Hour)
		h.Do(http.MethodPut, "/v1/alarms/a1:GRID-001/unmute", e.acme, nil).Expect(t, http.StatusConflict, "alarm_not_muted")

		var events eventList
		h.Do(http.MethodGet, "/v1/alarms?"+window("event_type", "alarm.muted", "event_type", "alarm.unmuted"), e.acmeRO, nil).
			Expect(t, http.StatusOK, "").JSON(t, &events)
		if events.Total != 3 || events.Alarms[0].EventType != "alarm.unmuted" || events.Alarms[0].Muted || *events.Alarms[0].Notes != "back" {
			t.Fatalf("history: %+v", events)
		}
	})
}

func TestOrganizationHistory(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.h
	var byQuery, byPath eventList
	h.Do(http.MethodGet, "/v1/alarms?"+window(), e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &byQuery)
	h.Do(http.MethodGet, "/v1/organizations/acme/alarms?"+window(), e.acmeRO, nil).Expect(t, http.StatusOK, "").JSON(t, &byPath)
	if byPath.Total == 0 || byPath.Total != byQuery.Total || byPath.Alarms[0].EventID != byQuery.Alarms[0].EventID {
		t.Fatalf("by path %+v, by query %+v", byPath, byQuery)
	}
	h.Do(http.MethodGet, "/v1/organizations/beta/alarms?"+window(), e.admin, nil).Expect(t, http.StatusOK, "").JSON(t, &byPath)
	if byPath.Total != 1 || byPath.Alarms[0].OrganizationID != "beta" {
		t.Fatalf("beta: %+v", byPath)
	}
	h.Do(http.MethodGet, "/v1/organizations/beta/alarms?"+window(), e.acmeRO, nil).Expect(t, http.StatusNotFound, "not_found")
	h.Do(http.MethodGet, "/v1/organizations/acme/alarms?"+window(), e.acmeNone, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
	h.Do(http.MethodGet, "/v1/organizations/acme/alarms", e.acmeRO, nil).Expect(t, http.StatusUnprocessableEntity, "")
	h.Do(http.MethodGet, "/v1/organizations/acme/alarms?"+window("limit", "1001"), e.acmeRO, nil).Expect(t, http.StatusUnprocessableEntity, "")
}
