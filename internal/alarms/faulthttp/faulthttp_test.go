package faulthttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/alarms"
	"atcp/internal/alarms/fault"
	"atcp/internal/alarms/faulthttp"
	"atcp/internal/alarms/incident"
	"atcp/internal/alarms/narrator"
	"atcp/internal/alarms/narrator/narratortest"
	"atcp/internal/assets"
	"atcp/internal/assets/assetshttp"
	"atcp/internal/auth"
	"atcp/internal/contacts"
	"atcp/internal/events"
	"atcp/internal/identity"
	"atcp/internal/restrictions"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// flakyOutbox fails every Enqueue while fail is set.
type flakyOutbox struct {
	inner *events.Outbox
	mu    sync.Mutex
	fail  bool
	got   [][]events.Event
}

func (o *flakyOutbox) Enqueue(ctx context.Context, list []events.Event) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fail {
		return errors.New("outbox down")
	}
	o.got = append(o.got, list)
	return o.inner.Enqueue(ctx, list)
}

type fakeIncidents struct{ status incident.Status }

func (f fakeIncidents) Open(context.Context, incident.Incident) error { return nil }
func (f fakeIncidents) Status(_ context.Context, key string) (incident.Status, error) {
	if key == "" {
		return incident.Status{}, nil
	}
	s := f.status
	s.IncidentID = key
	return s, nil
}

type env struct {
	h                    *testkit.Harness
	b                    store.Backend
	outbox               *flakyOutbox
	human, agent, reader string
	beta, noScope        string
	key, alarmID         string
	email, chat, mute    int64
}

