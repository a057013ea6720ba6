package store_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

var (
	assetAdmin = auth.Visibility{All: true, OrganizationID: auth.PlatformOrganization}
	assetAcme  = auth.Visibility{OrganizationID: "acme"}
	assetBeta  = auth.Visibility{OrganizationID: "beta"}
)

func assetPtr[T any](v T) *T { return &v }

// withOrganizations registers acme, beta and optico.
func withAssetOrganizations(t *testing.T, b store.Backend) {
	t.Helper()
	dir := identity.NewDirectory(b.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
	for id, name := range map[string]string{"acme": "Acme Storage", "beta": "Beta Energie", "optico": "Optico GmbH"} {
		if err := dir.EnsureOrganization(context.Background(), id, name); err != nil {
			t.Fatal(err)
		}
	}
}

// fullAsset sets every field, so that a round trip proves each column.
func fullTestAsset(id, org string) assets.Asset {
	a := assets.NewAsset(id, org, "Battery "+id, "Leipzig", assets.GreyColocation)
	a.Description = assetPtr("line one\nline two")
	a.OptimizerOrgID = assetPtr("optico")
	a.ChargeEfficiency, a.DischargeEfficiency = assetPtr(0.93), assetPtr(0.97)
	a.Country, a.TSO = assetPtr("DE"), assetPtr(assets.TSOAmprion)
	a.MaxPosRampRateMWPerSec, a.MinNegRampRateMWPerSec = assetPtr(2.5), assetPtr(2.25)
	a.UsableEnergyCapacityMWh, a.UsablePowerCapacityMW = assetPtr(20.0), assetPtr(10.0)
	a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW, a.FCRPrequalifiedMW = 1.5, 10, 2.75
	a.TSOPoolID, a.IOAMiddle = assetPtr(int64(2147483647)), assetPtr(255)
	a.Latitude, a.Longitude = assetPtr(-33.5), assetPtr(151.25)
	a.DisablePQCapacityCheck, a.StrictValidation, a.TSOConnected = true, true, false
	a.FCREnabled, a.AFRREnabled, a.WholesaleEnabled, a.ControlEnabled, a.PVActive = true, true, true, true, true
	a.GridConnectionPowerMW, a.BESSPriority = assetPtr(12.0), assetPtr(false)
	a.GridImportAllowed, a.BESSControlEnabled, a.PVControlEnabled = assetPtr(true), assetPtr(false), assetPtr(true)
	a.IntegrationType = assetPtr(assets.MonitoringOnly)
	a.OperationalStatus, a.OperationalStatusReason = assets.Maintenance, assetPtr("inverter swap")
	a.MaintenanceUntil = assetPtr(time.Date(2026, 3, 1, 12, 30, 0, 123456000, time.UTC))
	a.Adapter, a.AdapterTopicPrefix = assets.AdapterMQTT, "site-7/"+id+"/ü"
	a.CreatedAt = testkit.Start.Add(-time.Hour)
	a.UpdatedAt = testkit.Start
	return a
}

func TestAssetStoreRoundTripAndVisibility(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withAssetOrganizations(t, b)
		s := b.Assets()
		full := fullTestAsset("Z-full", "acme")
		if _, err := s.Create(ctx, full); err != nil {
			t.Fatal(err)
		}
		bare := assets.NewAsset("a.bare", "beta", "Bare", "Kiel", assets.Standalone)
		bare.CreatedAt, bare.UpdatedAt = testkit.Start, testkit.Start
		if _, err := s.Create(ctx, bare); err != nil {
			t.Fatal(err)
		}
		green := assets.NewAsset("m_green", "acme", "Green", "Husum", assets.GreenColocation)
		green.CreatedAt, green.UpdatedAt = testkit.Start, testkit.Start
		if _, err := s.Create(ctx, green); err != nil {
			t.Fatal(err)
		}

		got, err := s.Get(ctx, assetAcme, "Z-full")
		if err != nil {
			t.Fatal(err)
		}
		want := full
		want.OptimizerOrgName = assetPtr("Optico GmbH")
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip\n got %+v\nwant %+v", got, want)
		}
		if got, _ := s.Get(ctx, assetBeta, "a.bare"); !reflect.DeepEqual(got, bare) {
			t.Fatalf("round trip of defaults\n got %+v\nwant %+v", got, bare)
		} else if got.Adapter != assets.AdapterSimulator || got.AdapterTopicPrefix != "atcp/a.bare" {
			t.Fatalf("default adapter %q under %q", got.Adapter, got.AdapterTopicPrefix)
		}

		if _, err := s.Get(ctx, assetBeta, "Z-full"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta sees acme's asset: %v", err)
		}
		if _, err := s.Get(ctx, assetAcme, "nope"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown asset: %v", err)
		}
		ids := func(v auth.Visibility) []string {
			list, err := s.List(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			out := []string{}
			for _, a := range list {
				out = append(out, a.ID)
			}
			return out
		}
		// Byte order on both backends: upper case before lower case.
		if got := ids(assetAdmin); !reflect.DeepEqual(got, []string{"Z-full", "a.bare", "m_green"}) {
			t.Fatalf("admin list %v", got)
		}
		if got := ids(assetAcme); !reflect.DeepEqual(got, []string{"Z-full", "m_green"}) {
			t.Fatalf("acme list %v", got)
		}
		if got := ids(auth.Visibility{OrganizationID: "optico"}); len(got) != 0 {
			t.Fatalf("optico list %v", got)
		}
	})
}

