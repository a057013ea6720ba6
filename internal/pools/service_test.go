package pools_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/pools"
	"atcp/internal/restrictions"
	"atcp/internal/telemetry"
)

type fakeOrgs map[string]bool

func (f fakeOrgs) Organization(_ context.Context, id string) (identity.Organization, error) {
	if !f[id] {
		return identity.Organization{}, errs.NotFoundf("no organisation %q", id)
	}
	return identity.Organization{ID: id}, nil
}

func TestTarget(t *testing.T) {
	svc := pools.NewService(pools.Deps{Organizations: fakeOrgs{"acme": true, "beta": true, auth.PlatformOrganization: true}})
	ctx := context.Background()
	acme := &auth.Principal{OrganizationID: "acme"}
	admin := &auth.Principal{OrganizationID: auth.PlatformOrganization}
	for _, c := range []struct {
		name   string
		p      *auth.Principal
		named  string
		want   string // the organisation, or "" for a refusal
		reason string
	}{
		{"own by default", acme, "", "acme", ""},
		{"own named", acme, "acme", "acme", ""},
		{"another organisation", acme, "beta", "", "your own organisation"},
		{"an unknown one: the same answer", acme, "nobody", "", "your own organisation"},
		{"an administrator's own by default", admin, "", auth.PlatformOrganization, ""},
		{"an administrator names any", admin, "beta", "beta", ""},
		{"an administrator names an unknown one", admin, "nobody", "", "not a registered organisation"},
		{"no caller", nil, "acme", "", "without a caller"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := svc.Target(ctx, c.p, c.named)
			if c.want != "" {
				if err != nil || got.OrganizationID() != c.want {
					t.Fatalf("%q, %v; want %q", got.OrganizationID(), err, c.want)
				}
				return
			}
			var e *errs.Error
			if !errors.As(err, &e) || e.Kind != errs.Invalid || e.Code != "organization_not_accessible" || len(e.Fields) != 1 ||
				e.Fields[0].Location != "organization_id" || e.Fields[0].Value != c.named {
				t.Fatalf("%#v", err)
			}
			if !strings.Contains(e.Message, c.reason) {
				t.Fatalf("%q does not say %q", e.Message, c.reason)
			}
		})
	}
}

// stateFakes stand in for everything the pool state reads.
type stateFakes struct {
	pool     pools.Pool
	assets   map[string]assets.Asset
	latest   []telemetry.Snapshot
	covering map[bids.Market][]bids.Bid
	active   []restrictions.Interval
	asked    map[string]time.Time // the instant each dependency was asked about
}

func (f *stateFakes) Get(_ context.Context, org, id string) (pools.Pool, error) {
	if org != f.pool.OrganizationID || id != f.pool.ID {
		return pools.Pool{}, errs.NotFoundf("none")
	}
	return f.pool, nil
}

func (f *stateFakes) asset(_ context.Context, v auth.Visibility, id string) (assets.Asset, error) {
	a, ok := f.assets[id]
	if !ok || !v.Allows(a.OrganizationID) {
		return assets.Asset{}, errs.NotFoundf("asset %q not found", id)
	}
	return a, nil
}

type fakeAssets struct{ f *stateFakes }

func (a fakeAssets) Get(ctx context.Context, v auth.Visibility, id string) (assets.Asset, error) {
	return a.f.asset(ctx, v, id)
}

func (f *stateFakes) LatestMany(_ context.Context, ids []string) ([]telemetry.Snapshot, error) {
	return f.latest, nil
}

func (f *stateFakes) Covering(_ context.Context, m bids.Market, st bids.Status, at time.Time) ([]bids.Bid, error) {
	if st != bids.Successful {
		return nil, errors.New("only SUCCESSFUL bids hold capacity")
	}
	f.asked[string(m)] = at
	return f.covering[m], nil
}

func (f *stateFakes) ActiveAt(_ context.Context, at time.Time) ([]restrictions.Interval, error) {
	f.asked["restrictions"] = at
	return f.active, nil
}

// stateStore is the pool store of the state test: only Get is read.
type stateStore struct {
	pools.Store
	f *stateFakes
}

func (s stateStore) Get(ctx context.Context, org, id string) (pools.Pool, error) {
	return s.f.Get(ctx, org, id)
}

