package prequalhttp_test

import (
	"context"
	"errors"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/onboarding/prequal"
	"atcp/internal/onboarding/prequal/prequalhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

const certID = "0193a5c2-aaaa-7000-8000-000000000001"

// certs knows one certificate of every onboarding.
type certs struct{}

func (certs) Exists(_ context.Context, _, _, id string) (bool, error) { return id == certID, nil }

type env struct {
	*onboardingtest.Kit
	ob, mon onboarding.Onboarding
}

// setup starts the workflows of acme's full-control bess-1 (10 MW, 50HZ;
// every gate before prequalification waived) and monitoring-only mon-1.
func setup(t *testing.T, b store.Backend, withCerts bool) env {
	t.Helper()
	sized := func(a *assets.Asset) {
		usable, tso := 10.0, assets.TSO50Hertz
		a.UsablePowerCapacityMW, a.TSO = &usable, &tso
	}
	monitoring := func(a *assets.Asset) {
		sized(a)
		it := assets.MonitoringOnly
		a.IntegrationType = &it
	}
	k := onboardingtest.New(t, b, onboardingtest.Config{Assets: []onboardingtest.Asset{{ID: "bess-1", Org: "acme", Adjust: sized},
		{ID: "mon-1", Org: "acme", Adjust: monitoring}}})
	var c prequal.Certificates
	if withCerts {
		c = certs{}
	}
	prequalhttp.Register(k.Server, prequal.NewService(k.Core, b.OnboardingPrequalifications(), k.Assets, c, k.Clock))
	waive := onboarding.GateOverride{Waived: true, Note: "done elsewhere"}
	return env{Kit: k, ob: k.Start("bess-1", map[string]onboarding.GateOverride{"fc_rfi": waive, "fc_dpl": waive, "fc_installation": waive,
		"fc_comm_test": waive}), mon: k.Start("mon-1", nil)}
}

func (e env) asset(t *testing.T) assets.Asset {
	t.Helper()
	a, err := e.Assets.Get(context.Background(), auth.Visibility{All: true}, "bess-1")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// submitPrequalGate submits the prequalification gate through the core.
func (e env) submitPrequalGate(t *testing.T) error {
	t.Helper()
	g := e.Gate(e.ob, onboarding.KindPrequalification)
	_, err := e.Core.Act(context.Background(), onboardingtest.PlatformActor, e.ob.ID, g.ID, onboarding.ActionSubmit, "")
	return err
}

func TestPrequalifications(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, true)
		h := e.Harness
		base := "/v1/onboardings/" + e.ob.ID + "/prequalifications"

		r := h.Do("POST", base, e.Platform, map[string]any{"product": "fcr", "requested_mw": 8, "tso_reference": "PQ-1", "submitted_on": "2026-02-01"}).
			Expect(t, 201, "")
		p := r.Map(t)
		id := p["prequalification_id"].(string)
		if r.Header.Get("Location") != base+"/"+id || p["status"] != "submitted" || p["tso"] != "50HZ" || p["prequalified_mw"] != nil ||
			p["submitted_on"] != "2026-02-01" || p["recorded_by_name"] != "platform@example.com" {
			t.Fatalf("created %v (%s)", p, r.Header.Get("Location"))
		}
		h.Do("POST", base, e.Platform, map[string]any{"product": "afrr_pos", "requested_mw": 10, "tso": "AMP"}).Expect(t, 201, "")

		// The gate's requirement: a result for every submitted product.
		var ee *errs.Error
		if err := e.submitPrequalGate(t); !errors.As(err, &ee) || ee.Code != "gate_requirements_unmet" || len(ee.Fields) != 2 ||
			ee.Fields[0].Location != "prequalification.fcr" || ee.Fields[1].Location != "prequalification.afrr_pos" {
			t.Fatalf("submit with open results: %v", err)
		}

		d := h.Do("POST", base+"/"+id+"/result", e.Platform, map[string]any{"status": "partially_granted", "prequalified_mw": 6.5,
			"decided_on": "2026-03-01", "valid_from": "2026-03-05", "decision_note": "ok", "certificate_document_id": certID}).Expect(t, 200, "").Map(t)
		if d["status"] != "partially_granted" || d["prequalified_mw"] != 6.5 || d["decided_on"] != "2026-03-01" || d["certificate_document_id"] != certID {
			t.Fatalf("decided %v", d)
		}
		if a := e.asset(t); a.FCRPrequalifiedMW != 6.5 {
			t.Fatalf("asset fcr %v", a.FCRPrequalifiedMW)
		}
		var l struct {
			Prequalifications []map[string]any `json:"prequalifications"`
		}
		h.Do("GET", base, e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if len(l.Prequalifications) != 2 || l.Prequalifications[0]["prequalification_id"] != id {
			t.Fatalf("list %+v", l)
		}
		if g := h.Do("GET", base+"/"+id, e.AcmeRO, nil).Expect(t, 200, "").Map(t); g["status"] != "partially_granted" {
			t.Fatalf("get %v", g)
		}

		// Rejected: the figure is 0.
		afrr := l.Prequalifications[1]["prequalification_id"].(string)
		h.Do("POST", base+"/"+afrr+"/result", e.Platform, map[string]any{"status": "rejected"}).Expect(t, 200, "")
		if a := e.asset(t); a.AFRRPrequalifiedPosMW != 0 {
			t.Fatalf("asset afrr pos %v", a.AFRRPrequalifiedPosMW)
		}
		if err := e.submitPrequalGate(t); err != nil {
			t.Fatalf("submit with every result: %v", err)
		}

		// Withdraw resets the figure; a new one of the product may follow.
		h.Do("POST", base+"/"+id+"/result", e.Platform, map[string]any{"status": "granted", "prequalified_mw": 8}).Expect(t, 409, "prequalification_decided")
		w := h.Do("POST", base+"/"+id+"/withdraw", e.Platform, map[string]any{"reason": "wrong figure"}).Expect(t, 200, "").Map(t)
		if w["status"] != "withdrawn" || w["withdraw_reason"] != "wrong figure" || e.asset(t).FCRPrequalifiedMW != 0 {
			t.Fatalf("withdrawn %v, asset %v", w, e.asset(t).FCRPrequalifiedMW)
		}
		h.Do("POST", base+"/"+id+"/withdraw", e.Platform, map[string]any{"reason": "again"}).Expect(t, 409, "prequalification_withdrawn")
		h.Do("POST", base, e.Platform, map[string]any{"product": "fcr", "requested_mw": 8}).Expect(t, 201, "")
	})
}