func TestAssetStoreCreateConflictsAndUnknownOrganizations(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withAssetOrganizations(t, b)
		s := b.Assets()
		a := fullTestAsset("bess", "acme")
		if _, err := s.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		other := assets.NewAsset("bess", "beta", "Other", "Kiel", assets.Standalone)
		if _, err := s.Create(ctx, other); !isAssetError(err, errs.Conflict, "asset_exists") {
			t.Fatalf("duplicate id: %v", err)
		}
		lost := assets.NewAsset("lost", "nobody", "Lost", "Kiel", assets.Standalone)
		lost.OptimizerOrgID = assetPtr("ghost")
		_, err := s.Create(ctx, lost)
		if !errs.Is(err, errs.Invalid) || len(err.(*errs.Error).Fields) != 2 {
			t.Fatalf("unknown organisations: %v", err)
		}
		if _, err := s.Get(ctx, assetAdmin, "lost"); !errs.Is(err, errs.NotFound) {
			t.Fatal("a refused create stored the asset")
		}
		// A deleted asset keeps its id.
		if err := s.Delete(ctx, assetAcme, "bess", testkit.Start, func(context.Context, assets.Asset) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Create(ctx, a); !isAssetError(err, errs.Conflict, "asset_exists") {
			t.Fatalf("reuse of a deleted id: %v", err)
		}
	})
}

func TestAssetStoreUpdate(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withAssetOrganizations(t, b)
		s := b.Assets()
		if _, err := s.Create(ctx, fullTestAsset("bess", "acme")); err != nil {
			t.Fatal(err)
		}
		later := testkit.Start.Add(time.Minute)
		got, err := s.Update(ctx, assetAcme, "bess", func(_ context.Context, a assets.Asset) (assets.Asset, bool, error) {
			a.Name, a.OptimizerOrgID, a.Description, a.UpdatedAt = "Renamed", assetPtr("beta"), nil, later
			a.Adapter, a.AdapterTopicPrefix = assets.AdapterSimulator, "moved/bess"
			return a, true, nil
		})
		if err != nil || got.Name != "Renamed" || got.OptimizerOrgName == nil || *got.OptimizerOrgName != "Beta Energie" ||
			got.Adapter != assets.AdapterSimulator || got.AdapterTopicPrefix != "moved/bess" {
			t.Fatalf("update: %+v, %v", got, err)
		}
		read, _ := s.Get(ctx, assetAcme, "bess")
		if !reflect.DeepEqual(read, got) {
			t.Fatalf("stored\n%+v\nreturned\n%+v", read, got)
		}
		// An unknown optimizer is refused and nothing changes.
		_, err = s.Update(ctx, assetAcme, "bess", func(_ context.Context, a assets.Asset) (assets.Asset, bool, error) {
			a.Name, a.OptimizerOrgID, a.UpdatedAt = "Other", assetPtr("ghost"), later.Add(time.Minute)
			return a, true, nil
		})
		if !errs.Is(err, errs.Invalid) {
			t.Fatalf("unknown optimizer: %v", err)
		}
		// The change function's error is returned as is.
		_, err = s.Update(ctx, assetAcme, "bess", func(_ context.Context, a assets.Asset) (assets.Asset, bool, error) {
			return a, false, errs.Invalidf("body.asset_name", nil, "no")
		})
		if !errs.Is(err, errs.Invalid) {
			t.Fatalf("change error: %v", err)
		}
		// A change reported as none is not written.
		same, err := s.Update(ctx, assetAcme, "bess", func(_ context.Context, a assets.Asset) (assets.Asset, bool, error) {
			a.Name = "Not written"
			return a, false, nil
		})
		if err != nil || !reflect.DeepEqual(same, read) {
			t.Fatalf("unchanged update returned %+v, %v", same, err)
		}
		if after, _ := s.Get(ctx, assetAcme, "bess"); !reflect.DeepEqual(after, read) {
			t.Fatalf("refused updates changed the asset: %+v", after)
		}
		if _, err := s.Update(ctx, assetBeta, "bess", func(_ context.Context, a assets.Asset) (assets.Asset, bool, error) {
			t.Error("change called for an invisible asset")
			return a, true, nil
		}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta updated acme's asset: %v", err)
		}
	})
}