func TestState(t *testing.T) {
	now := time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC) // 02:30 CET, the second 02:30 of the day
	parent := "bess-1"
	physical := func(id, org string) assets.Asset { return assets.NewAsset(id, org, id, "Kiel", assets.Standalone) }
	virtual := physical("bess-1.a", "acme")
	virtual.ParentAssetID = &parent
	f := &stateFakes{
		pool: pools.Pool{OrganizationID: "acme", ID: "nord", AssetIDs: []string{"bess-1", "bess-2", "bess-3"}},
		assets: map[string]assets.Asset{"bess-1": physical("bess-1", "acme"), "bess-1.a": virtual,
			"bess-1.b": physical("bess-1.b", "acme"), "bess-2": physical("bess-2", "acme"), "bess-3": physical("bess-3", "acme")},
		latest: []telemetry.Snapshot{
			{AssetID: "bess-1", Measurements: telemetry.Measurements{Timestamp: now.Add(-time.Second), AssetStatus: 1, BatteryPowerActualAC: 3, FCRPowerActual: 0.5}},
			{AssetID: "bess-2", Measurements: telemetry.Measurements{Timestamp: now, AssetStatus: 1, BatteryPowerActualAC: -1, AFRRSetpoint: 2}},
		},
		covering: map[bids.Market][]bids.Bid{
			bids.FCR: {
				{OrganizationID: "acme", AssetID: "bess-1", Product: bids.Sym, Status: bids.Successful, OfferedMW: 5, AwardedMW: ptr(4.0)},
				// A virtual asset's award is its parent battery's.
				{OrganizationID: "acme", AssetID: "bess-1.a", Product: bids.Sym, Status: bids.Successful, OfferedMW: 1},
				// A physical asset named like a segment of bess-1 is not in the pool.
				{OrganizationID: "acme", AssetID: "bess-1.b", Product: bids.Sym, Status: bids.Successful, OfferedMW: 7},
				// Another organisation's asset of the same id is not the member.
				{OrganizationID: "beta", AssetID: "bess-2", Product: bids.Sym, Status: bids.Successful, OfferedMW: 9},
				{OrganizationID: "acme", AssetID: "other", Product: bids.Sym, Status: bids.Successful, OfferedMW: 9},
			},
			bids.AFRRCapacity: {
				{OrganizationID: "acme", AssetID: "bess-2", Product: bids.Pos, Status: bids.Successful, OfferedMW: 2},
				{OrganizationID: "acme", AssetID: "bess-2", Product: bids.Neg, Status: bids.Successful, OfferedMW: 3, AwardedMW: ptr(2.5)},
			},
		},
		// bess-2 is fully unavailable; bess-1 only limited; another
		// organisation's asset of a member's id is no member.
		active: []restrictions.Interval{
			{Kind: restrictions.Unavailability, OrganizationID: "acme", AssetID: "bess-2", Start: now.Add(-time.Hour)},
			{Kind: restrictions.PowerLimit, OrganizationID: "acme", AssetID: "bess-1", Start: now.Add(-time.Hour), Upper: ptr(1.0), Lower: ptr(-1.0)},
			{Kind: restrictions.Unavailability, OrganizationID: "beta", AssetID: "bess-1", Start: now.Add(-time.Hour)},
		},
		asked: map[string]time.Time{},
	}
	svc := pools.NewService(pools.Deps{Store: stateStore{f: f}, Assets: fakeAssets{f}, Latest: f, Reservations: f, Restrictions: f,
		Clock: clock.NewManual(now), StaleAfter: 5 * time.Second, Organizations: fakeOrgs{"acme": true}})
	acme, err := svc.Target(context.Background(), &auth.Principal{OrganizationID: "acme"}, "")
	if err != nil {
		t.Fatal(err)
	}
	st, err := svc.State(context.Background(), acme, "nord")
	if err != nil {
		t.Fatal(err)
	}
	if st.PoolID != "nord" || !st.AsOf.Equal(now) || st.PoolStatus || !st.FCRPoolStatus || st.AFRRPoolStatus {
		t.Fatalf("flags %+v", st)
	}
	if st.FCRReservationPos != 5 || st.FCRReservationNeg != 5 || st.AFRRReservationPos != 2 || st.AFRRReservationNeg != 2.5 ||
		st.PowerActualAC != 2 || st.FCRPowerActual != 0.5 || st.AFRRSetpoint != 2 {
		t.Fatalf("sums %+v", st)
	}
	if m := st.Members; len(m) != 3 || !m[0].Available || m[1].Available || m[2].MeasuredAt != nil || m[0].FCRReservation != 5 {
		t.Fatalf("members %+v", m)
	}
	for what, at := range f.asked {
		if !at.Equal(now) {
			t.Errorf("%s asked at %v", what, at)
		}
	}
	if len(f.asked) != 3 {
		t.Errorf("asked %v", f.asked)
	}
	if _, err := svc.State(context.Background(), acme, "sued"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("unknown pool: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
