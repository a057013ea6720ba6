package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/fields"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// completeRfI is a valid value of every required fc_rfi field.
var completeRfI = map[string]json.RawMessage{
	"asset_type": raw(`"standalone"`), "usable_power_capacity_mw": raw(`12.5`), "usable_energy_capacity_mwh": raw(`25`),
	"grid_connection_power_mw": raw(`15`), "voltage_level_kv": raw(`20`), "tso": raw(`"50hertz"`), "grid_operator": raw(`"Stadtwerke"`),
	"market_location_id": raw(`"12345678901"`), "site_coordinates": raw(`{"latitude": 51.76, "longitude": 14.33}`),
	"commissioning_date": raw(`"2026-05-01"`), "battery_manufacturer": raw(`"Cells AG"`), "inverter_manufacturer": raw(`"Inv GmbH"`),
	"ems_vendor": raw(`"EMS Co"`), "ems_protocols": raw(`["iec104"]`), "remote_access_available": raw(`true`),
	"site_contact_name": raw(`"Jan"`), "site_contact_phone": raw(`"+4935512345"`), "site_contact_email": raw(`"jan@example.com"`),
	"planned_products": raw(`["fcr"]`),
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestOnboardingFieldsStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, registry, clk := onboardingFixture(t, b)
		values := fields.NewService(svc, b.OnboardingFields(), registry, clk)
		ob, err := svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "bess-1"})
		if err != nil {
			t.Fatal(err)
		}
		rfiGate, dplGate := ob.Gates[0], ob.Gates[1]

		// Nothing stored yet: an empty view, and submit lists every
		// required field.
		v, err := values.Get(ctx, obAcme, ob.ID, rfiGate.ID)
		if err != nil || len(v.Values.Fields) != 0 || v.Values.UpdatedAt != nil || len(v.Definitions) == 0 {
			t.Fatalf("empty view %+v, %v", v, err)
		}
		first := v.Values.ETag()
		unmet, err := svc.Unmet(ctx, ob, rfiGate, mustDef(t, rfiGate))
		if err != nil || len(unmet) != 19 || unmet[0].Location != "fields.asset_type" {
			t.Fatalf("unmet %+v, %v", unmet, err)
		}

		// A save with one bad value stores nothing.
		bad := map[string]json.RawMessage{"usable_power_capacity_mw": raw(`12`), "tso": raw(`"nowhere"`)}
		if _, err := values.Save(ctx, obAcme, ob.ID, rfiGate.ID, bad, ""); !obCode(err, errs.Invalid, "validation_failed") {
			t.Fatalf("bad save: %v", err)
		}
		if v, _ := values.Get(ctx, obAcme, ob.ID, rfiGate.ID); len(v.Values.Fields) != 0 {
			t.Fatalf("a refused save stored %v", v.Values.Fields)
		}

		// A valid save stores, moves the gate to in_progress and is audited.
		clk.Advance(time.Minute)
		v, err = values.Save(ctx, obAcme, ob.ID, rfiGate.ID, map[string]json.RawMessage{"usable_power_capacity_mw": raw(` 12.5 `), "notes": raw(`null`)}, first)
		if err != nil || string(v.Values.Fields["usable_power_capacity_mw"]) != "12.5" || v.Values.UpdatedBy != "Anna Acme" ||
			!v.Values.UpdatedAt.Equal(clk.Now()) || v.Gate.Status != onboarding.GateInProgress {
			t.Fatalf("save %+v, %v", v, err)
		}
		entries, _, err := svc.AuditTrail(ctx, obAcme, ob.ID, onboarding.AuditFilter{ActionPrefix: "field.", Limit: 10})
		if err != nil || len(entries) != 1 || len(entries[0].Changes) != 1 || entries[0].Changes["fields.usable_power_capacity_mw"][1] != 12.5 ||
			entries[0].Changes["fields.usable_power_capacity_mw"][0] != nil || entries[0].Target.ID != rfiGate.ID {
			t.Fatalf("audit %+v, %v", entries, err)
		}
		// The old version is a conflict now; a save changing nothing writes nothing.
		if _, err := values.Save(ctx, obAcme, ob.ID, rfiGate.ID, map[string]json.RawMessage{"notes": raw(`"x"`)}, first); !obCode(err, errs.Conflict, "edit_conflict") {
			t.Fatalf("stale If-Match: %v", err)
		}
		same, err := values.Save(ctx, obAcme, ob.ID, rfiGate.ID, map[string]json.RawMessage{"usable_power_capacity_mw": raw(`12.5`)}, v.Values.ETag())
		if err != nil || same.Values.ETag() != v.Values.ETag() {
			t.Fatalf("no-op save %+v, %v", same, err)
		}
		// Clearing removes the key; old value audited.
		clk.Advance(time.Minute)
		if v, err = values.Save(ctx, obAcme, ob.ID, rfiGate.ID, map[string]json.RawMessage{"usable_power_capacity_mw": raw(`null`)}, ""); err != nil ||
			len(v.Values.Fields) != 0 {
			t.Fatalf("clear %+v, %v", v, err)
		}
		// A gate without fields takes no key; another organisation sees nothing.
		if _, err := values.Save(ctx, obAcme, ob.ID, dplGate.ID, map[string]json.RawMessage{"tso": raw(`"amprion"`)}, ""); !obCode(err, errs.Invalid, "validation_failed") {
			t.Fatalf("dpl gate save: %v", err)
		}
		if _, err := values.Get(ctx, obBeta, ob.ID, rfiGate.ID); !obCode(err, errs.NotFound, "onboarding_not_found") {
			t.Fatalf("beta: %v", err)
		}
		if _, err := values.Save(ctx, obBeta, ob.ID, rfiGate.ID, completeRfI, ""); !obCode(err, errs.NotFound, "onboarding_not_found") {
			t.Fatalf("beta save: %v", err)
		}

		// Complete, submit and pass: the asset takes the values in the pass
		// transaction, audited as asset.updated.
		if _, err := values.Save(ctx, obAcme, ob.ID, rfiGate.ID, completeRfI, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Act(ctx, obAcme, ob.ID, rfiGate.ID, onboarding.ActionSubmit, ""); err != nil {
			t.Fatalf("submit: %v", err)
		}
		if _, err := values.Save(ctx, obAcme, ob.ID, rfiGate.ID, map[string]json.RawMessage{"notes": raw(`"late"`)}, ""); !obCode(err, errs.Conflict, "gate_locked") {
			t.Fatalf("save while submitted: %v", err)
		}
		if _, err := svc.Act(ctx, obPlatform, ob.ID, rfiGate.ID, onboarding.ActionPass, ""); err != nil {
			t.Fatalf("pass: %v", err)
		}
		a, err := registry.Get(ctx, assetAdmin, "bess-1")
		if err != nil || a.UsablePowerCapacityMW == nil || *a.UsablePowerCapacityMW != 12.5 || a.TSO == nil || *a.TSO != "50HZ" ||
			a.Latitude == nil || *a.Latitude != 51.76 || a.GridConnectionPowerMW == nil || *a.GridConnectionPowerMW != 15 {
			t.Fatalf("asset after the pass: %+v, %v", a, err)
		}
		entries, _, _ = svc.AuditTrail(ctx, obAcme, ob.ID, onboarding.AuditFilter{ActionPrefix: "asset.updated", Limit: 10})
		if len(entries) != 1 || entries[0].Changes["usable_power_capacity_mw"][1] != 12.5 || entries[0].Changes["tso"][1] != "50HZ" {
			t.Fatalf("asset audit %+v", entries)
		}
	})
}