func TestPrequalificationErrors(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t), false)
	h := e.Harness
	base := "/v1/onboardings/" + e.ob.ID + "/prequalifications"
	before := e.asset(t).FCRPrequalifiedMW
	p := h.Do("POST", base, e.Platform, map[string]any{"product": "fcr", "requested_mw": 8}).Expect(t, 201, "").Map(t)
	item := base + "/" + p["prequalification_id"].(string)

	// Create.
	h.Do("POST", base, e.Platform, map[string]any{"product": "fcr", "requested_mw": 5}).Expect(t, 409, "prequalification_exists")
	h.Do("POST", base, e.Platform, map[string]any{"product": "afrr_neg", "requested_mw": 10.5}).Expect(t, 422, "validation_failed")
	h.Do("POST", base, e.Platform, map[string]any{"product": "afrr_neg", "requested_mw": 0}).Expect(t, 422, "validation_failed")
	h.Do("POST", base, e.Platform, map[string]any{"product": "afrr_neg", "requested_mw": 1, "submitted_on": "2026-13-01"}).Expect(t, 422, "validation_failed")
	h.Do("POST", base, e.Platform, map[string]any{"product": "mfrr", "requested_mw": 1}).Expect(t, 422, "validation_failed")
	h.Do("POST", "/v1/onboardings/"+e.mon.ID+"/prequalifications", e.Platform, map[string]any{"product": "fcr", "requested_mw": 1}).
		Expect(t, 409, "prequalification_not_in_template")
	h.Do("POST", base, e.Acme, map[string]any{"product": "afrr_neg", "requested_mw": 1}).Expect(t, 403, "platform_only")
	h.Do("POST", base, e.AcmeRO, map[string]any{"product": "afrr_neg", "requested_mw": 1}).Expect(t, 403, "insufficient_scope")
	h.Do("POST", base, e.Beta, map[string]any{"product": "afrr_neg", "requested_mw": 1}).Expect(t, 404, "onboarding_not_found")

	// Reads.
	h.Do("GET", base, e.None, nil).Expect(t, 403, "insufficient_scope")
	h.Do("GET", base, e.Beta, nil).Expect(t, 404, "onboarding_not_found")
	h.Do("GET", item, e.Beta, nil).Expect(t, 404, "onboarding_not_found")
	h.Do("GET", item, e.None, nil).Expect(t, 403, "insufficient_scope")
	h.Do("GET", base+"/nope", e.Acme, nil).Expect(t, 404, "prequalification_not_found")
	h.Do("GET", base+"/0193a5c2-0000-7000-8000-000000000000", e.Acme, nil).Expect(t, 404, "prequalification_not_found")

	// Result: nothing changes on a refusal.
	for _, body := range []map[string]any{
		{"status": "granted"}, {"status": "granted", "prequalified_mw": 7}, {"status": "partially_granted", "prequalified_mw": 8},
		{"status": "rejected", "prequalified_mw": 3}, {"status": "granted", "prequalified_mw": 8, "certificate_document_id": certID},
		{"status": "granted", "prequalified_mw": 8, "decided_on": "2020-01-01"},
	} {
		h.Do("POST", item+"/result", e.Platform, body).Expect(t, 422, "validation_failed")
	}
	h.Do("POST", item+"/result", e.Acme, map[string]any{"status": "rejected"}).Expect(t, 403, "platform_only")
	h.Do("POST", item+"/result", e.AcmeRO, map[string]any{"status": "rejected"}).Expect(t, 403, "insufficient_scope")
	h.Do("POST", item+"/result", e.Beta, map[string]any{"status": "rejected"}).Expect(t, 404, "onboarding_not_found")
	h.Do("POST", base+"/0193a5c2-0000-7000-8000-000000000000/result", e.Platform, map[string]any{"status": "rejected"}).
		Expect(t, 404, "prequalification_not_found")
	if g := h.Do("GET", item, e.Acme, nil).Expect(t, 200, "").Map(t); g["status"] != "submitted" || e.asset(t).FCRPrequalifiedMW != before {
		t.Fatalf("after refusals %v, asset %v", g, e.asset(t).FCRPrequalifiedMW)
	}

	// Withdraw.
	h.Do("POST", item+"/withdraw", e.Platform, map[string]any{"reason": ""}).Expect(t, 422, "validation_failed")
	h.Do("POST", item+"/withdraw", e.Platform, map[string]any{"reason": "nul\x00"}).Expect(t, 422, "validation_failed")
	h.Do("POST", item+"/withdraw", e.Acme, map[string]any{"reason": "x"}).Expect(t, 403, "platform_only")
	h.Do("POST", item+"/withdraw", e.AcmeRO, map[string]any{"reason": "x"}).Expect(t, 403, "insufficient_scope")
	h.Do("POST", item+"/withdraw", e.Beta, map[string]any{"reason": "x"}).Expect(t, 404, "onboarding_not_found")
	// A submitted one withdrawn leaves the asset's figure as it is.
	h.Do("POST", item+"/withdraw", e.Platform, map[string]any{"reason": "x"}).Expect(t, 200, "")
	if e.asset(t).FCRPrequalifiedMW != before {
		t.Fatalf("asset %v", e.asset(t).FCRPrequalifiedMW)
	}

	if _, err := e.Core.Cancel(context.Background(), onboardingtest.PlatformActor, e.ob.ID, "sold"); err != nil {
		t.Fatal(err)
	}
	h.Do("POST", base, e.Platform, map[string]any{"product": "fcr", "requested_mw": 1}).Expect(t, 409, "onboarding_closed")
	h.Do("POST", item+"/withdraw", e.Platform, map[string]any{"reason": "x"}).Expect(t, 409, "onboarding_closed")
}