// Concurrent read-modify-write updates of different fields must all
// survive: each sees the previous one's result.
func TestAssetStoreConcurrentUpdatesKeepEveryChange(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withAssetOrganizations(t, b)
		s := b.Assets()
		a := assets.NewAsset("bess", "acme", "Bess", "Kiel", assets.Standalone)
		a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
		if _, err := s.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		setters := []func(*assets.Asset){
			func(a *assets.Asset) { a.FCREnabled = true },
			func(a *assets.Asset) { a.AFRREnabled = true },
			func(a *assets.Asset) { a.WholesaleEnabled = true },
			func(a *assets.Asset) { a.ControlEnabled = true },
			func(a *assets.Asset) { a.PVActive = true },
			func(a *assets.Asset) { a.StrictValidation = true },
			func(a *assets.Asset) { a.DisablePQCapacityCheck = true },
			func(a *assets.Asset) { a.Description = assetPtr("described") },
			func(a *assets.Asset) { a.Country = assetPtr("DE") },
			func(a *assets.Asset) { a.IOAMiddle = assetPtr(9) },
		}
		var wg sync.WaitGroup
		for i, set := range setters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.Update(ctx, assetAcme, "bess", func(_ context.Context, cur assets.Asset) (assets.Asset, bool, error) {
					// Widen the race window between the read and the write.
					time.Sleep(2 * time.Millisecond)
					set(&cur)
					cur.UpdatedAt = testkit.Start.Add(time.Duration(i+1) * time.Second)
					return cur, true, nil
				})
				if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		got, _ := s.Get(ctx, assetAcme, "bess")
		want := got
		for _, set := range setters {
			set(&want)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("lost an update: %+v", got)
		}
	})
}

func TestAssetStoreDelete(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withAssetOrganizations(t, b)
		s := b.Assets()
		for _, id := range []string{"keep", "gone"} {
			a := assets.NewAsset(id, "acme", id, "Kiel", assets.Standalone)
			a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
			if _, err := s.Create(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		refuse := errs.Conflictf("asset_in_use", "busy")
		if err := s.Delete(ctx, assetAcme, "gone", testkit.Start, func(ctx context.Context, a assets.Asset) error {
			return refuse
		}); err != refuse {
			t.Fatalf("check error not returned: %v", err)
		}
		if _, err := s.Get(ctx, assetAcme, "gone"); err != nil {
			t.Fatal("a refused deletion deleted the asset")
		}
		if err := s.Delete(ctx, assetBeta, "gone", testkit.Start, func(context.Context, assets.Asset) error {
			t.Error("check called for an invisible asset")
			return nil
		}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta deleted acme's asset: %v", err)
		}
		// The check runs inside the deletion and may read the store (as the
		// deletion guards of other areas do) without blocking.
		checked := false
		if err := s.Delete(ctx, assetAcme, "gone", testkit.Start, func(ctx context.Context, a assets.Asset) error {
			checked = a.ID == "gone"
			_, err := s.Get(ctx, assetAcme, "keep")
			return err
		}); err != nil || !checked {
			t.Fatalf("delete: %v (checked %v)", err, checked)
		}
		if _, err := s.Get(ctx, assetAdmin, "gone"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted asset still readable: %v", err)
		}
		if _, err := s.Update(ctx, assetAdmin, "gone", func(_ context.Context, a assets.Asset) (assets.Asset, bool, error) { return a, true, nil }); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted asset updatable: %v", err)
		}
		if err := s.Delete(ctx, assetAdmin, "gone", testkit.Start, func(context.Context, assets.Asset) error { return nil }); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted twice: %v", err)
		}
		if list, _ := s.List(ctx, assetAdmin); len(list) != 1 || list[0].ID != "keep" {
			t.Fatalf("list after delete: %v", list)
		}
	})
}

func isAssetError(err error, kind errs.Kind, code errs.Code) bool {
	e, ok := err.(*errs.Error)
	return ok && e.Kind == kind && e.Code == code
}
