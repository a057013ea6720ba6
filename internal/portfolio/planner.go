package portfolio

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/pools"
	"atcp/internal/restrictions"
	"atcp/internal/telemetry"
	"atcp/internal/worker"
)

// PoolDef is a pool's definition as the planner needs it.
type PoolDef struct {
	OrganizationID    string
	ID                string
	AssetIDs          []string
	Collateralisation bool
}

// PoolsOf gives the planner every organisation's pools from the pools
// store.
func PoolsOf(s interface {
	All(ctx context.Context) ([]pools.Pool, error)
}) Pools {
	return poolsOf{s}
}

type poolsOf struct {
	s interface {
		All(ctx context.Context) ([]pools.Pool, error)
	}
}

func (p poolsOf) All(ctx context.Context) ([]PoolDef, error) {
	list, err := p.s.All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]PoolDef, len(list))
	for i, pool := range list {
		out[i] = PoolDef{OrganizationID: pool.OrganizationID, ID: pool.ID, AssetIDs: pool.AssetIDs,
			Collateralisation: pool.AllowInternalCollateralisation}
	}
	return out, nil
}

// The planner's inputs, each another area's.
type (
	// Fleet lists every asset (assets.Service).
	Fleet interface {
		List(ctx context.Context, v auth.Visibility) ([]assets.Asset, error)
	}
	// Pools lists every organisation's pools.
	Pools interface {
		All(ctx context.Context) ([]PoolDef, error)
	}
	// Awards reads the bids covering an instant (bids.Store).
	Awards interface {
		Covering(ctx context.Context, market bids.Market, status bids.Status, at time.Time) ([]bids.Bid, error)
	}
	// Restrictions reads every asset's active intervals (restrictions.Store).
	Restrictions interface {
		ActiveAt(ctx context.Context, t time.Time) ([]restrictions.Interval, error)
	}
	// Latest reads the latest measurements (telemetry.Store).
	Latest interface {
		LatestMany(ctx context.Context, assetIDs []string) ([]telemetry.Snapshot, error)
	}
	// Offers resolves backup offers per quarter-hour (afrr.BackupService).
	Offers interface {
		Offers(ctx context.Context, v auth.Visibility, assetID string, p afrr.Product, w calendar.Interval) ([]afrr.Offer, error)
	}
)

// PlannerOptions configure a Planner; every field but Logger is required.
type PlannerOptions struct {
	Fleet        Fleet
	Pools        Pools
	Awards       Awards
	Restrictions Restrictions
	Latest       Latest
	Offers       Offers
	Store        Store
	// StaleAfter is how old (platform time) an asset's latest
	// measurements may be before its adapter counts as offline.
	StaleAfter time.Duration
	// Every is how often the plan is made again; it divides 15 minutes,
	// so that every quarter-hour is planned at its start.
	Every  time.Duration
	Logger *slog.Logger
}

// Planner is the background job that keeps the cover steps in line with
// the fleet: at each run it assesses every asset holding an award and
// every pool member, plans the covers of each pool (Plan) and records what
// changed since the steps in force (Diff).
type Planner struct{ o PlannerOptions }

