package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/calendar"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// withBackupAssets registers acme's asset a1 and beta's b1.
func withBackupAssets(t *testing.T, b store.Backend) {
	t.Helper()
	withAssetOrganizations(t, b)
	for id, org := range map[string]string{"a1": "acme", "b1": "beta"} {
		a := assets.NewAsset(id, org, "Battery "+id, "Kiel", assets.Standalone)
		a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
		if _, err := b.Assets().Create(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
}

// physical is the resolved record of a physical asset, as the stores need it.
func physical(id string) assets.Asset { return assets.Asset{ID: id} }

// virtual is the resolved record of a virtual asset of parent.
func virtual(parent, segment string) assets.Asset {
	return assets.Asset{ID: parent + "." + segment, ParentAssetID: &parent}
}

func qh(n int) time.Time { return testkit.Start.Add(time.Duration(n) * 15 * time.Minute) }

func override(asset string, p afrr.Product, from, to int) afrr.Override {
	return afrr.Override{ID: uuid.NewString(), AssetID: asset, Product: p, Start: qh(from), End: qh(to), CreatedAt: testkit.Start}
}

func expectCode(t *testing.T, err error, kind errs.Kind, code errs.Code) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != kind || e.Code != code {
		t.Fatalf("err %v, want kind %d code %s", err, kind, code)
	}
}

func TestBackupOverrideStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withBackupAssets(t, b)
		s := b.BackupMarket()

		full := override("a1", afrr.Neg, 4, 8)
		full.Price, full.MaxCapacityMW, full.Note = assetPtr(decimal.RequireFromString("-15000")), assetPtr(2.5), assetPtr("line\nnote")
		full.CreatedAt = time.Date(2026, 2, 1, 6, 0, 0, 123456000, time.UTC)
		full.OrganizationID = "ignored: the asset's organisation is stored"
		got, err := s.CreateOverride(ctx, assetAcme, physical("a1"), full)
		if err != nil {
			t.Fatal(err)
		}
		if got.OrganizationID != "acme" {
			t.Fatalf("organisation %q", got.OrganizationID)
		}
		bare := override("a1", afrr.Neg, 8, 9) // touches full's end: no overlap
		if _, err := s.CreateOverride(ctx, assetAcme, physical("a1"), bare); err != nil {
			t.Fatal(err)
		}
		pos := override("a1", afrr.Pos, 0, 96) // other product: no overlap
		if _, err := s.CreateOverride(ctx, assetAcme, physical("a1"), pos); err != nil {
			t.Fatal(err)
		}

		list, err := s.Overrides(ctx, assetAcme, "a1", afrr.OverrideFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 3 || list[0].ID != pos.ID || list[1].ID != full.ID || list[2].ID != bare.ID {
			t.Fatalf("list %+v", list)
		}
		r := list[1]
		if !r.Start.Equal(qh(4)) || !r.End.Equal(qh(8)) || r.Start.Location() != time.UTC || !r.CreatedAt.Equal(full.CreatedAt) ||
			r.Price == nil || !r.Price.Equal(*full.Price) || *r.MaxCapacityMW != 2.5 || *r.Note != "line\nnote" ||
			r.OrganizationID != "acme" || r.AssetID != "a1" || r.Product != afrr.Neg {
			t.Fatalf("round trip %+v", r)
		}
		if b := list[2]; b.Price != nil || b.MaxCapacityMW != nil || b.Note != nil {
			t.Fatalf("unset values %+v", b)
		}

		// Overlaps, including one block inside and one straddling either end.
		for _, o := range []afrr.Override{override("a1", afrr.Neg, 5, 6), override("a1", afrr.Neg, 3, 5), override("a1", afrr.Neg, 7, 12), override("a1", afrr.Neg, 0, 100)} {
			_, err := s.CreateOverride(ctx, assetAcme, physical("a1"), o)
			expectCode(t, err, errs.Conflict, "override_overlaps")
		}
		// Visibility: beta neither sees nor writes acme's asset.
		_, err = s.CreateOverride(ctx, assetBeta, physical("a1"), override("a1", afrr.Neg, 20, 21))
		expectCode(t, err, errs.NotFound, "not_found")
		if l, err := s.Overrides(ctx, assetBeta, "a1", afrr.OverrideFilter{}); err != nil || len(l) != 0 {
			t.Fatalf("beta sees %v, %v", l, err)
		}
		if l, err := s.Overrides(ctx, assetAdmin, "a1", afrr.OverrideFilter{}); err != nil || len(l) != 3 {
			t.Fatalf("admin sees %v, %v", l, err)
		}
		err = s.DeleteOverride(ctx, assetBeta, "a1", bare.ID, func(afrr.Override) error { return nil })
		expectCode(t, err, errs.NotFound, "not_found")
		// An override is addressed under its own asset only.
		err = s.DeleteOverride(ctx, assetAdmin, "b1", bare.ID, func(afrr.Override) error { return nil })
		expectCode(t, err, errs.NotFound, "not_found")

		// Filters: product and the half-open overlap window.
		for _, tc := range []struct {
			f    afrr.OverrideFilter
			want []string
		}{
			{afrr.OverrideFilter{Product: afrr.Neg}, []string{full.ID, bare.ID}},
			{afrr.OverrideFilter{Product: afrr.Pos}, []string{pos.ID}},
			{afrr.OverrideFilter{Product: afrr.Neg, From: qh(8)}, []string{bare.ID}}, // full ends exactly at From
			{afrr.OverrideFilter{Product: afrr.Neg, To: qh(8)}, []string{full.ID}},   // bare starts exactly at To
			{afrr.OverrideFilter{Product: afrr.Neg, From: qh(7), To: qh(9)}, []string{full.ID, bare.ID}},
			{afrr.OverrideFilter{From: qh(9), To: qh(10)}, []string{pos.ID}},
			{afrr.OverrideFilter{From: qh(96)}, []string{}},
		} {
			l, err := s.Overrides(ctx, assetAcme, "a1", tc.f)
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, o := range l {
				ids = append(ids, o.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(tc.want) {
				t.Errorf("filter %+v: %v, want %v", tc.f, ids, tc.want)
			}
		}

		// Delete: check sees the override; its error keeps the row.
		refuse := errs.Conflictf("gate_closed", "closed")
		err = s.DeleteOverride(ctx, assetAcme, "a1", full.ID, func(o afrr.Override) error {
			if o.ID != full.ID || !o.Start.Equal(qh(4)) {
				t.Fatalf("check got %+v", o)
			}
			return refuse
		})
		if !errors.Is(err, refuse) {
			t.Fatalf("err %v", err)
		}
		if err := s.DeleteOverride(ctx, assetAcme, "a1", full.ID, func(afrr.Override) error { return nil }); err != nil {
			t.Fatal(err)
		}
		err = s.DeleteOverride(ctx, assetAcme, "a1", full.ID, func(afrr.Override) error { return nil })
		expectCode(t, err, errs.NotFound, "not_found")
		// The window is free again.
		if _, err := s.CreateOverride(ctx, assetAcme, physical("a1"), override("a1", afrr.Neg, 5, 6)); err != nil {
			t.Fatal(err)
		}
		// A deleted asset's overrides are gone with it.
		if err := b.Assets().Delete(ctx, assetAcme, "a1", testkit.Start, func(context.Context, assets.Asset) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if l, err := s.Overrides(ctx, assetAdmin, "a1", afrr.OverrideFilter{}); err != nil || len(l) != 0 {
			t.Fatalf("deleted asset's overrides %v, %v", l, err)
		}
		_, err = s.CreateOverride(ctx, assetAdmin, physical("a1"), override("a1", afrr.Neg, 50, 51))
		expectCode(t, err, errs.NotFound, "not_found")
	})
}

// Concurrent creations of overlapping overrides: exactly one wins.
func TestBackupOverrideOverlapUnderConcurrency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withBackupAssets(t, b)
		s := b.BackupMarket()
		const n = 12
		var wg sync.WaitGroup
		errsOut := make([]error, n)
		for i := range n {
			wg.Go(func() {
				// Every window overlaps every other: all contain block 10.
				_, errsOut[i] = s.CreateOverride(ctx, assetAcme, physical("a1"), override("a1", afrr.Pos, 10-i%3, 11+i%4))
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errsOut {
			switch {
			case err == nil:
				ok++
			case errs.Is(err, errs.Conflict):
			default:
				t.Fatal(err)
			}
		}
		l, err := s.Overrides(ctx, assetAcme, "a1", afrr.OverrideFilter{})
		if ok != 1 || err != nil || len(l) != 1 {
			t.Fatalf("%d succeeded, %d stored (%v)", ok, len(l), err)
		}
	})
}

func TestBackupDefaultStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withBackupAssets(t, b)
		s := b.BackupMarket()
		_, err := s.LatestDefault(ctx, assetAcme, "a1", afrr.Neg)
		expectCode(t, err, errs.NotFound, "no_default")

		put := func(v auth.Visibility, p afrr.Product, price string, cap *float64, from int) (afrr.Default, error) {
			return s.PutDefault(ctx, v, physical("a1"), afrr.Default{AssetID: "a1", Product: p, Price: decimal.RequireFromString(price),
				MaxCapacityMW: cap, EffectiveFrom: qh(from), UpdatedAt: qh(from).Add(-time.Minute)})
		}
		if _, err := put(assetAcme, afrr.Neg, "10", assetPtr(5.0), 1); err != nil {
			t.Fatal(err)
		}
		if _, err := put(assetAcme, afrr.Neg, "20.5", nil, 4); err != nil {
			t.Fatal(err)
		}
		if _, err := put(assetAcme, afrr.Neg, "30", assetPtr(0.0), 8); err != nil {
			t.Fatal(err)
		}
		if _, err := put(assetAcme, afrr.Pos, "-1.25", nil, 2); err != nil {
			t.Fatal(err)
		}
		_, err = put(assetBeta, afrr.Neg, "1", nil, 9)
		expectCode(t, err, errs.NotFound, "not_found")

		d, err := s.LatestDefault(ctx, assetAcme, "a1", afrr.Neg)
		if err != nil || !d.Price.Equal(decimal.NewFromInt(30)) || *d.MaxCapacityMW != 0 || !d.EffectiveFrom.Equal(qh(8)) ||
			d.EffectiveFrom.Location() != time.UTC || !d.UpdatedAt.Equal(qh(8).Add(-time.Minute)) || d.OrganizationID != "acme" {
			t.Fatalf("latest %+v, %v", d, err)
		}
		_, err = s.LatestDefault(ctx, assetBeta, "a1", afrr.Neg)
		expectCode(t, err, errs.NotFound, "no_default")

		versions := func(from, to int) string {
			t.Helper()
			l, err := s.DefaultVersions(ctx, assetAcme, "a1", afrr.Neg, calendar.Interval{Start: qh(from), End: qh(to)})
			if err != nil {
				t.Fatal(err)
			}
			out := ""
			for _, d := range l {
				out += d.Price.String() + "@" + fmt.Sprint(int(d.EffectiveFrom.Sub(testkit.Start)/(15*time.Minute))) + " "
			}
			return out
		}
		for _, tc := range []struct {
			from, to int
			want     string
		}{
			{0, 1, ""},
			{0, 2, "10@1 "},
			{1, 2, "10@1 "},
			{2, 4, "10@1 "},
			{3, 9, "10@1 20.5@4 30@8 "},
			{4, 5, "20.5@4 "},
			{5, 8, "20.5@4 "},
			{20, 30, "30@8 "},
		} {
			if got := versions(tc.from, tc.to); got != tc.want {
				t.Errorf("versions [%d, %d) = %q, want %q", tc.from, tc.to, got, tc.want)
			}
		}

		// A new version replaces those effective at or after it.
		if _, err := put(assetAcme, afrr.Neg, "40", nil, 4); err != nil {
			t.Fatal(err)
		}
		if got := versions(0, 96); got != "10@1 40@4 " {
			t.Fatalf("after replacing: %q", got)
		}
		if d, err := s.LatestDefault(ctx, assetAcme, "a1", afrr.Pos); err != nil || !d.Price.Equal(decimal.RequireFromString("-1.25")) || d.MaxCapacityMW != nil {
			t.Fatalf("pos %+v, %v", d, err)
		}
	})
}