func setup(t *testing.T, b store.Backend, narratorURL string) env {
	t.Helper()
	h := testkit.NewHarness(t, b)
	ctx := context.Background()
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	registry := assets.NewService(b.Assets(), h.Clock)
	assetshttp.Register(h.Server, registry)
	admin := h.AdminToken()
	for _, a := range []struct{ id, org string }{{"bess-1", "acme"}, {"b-1", "beta"}} {
		h.Do("POST", "/v1/assets", admin, map[string]any{
			"asset_id": a.id, "asset_name": "Battery " + a.id, "asset_type": "standalone", "location": "Cottbus",
			"organisation_id": a.org,
		}).Expect(t, 201, "")
	}
	dirc := contacts.NewService(b.Contacts(), registry, h.Clock)
	adminP := auth.Principal{Subject: "admin", OrganizationID: auth.PlatformOrganization, Scopes: auth.NewScopeSet(auth.AllScopes...), IsM2M: true}
	mk := func(c contacts.Contact) int64 {
		got, err := dirc.Create(ctx, &adminP, "bess-1", c)
		if err != nil {
			t.Fatal(err)
		}
		return got.ID
	}
	e := env{h: h, b: b}
	e.email = mk(contacts.Contact{Name: "Leitwarte", Email: "leitwarte@acme.example", ChatWebhookURL: "https://hooks.example/T0/B0", IsEmergency: true, Notifiable: true})
	e.chat = mk(contacts.Contact{Name: "Service", ChatWebhookURL: "https://hooks.example/T1/B1", Notifiable: true})
	e.mute = mk(contacts.Contact{Name: "Quiet", Email: "quiet@acme.example", Notifiable: false})

	svc := alarms.NewService(b.Alarms(), registry, h.Clock)
	now := h.Clock.Now().UTC().Truncate(time.Microsecond)
	open := func(assetID, org, ruleID string) string {
		r, _ := alarms.RuleByID(ruleID)
		key := alarms.Key{AssetID: assetID, RuleID: ruleID}
		id := alarms.NewAlarmID(now)
		if _, _, err := b.Alarms().Act(ctx, alarms.Update{Key: key, Visibility: auth.Visibility{All: true},
			Decide: alarms.DecideOpen(alarms.Opening{Rule: r, Key: key, OrganizationID: org, At: now, AlarmID: id,
				Evidence: alarms.Evidence{Facts: []string{"asset_status is 0"}, SustainedSeconds: 312}})}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	e.alarmID = open("bess-1", "acme", "COMMS-001")
	open("bess-1", "acme", "TELEMETRY-001")
	open("b-1", "beta", "COMMS-001")
	e.key = "bess-1:COMMS-001"

	e.outbox = &flakyOutbox{inner: events.NewOutbox(b.Events(), h.Clock, h.Clock)}
	fs := fault.NewService(fault.Deps{
		Alarms: svc, Assets: registry, Directory: dirc, Holds: restrictions.NewService(b.Restrictions(), registry, h.Clock),
		Narrator:  narrator.New(narrator.Config{BaseURL: narratorURL, Timeout: 5 * time.Second}),
		Incidents: fakeIncidents{status: incident.Status{Found: true, Status: "triggered"}},
		Outbox:    e.outbox, Store: b.Faults(), Clock: h.Clock, BaseURL: h.URL,
	})
	faulthttp.Register(h.Server, fs)
	e.human = h.Token(auth.Principal{Subject: "u-1", OrganizationID: "acme", Email: "op@acme.example",
		Scopes: auth.NewScopeSet(auth.AlarmRead, auth.AlarmWrite)})
	e.agent = h.TokenFor("acme", auth.AlarmRead, auth.AlarmWrite)
	e.reader = h.TokenFor("acme", auth.AlarmRead)
	e.beta = h.TokenFor("beta", auth.AlarmRead, auth.AlarmWrite)
	e.noScope = h.TokenFor("acme", auth.AssetRead)
	return e
}

func TestEvidenceDraftIncident(t *testing.T) {
	chat := narratortest.Serve(t, "Störung Battery bess-1",
		"Sehr geehrte Damen und Herren,\n\ndie Anlage Battery bess-1 (bess-1) meldet seit 312 Sekunden keinen Status.\n\nMit freundlichen Grüßen")
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, chat)
		h := e.h
		var ev map[string]any
		h.Do("GET", "/v1/alarms/"+e.key+"/fault-evidence", e.human, nil).Expect(t, 200, "").JSON(t, &ev)
		if ev["alarm_id"] != e.alarmID || ev["rule_name"] == "" || ev["unavailability_hours"] != 8.0 || ev["active_fault_hold"] != nil ||
			len(ev["recipients"].([]any)) != 3 || ev["concurrent_alarm_rule_ids"].([]any)[0] != "TELEMETRY-001" ||
			!strings.HasSuffix(ev["deep_link"].(string), "/v1/alarms/bess-1:COMMS-001/fault-evidence") {
			t.Fatalf("evidence %v", ev)
		}
		r0 := ev["recipients"].([]any)[0].(map[string]any)
		if r0["has_slack"] != true || r0["is_emergency"] != true {
			t.Fatalf("recipient %v", r0)
		}
		var d map[string]any
		h.Do("POST", "/v1/alarms/"+e.key+"/fault-message-draft", e.human, map[string]any{"language": "de"}).Expect(t, 200, "").JSON(t, &d)
		if !strings.Contains(d["body"].(string), "op@acme.example") || !strings.Contains(d["body"].(string), e.alarmID) ||
			d["unavailability_end"] != h.Clock.Now().UTC().Add(8*time.Hour).Format(time.RFC3339Nano) && d["unavailability_end"] == "" {
			t.Fatalf("draft %v", d)
		}
		var inc map[string]any
		h.Do("GET", "/v1/alarms/"+e.key+"/incident", e.reader, nil).Expect(t, 200, "").JSON(t, &inc)
		if inc["found"] != true || inc["incident_id"] != e.alarmID {
			t.Fatalf("incident %v", inc)
		}
		h.Do("GET", "/v1/alarms/bess-1:SOC-001/incident", e.reader, nil).Expect(t, 200, "").JSON(t, &inc)
		if inc["found"] != false {
			t.Fatalf("no lifecycle: %v", inc)
		}
		h.Do("GET", "/v1/alarms/bess-1:SOC-001/fault-evidence", e.human, nil).Expect(t, 404, "not_found")
		// Authorisation on every endpoint.
		for _, op := range []struct {
			method, path, scopeless string
			body                    any
		}{
			{"GET", "/fault-evidence", e.reader, nil}, {"POST", "/fault-message-draft", e.reader, map[string]any{"language": "de"}},
			{"POST", "/declare-asset-fault", e.reader, map[string]any{"notification": nil}}, {"GET", "/incident", e.noScope, nil},
		} {
			h.Do(op.method, "/v1/alarms/"+e.key+op.path, op.scopeless, op.body).Expect(t, 403, "")
			h.Do(op.method, "/v1/alarms/"+e.key+op.path, e.beta, op.body).Expect(t, 404, "not_found")
		}
	})
}

func TestDraftUnconfigured(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, "")
		e.h.Do("POST", "/v1/alarms/"+e.key+"/fault-message-draft", e.human, map[string]any{"language": "en"}).Expect(t, 503, "narrator_not_configured")
	})
}

func TestDraftFailure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", 500) }))
	defer srv.Close()
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, srv.URL+"/v1")
		e.h.Do("POST", "/v1/alarms/"+e.key+"/fault-message-draft", e.human, map[string]any{"language": "en"}).Expect(t, 502, "narrator_failed")
	})
}