// NewPlanner checks the options.
func NewPlanner(o PlannerOptions) (*Planner, error) {
	if o.Fleet == nil || o.Pools == nil || o.Awards == nil || o.Restrictions == nil || o.Latest == nil || o.Offers == nil || o.Store == nil {
		return nil, fmt.Errorf("portfolio: planner options incomplete")
	}
	if o.Every <= 0 || calendar.PeriodLength%o.Every != 0 || o.StaleAfter <= 0 {
		return nil, fmt.Errorf("portfolio: planner period %s must divide 15 minutes and staleness %s be positive", o.Every, o.StaleAfter)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Planner{o: o}, nil
}

// Jobs is the planner's background job.
func (p *Planner) Jobs() []worker.Job {
	return []worker.Job{{Name: "portfolio.cover", Every: p.o.Every, Run: p.Run}}
}

// Run plans the covers at due and records the changes.
func (p *Planner) Run(ctx context.Context, due time.Time) error {
	planned, org, err := p.plan(ctx, due)
	if err != nil {
		return err
	}
	open, err := p.o.Store.OpenAt(ctx, due)
	if err != nil {
		return err
	}
	closing, opening := Diff(open, planned)
	if len(closing) == 0 && len(opening) == 0 {
		return nil
	}
	qh := due.Truncate(calendar.PeriodLength)
	steps := make([]Step, len(opening))
	for i, a := range opening {
		o := org[a.Failing]
		steps[i] = Step{ID: uuid.NewString(), OrganizationID: o.organization, PoolID: o.pool, QuarterHour: qh, Assignment: a,
			From: due, To: qh.Add(calendar.PeriodLength), CreatedAt: due}
	}
	if err := p.o.Store.Supersede(ctx, due, closing, steps); err != nil {
		return err
	}
	p.o.Logger.Info("portfolio: covers changed", "at", due, "ended", len(closing), "began", len(steps))
	return nil
}

// owner is where a failing asset's steps are filed.
type owner struct{ organization, pool string }

// plan assesses the fleet at t and plans every pool's covers, with the
// organisation and pool of each failing asset.
func (p *Planner) plan(ctx context.Context, t time.Time) ([]Assignment, map[string]owner, error) {
	all := auth.Visibility{All: true}
	fleet, err := p.o.Fleet.List(ctx, all)
	if err != nil {
		return nil, nil, fmt.Errorf("portfolio: assets: %w", err)
	}
	byID := make(map[string]assets.Asset, len(fleet))
	for _, a := range fleet {
		byID[a.ID] = a
	}
	obligations, err := p.obligations(ctx, t, byID)
	if err != nil {
		return nil, nil, err
	}
	defs, err := p.o.Pools.All(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("portfolio: pools: %w", err)
	}
	// Every pool member and every other asset holding an award; the
	// latter alone, in a pool of one, where nobody covers it.
	var pools []Pool
	pooled := map[string]string{}
	for _, d := range defs {
		pool := Pool{OrganizationID: d.OrganizationID, ID: d.ID, Collateralisation: d.Collateralisation}
		for _, id := range d.AssetIDs {
			if a, ok := byID[id]; ok && !a.IsVirtual() {
				pool.Members = append(pool.Members, Member{AssetID: id})
				pooled[id] = d.ID
			}
		}
		pools = append(pools, pool)
	}
	for id := range obligations {
		if _, ok := pooled[id]; !ok {
			pools = append(pools, Pool{OrganizationID: byID[id].OrganizationID, Members: []Member{{AssetID: id}}})
		}
	}
	var ids []string
	for _, pool := range pools {
		for _, m := range pool.Members {
			ids = append(ids, m.AssetID)
		}
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	conditions, err := p.conditions(ctx, t, ids, byID)
	if err != nil {
		return nil, nil, err
	}
	qh := calendar.Interval{Start: t.Truncate(calendar.PeriodLength), End: t.Truncate(calendar.PeriodLength).Add(calendar.PeriodLength)}
	var planned []Assignment
	owners := map[string]owner{}
	for _, pool := range pools {
		for i := range pool.Members {
			m := &pool.Members[i]
			a := byID[m.AssetID]
			m.Obligation = obligations[m.AssetID]
			m.DischargeMW, m.ChargeMW = conditions[m.AssetID].Deliverable()
			m.Prequalified = Obligation{FCR: a.FCRPrequalifiedMW, Pos: a.AFRRPrequalifiedPosMW, Neg: a.AFRRPrequalifiedNegMW}
			// Only a live battery the platform steers can execute a
			// cover.
			steerable := a.BESSControl() && a.OperationalStatus == assets.Live
			m.FCREnabled, m.AFRREnabled = steerable && a.FCREnabled, steerable && a.AFRREnabled
			owners[m.AssetID] = owner{pool.OrganizationID, pool.ID}
		}
		if !Shortfalls(pool) {
			continue
		}
		if pool.ID != "" {
			if err := p.offers(ctx, &pool, qh); err != nil {
				return nil, nil, err
			}
		}
		planned = append(planned, Plan(pool)...)
	}
	return planned, owners, nil
}

// obligations sums the awards in force at t per physical asset (a
// virtual asset's award is its battery's).
func (p *Planner) obligations(ctx context.Context, t time.Time, byID map[string]assets.Asset) (map[string]Obligation, error) {
	out := map[string]Obligation{}
	for _, market := range []bids.Market{bids.FCR, bids.AFRRCapacity} {
		awards, err := p.o.Awards.Covering(ctx, market, bids.Successful, t)
		if err != nil {
			return nil, fmt.Errorf("portfolio: %s awards: %w", market, err)
		}
		for _, b := range awards {
			a, ok := byID[b.AssetID]
			if !ok {
				continue
			}
			id := a.PhysicalID()
			ob := out[id]
			switch {
			case market == bids.FCR:
				ob.add(FCR, b.CommittedMW())
			case b.Product == bids.Pos:
				ob.add(AFRRPos, b.CommittedMW())
			default:
				ob.add(AFRRNeg, b.CommittedMW())
			}
			out[id] = ob
		}
	}
	return out, nil
}

// conditions gathers what decides each asset's deliverable power at t.
func (p *Planner) conditions(ctx context.Context, t time.Time, ids []string, byID map[string]assets.Asset) (map[string]Condition, error) {
	out := make(map[string]Condition, len(ids))
	for _, id := range ids {
		out[id] = Condition{RatedMW: ratedMW(byID[id]), Offline: true}
	}
	active, err := p.o.Restrictions.ActiveAt(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("portfolio: restrictions: %w", err)
	}
	for _, iv := range active {
		c, ok := out[iv.AssetID]
		if !ok || !iv.ActiveAt(t) {
			continue
		}
		if iv.Full() {
			c.Unavailable = true
		}
		if iv.Kind == restrictions.PowerLimit {
			if iv.Upper != nil {
				c.MaxDischargeMW = iv.Upper
			}
			if iv.Lower != nil {
				charge := -*iv.Lower
				c.MaxChargeMW = &charge
			}
		}
		out[iv.AssetID] = c
	}
	snaps, err := p.o.Latest.LatestMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("portfolio: latest measurements: %w", err)
	}
	explained, err := p.restrictedWhenMeasured(ctx, snaps)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		c, ok := out[s.AssetID]
		if !ok {
			continue
		}
		m := s.Measurements
		c.Offline = t.Sub(m.Timestamp) > p.o.StaleAfter || m.AssetStatus == 0 && !explained[s.AssetID]
		discharge, charge := m.AvailableDischargeEnergy, m.AvailableChargeEnergy
		c.DischargeEnergyMWh, c.ChargeEnergyMWh = &discharge, &charge
		out[s.AssetID] = c
	}
	return out, nil
}