// A pass whose values the asset validation refuses is 409
// asset_update_refused and changes nothing.
func TestOnboardingFieldsAssetRefusal(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, registry, clk := onboardingFixture(t, b)
		values := fields.NewService(svc, b.OnboardingFields(), registry, clk)
		a := assets.NewAsset("bess-pq", "acme", "PQ", "Leipzig", assets.Standalone)
		it := assets.FullControl
		a.IntegrationType, a.FCRPrequalifiedMW = &it, 50
		if err := registry.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
		ob, err := svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "bess-pq"})
		if err != nil {
			t.Fatal(err)
		}
		g := ob.Gates[0]
		if _, err := values.Save(ctx, obPlatform, ob.ID, g.ID, completeRfI, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Act(ctx, obPlatform, ob.ID, g.ID, onboarding.ActionSubmit, ""); err != nil {
			t.Fatal(err)
		}
		_, err = svc.Act(ctx, obPlatform, ob.ID, g.ID, onboarding.ActionPass, "")
		var e *errs.Error
		if !obCode(err, errs.Conflict, "asset_update_refused") || !errors.As(err, &e) || len(e.Fields) == 0 {
			t.Fatalf("pass: %v", err)
		}
		cur, _ := svc.Get(ctx, obPlatform, ob.ID)
		after, _ := registry.Get(ctx, assetAdmin, "bess-pq")
		if cur.Gates[0].Status != onboarding.GateSubmitted || after.UsablePowerCapacityMW != nil {
			t.Fatalf("refused pass changed: gate %s, asset %+v", cur.Gates[0].Status, after.UsablePowerCapacityMW)
		}
	})
}

func mustDef(t *testing.T, g onboarding.Gate) onboarding.GateDefinition {
	t.Helper()
	d, ok := g.Definition()
	if !ok {
		t.Fatalf("gate %s without definition", g.DefinitionID)
	}
	return d
}