// A virtual asset's overrides and defaults are stored under its own id,
// behind its parent's visibility and lock.
func TestBackupOnVirtualAsset(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withBackupAssets(t, b)
		s := b.BackupMarket()
		va := virtual("a1", "x")
		o, err := s.CreateOverride(ctx, assetAcme, va, override(va.ID, afrr.Pos, 4, 8))
		if err != nil || o.OrganizationID != "acme" || o.AssetID != "a1.x" {
			t.Fatalf("virtual override %+v, %v", o, err)
		}
		// The parent's and the sibling's windows are their own.
		if _, err := s.CreateOverride(ctx, assetAcme, physical("a1"), override("a1", afrr.Pos, 4, 8)); err != nil {
			t.Fatal(err)
		}
		_, err = s.CreateOverride(ctx, assetAcme, va, override(va.ID, afrr.Pos, 6, 9))
		expectCode(t, err, errs.Conflict, "override_overlaps")
		if l, err := s.Overrides(ctx, assetAcme, "a1.x", afrr.OverrideFilter{}); err != nil || len(l) != 1 || l[0].ID != o.ID {
			t.Fatalf("virtual overrides %v, %v", l, err)
		}
		// Another organisation cannot write behind acme's parent.
		_, err = s.CreateOverride(ctx, assetBeta, va, override(va.ID, afrr.Neg, 4, 8))
		expectCode(t, err, errs.NotFound, "not_found")
		d, err := s.PutDefault(ctx, assetAcme, va, afrr.Default{AssetID: va.ID, Product: afrr.Neg, Price: decimal.RequireFromString("12.5"),
			EffectiveFrom: qh(4), UpdatedAt: testkit.Start})
		if err != nil || d.OrganizationID != "acme" {
			t.Fatalf("virtual default %+v, %v", d, err)
		}
		if got, err := s.LatestDefault(ctx, assetAcme, "a1.x", afrr.Neg); err != nil || !got.Price.Equal(d.Price) {
			t.Fatalf("latest virtual default %+v, %v", got, err)
		}
		if _, err := s.LatestDefault(ctx, assetAcme, "a1", afrr.Neg); !errs.Is(err, errs.NotFound) {
			t.Fatalf("the parent has no default: %v", err)
		}
	})
}