// restrictedWhenMeasured names the assets whose latest snapshot reports
// asset_status 0 while a full restriction set through the API was in
// force at the snapshot's instant: the status is then the restriction's
// (the battery is told it is unavailable), which the restrictions in force
// now already decide, and not the adapter's. Without this, a snapshot
// taken a second before a restriction ended would keep the asset failing
// until the next run. The snapshots of one control-loop second share
// their instant, so this is one read per instant.
func (p *Planner) restrictedWhenMeasured(ctx context.Context, snaps []telemetry.Snapshot) (map[string]bool, error) {
	out := map[string]bool{}
	read := map[time.Time]map[string]bool{}
	for _, s := range snaps {
		if s.Measurements.AssetStatus != 0 {
			continue
		}
		at := s.Measurements.Timestamp
		full, ok := read[at]
		if !ok {
			active, err := p.o.Restrictions.ActiveAt(ctx, at)
			if err != nil {
				return nil, fmt.Errorf("portfolio: restrictions: %w", err)
			}
			full = map[string]bool{}
			for _, iv := range active {
				if iv.ActiveAt(at) && iv.Full() {
					full[iv.AssetID] = true
				}
			}
			read[at] = full
		}
		out[s.AssetID] = full[s.AssetID]
	}
	return out, nil
}

// ratedMW is the most power an asset can move either way: its usable
// power capacity, no more than its grid connection; without a recorded
// capacity, its largest prequalified capacity (what the TSO accepted it
// can deliver).
func ratedMW(a assets.Asset) float64 {
	rated := max(a.FCRPrequalifiedMW, a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW)
	if a.UsablePowerCapacityMW != nil {
		rated = *a.UsablePowerCapacityMW
	}
	if g := a.GridConnectionPowerMW; g != nil && *g > 0 && *g < rated {
		rated = *g
	}
	return rated
}

// offers reads the backup offers of the members that could cover, for
// the quarter-hour qh; only pools with a shortfall get here.
func (p *Planner) offers(ctx context.Context, pool *Pool, qh calendar.Interval) error {
	all := auth.Visibility{All: true}
	for i := range pool.Members {
		m := &pool.Members[i]
		m.Offers = map[Product]Offer{}
		for _, prod := range Products {
			if prod == FCR && (!pool.Collateralisation || !m.FCREnabled) || prod != FCR && !m.AFRREnabled {
				continue
			}
			list, err := p.o.Offers.Offers(ctx, all, m.AssetID, backupProduct(prod), qh)
			if err != nil {
				return fmt.Errorf("portfolio: backup offers of %s: %w", m.AssetID, err)
			}
			if len(list) != 1 {
				return fmt.Errorf("portfolio: %d backup offers of %s for one quarter-hour", len(list), m.AssetID)
			}
			o := list[0]
			m.Offers[prod] = Offer{Price: o.Price, CapMW: o.MaxCapacityMW, PriceSource: string(o.PriceSource)}
		}
	}
	return nil
}

// backupProduct is the backup-market product that covers prod.
func backupProduct(prod Product) afrr.Product {
	switch prod {
	case FCR:
		return afrr.NA
	case AFRRPos:
		return afrr.Pos
	}
	return afrr.Neg
}
