package control

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/dispatch"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/portfolio"
	"atcp/internal/restrictions"
	"atcp/internal/telemetry"
	"atcp/internal/worker"
)

// Recorder takes the measured snapshots (telemetry history and latest
// state). Record may buffer; Flush writes what it holds; Forget drops it
// unwritten (another instance recorded those seconds).
type Recorder interface {
	Record(ctx context.Context, snapshots []telemetry.Snapshot) error
	Flush(ctx context.Context) error
	Forget()
}

// LatestReader reads an asset's latest stored snapshot (errs.NotFound
// when it never reported): where a battery resumes after a restart or a
// failover.
type LatestReader interface {
	Latest(ctx context.Context, assetID string) (telemetry.Snapshot, error)
}

// ActiveRestrictions reads every asset's active intervals
// (restrictions.Store).
type ActiveRestrictions interface {
	ActiveAt(ctx context.Context, t time.Time) ([]restrictions.Interval, error)
}

// Curtailments records DSO curtailments (*restrictions.Service).
type Curtailments interface {
	OpenCurtailment(ctx context.Context, assetID string, at time.Time, maxMW, minMW float64) (restrictions.Curtailment, error)
	CloseCurtailment(ctx context.Context, assetID string, at time.Time) (restrictions.Curtailment, error)
}

// Awards reads the bids covering an instant (bids.Store).
type Awards interface {
	Covering(ctx context.Context, market bids.Market, status bids.Status, at time.Time) ([]bids.Bid, error)
}

// Covers reads the pool cover steps in force (portfolio.Store): a
// member covering another's obligation holds it, and delivers its share of
// the activation, for as long as the step lasts.
type Covers interface {
	OpenAt(ctx context.Context, t time.Time) ([]portfolio.Step, error)
}

// Options configure a Loop. Every field but Logger and Registerer is
// required; FCRBuffer 0 is dispatch.DefaultFCRBuffer. Adapters are keyed
// by adapter name (assets.AdapterSimulator, ...): an asset whose adapter is not
// among them is not steered.
type Options struct {
	Assets       Fleet
	Adapters     map[string]Adapter
	Plan         dispatch.Plan
	Restrictions ActiveRestrictions
	Curtailments Curtailments
	Bids         Awards
	Activations  Activations
	Covers       Covers
	Recorder     Recorder
	Latest       LatestReader
	FCRBuffer    float64
	// AFRREvents takes the aFRR dispatch events of every finished
	// quarter-hour; nil records none.
	AFRREvents DispatchEvents
	Logger     *slog.Logger
	Registerer prometheus.Registerer
}

// Timing of the loop (platform-clock time).
const (
	// MaxCatchUp is the most seconds one run processes one by one; older
	// seconds are crossed in one Advance (the simulator steps longer) and
	// their schedule events are reported failed.
	MaxCatchUp = 300 * time.Second
	// assetRefresh is how often the asset list is read again.
	assetRefresh = 10 * time.Second
	// slowRefresh is how often awards and the next block's targets are
	// read again within a quarter-hour (they change at clearing and until
	// the schedule's gate).
	slowRefresh = time.Minute
	// coverRefresh is how often the pool covers in force are read again:
	// the planner records a cover when it sees the failure, and the loop
	// takes it up within this; in the first coverHandover of a
	// quarter-hour, when the planner records the new quarter-hour's
	// covers, every second.
	coverRefresh  = 10 * time.Second
	coverHandover = 30 * time.Second
	// maxUnrecorded bounds the outcomes kept for a retry while the
	// dispatch store refuses them.
	maxUnrecorded = 100_000
)

// unit is the loop's state of one controlled asset.
type unit struct {
	asset     assets.Asset
	adapter   string // its adapter's name
	ad        Adapter
	ratedMW   float64 // usable power capacity
	gridMW    float64 // grid connection power, 0 when not recorded
	target    Target
	control   bool       // a command of ours is in force (not yet handed back)
	curtailed bool       // a curtailment record is open
	bounds    [2]float64 // its max_curtailment and min_curtailment
	// energy is what the asset last measured it can still deliver and
	// absorb (MWh), for the FCR reserve band (Inputs.ReserveBand).
	energy      [2]float64
	energyKnown bool
	// afrr accumulates the quarter-hour's aFRR dispatch per direction;
	// afrrDir is the direction asked for in the current second (-1: none).
	afrr    [2]afrrAcc
	afrrDir int
}

// measured keeps what the FCR reserve band needs of m.
func (u *unit) measured(m *telemetry.Measurements) {
	u.energy, u.energyKnown = [2]float64{m.AvailableDischargeEnergy, m.AvailableChargeEnergy}, true
}

// set takes a's registration.
func (u *unit) set(a assets.Asset) {
	u.asset = a
	u.ratedMW, u.gridMW = 0, 0
	if a.UsablePowerCapacityMW != nil {
		u.ratedMW = *a.UsablePowerCapacityMW
	}
	if a.GridConnectionPowerMW != nil {
		u.gridMW = *a.GridConnectionPowerMW
	}
}

// resume takes the curtailment record state from the asset's latest
// stored measurements: a curtailment they show was recorded by whoever
// took them.
func (u *unit) resume(last *telemetry.Measurements) {
	if last == nil {
		return
	}
	u.curtailed = curtailed(*last)
	u.measured(last)
	u.bounds[0], u.bounds[1] = curtailmentBounds(u.connectionMW(), *last)
}

// awardCache holds the slower inputs of one quarter-hour.
type awardCache struct {
	period    time.Time // start of the quarter-hour they were read for
	readAt    time.Time
	fcr       map[string]float64
	afrrPos   map[string]float64
	afrrNeg   map[string]float64
	activated map[string]float64 // signed average aFRR activation (MW)
	// ownPos and ownNeg are the two directions of the activation of each
	// battery's own bids (neg negative), before covers: both may be
	// activated in one quarter-hour, and a cover moves a share of one.
	ownPos, ownNeg map[string]float64
	// coveredIn is the activation (signed MW) pool covers moved to each
	// battery, part of activated.
	coveredIn map[string]float64
	capacity  []bids.Bid         // the SUCCESSFUL aFRR capacity awards, for their prices
	next      map[string]float64 // targets at the next block start
}

// Loop is the control loop. Its job runs one run at a time.
type Loop struct {
	o   Options
	log *slog.Logger

	adapters []string // sorted names of o.Adapters

	mu          sync.Mutex
	units       map[string]*unit
	ids         []string          // sorted keys of units
	parent      map[string]string // virtual asset id -> physical id
	unrouted    map[string]string // asset id -> the unconfigured adapter it names (warned once)
	last        time.Time         // the last second processed; zero before the first run
	needRestore bool
	unrecorded  []dispatch.Outcome // outcomes a failed RecordOutcomes left to retry
	assetsAt    time.Time
	awards      awardCache // as read
	inForce     awardCache // awards with the pool covers in force applied
	coversAt    time.Time
	afrrSlot    time.Time // the quarter-hour the aFRR accumulation is of

	tick       prometheus.Histogram
	assetGauge prometheus.Gauge
	outcomes   *prometheus.CounterVec
}

// New checks the options and registers the metrics.
func New(o Options) (*Loop, error) {
	switch {
	case o.Assets == nil, len(o.Adapters) == 0, o.Plan == nil, o.Restrictions == nil, o.Curtailments == nil,
		o.Bids == nil, o.Activations == nil, o.Covers == nil, o.Recorder == nil, o.Latest == nil:
		return nil, errors.New("control: missing option")
	}
	o.Adapters = maps.Clone(o.Adapters) // the caller's map may change; the loop's routes may not
	names := make([]string, 0, len(o.Adapters))
	for name, ad := range o.Adapters {
		if ad == nil {
			return nil, fmt.Errorf("control: adapter %q is nil", name)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	if o.FCRBuffer == 0 {
		o.FCRBuffer = dispatch.DefaultFCRBuffer
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	l := &Loop{o: o, log: o.Logger, adapters: names, units: map[string]*unit{}, parent: map[string]string{},
		unrouted: map[string]string{}}
	l.tick = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "atcp_control_tick_seconds", Help: "Real time one control-loop second takes for every asset.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
	})
	l.assetGauge = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "atcp_control_assets", Help: "Assets the control loop steers through their adapters.",
	})
	l.outcomes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "atcp_control_schedule_outcomes_total", Help: "Schedule targets executed by the control loop, by status.",
	}, []string{"status"})
	if o.Registerer != nil {
		for _, c := range []prometheus.Collector{l.tick, l.assetGauge, l.outcomes} {
			if err := o.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("control: register metric: %w", err)
			}
		}
	}
	return l, nil
}

// Jobs is the loop's background job: "control", every second.
func (l *Loop) Jobs() []worker.Job {
	return []worker.Job{{Name: "control", Every: time.Second, Run: l.Run, Release: l.Flush}}
}

// Flush writes what the recorder buffers: the job's Release, so at
// shutdown before the lease is given up (a run that loses its lease
// flushes by itself).
func (l *Loop) Flush(ctx context.Context) error { return l.o.Recorder.Flush(ctx) }

// Run processes every whole second after the last one processed up to
// due (see the package comment and docs/control.md).
func (l *Loop) Run(ctx context.Context, due time.Time) (err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	due = due.Truncate(time.Second)
	var outcomes []dispatch.Outcome
	defer func() {
		// The outcomes of the seconds processed are reported even when a
		// later second failed; the lease lost or shutdown ends with a flush
		// and a restore on the next run (another instance may step the
		// simulated batteries meanwhile).
		bg := context.WithoutCancel(ctx)
		if rerr := l.recordOutcomes(bg, outcomes); rerr != nil {
			err = errors.Join(err, fmt.Errorf("control: record outcomes: %w", rerr))
		}
		if ctx.Err() != nil {
			l.needRestore = true
			if ferr := l.o.Recorder.Flush(bg); ferr != nil {
				err = errors.Join(err, fmt.Errorf("control: flush: %w", ferr))
			}
		}
	}()

	if l.last.IsZero() {
		start := due.Add(-time.Second)
		if err := l.refreshAssets(ctx, start); err != nil {
			return err
		}
		if err := l.loadTargets(ctx, start); err != nil {
			return err
		}
		l.last = start
	} else if err := l.detectGap(ctx, due); err != nil {
		return err
	}
	if !due.After(l.last) {
		return nil
	}
	if due.Sub(l.last) > MaxCatchUp {
		if outcomes, err = l.skip(ctx, due.Add(-MaxCatchUp)); err != nil {
			return err
		}
	}
	events, err := l.o.Plan.EventsBetween(ctx, l.last, due)
	if err != nil {
		return fmt.Errorf("control: schedule events: %w", err)
	}
	for t := l.last.Add(time.Second); !t.After(due); t = t.Add(time.Second) {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := 0
		for n < len(events) && !events[n].SetTime.After(t) {
			n++
		}
		o, err := l.second(ctx, t, events[:n])
		outcomes = append(outcomes, o...)
		if err != nil {
			return err
		}
		events = events[n:]
		l.last = t
	}
	return nil
}

// recordOutcomes reports the outcomes of a run together with those an
// earlier run could not report: the seconds they belong to are done and
// will not be processed again, so a failed write is retried with the next
// run's instead of being lost (RecordOutcomes is idempotent). At most
// maxUnrecorded wait; beyond that the oldest are dropped.
func (l *Loop) recordOutcomes(ctx context.Context, outcomes []dispatch.Outcome) error {
	all := append(l.unrecorded, outcomes...)
	if len(all) == 0 {
		return nil
	}
	err := l.o.Plan.RecordOutcomes(ctx, all)
	if err == nil {
		l.unrecorded = nil
		return nil
	}
	if drop := len(all) - maxUnrecorded; drop > 0 {
		l.log.Error("control: schedule outcomes dropped", "count", drop)
		all = all[drop:]
	}
	l.unrecorded = all
	return err
}

// detectGap restores the batteries when another instance stepped them
// since this one's last run (a lease that moved): one snapshot probe per
// run that is not the next second.
func (l *Loop) detectGap(ctx context.Context, due time.Time) error {
	if !l.needRestore && (due.Sub(l.last) <= time.Second || len(l.ids) == 0) {
		return nil
	}
	if !l.needRestore {
		s, err := l.o.Latest.Latest(ctx, l.ids[0])
		switch {
		case errs.Is(err, errs.NotFound):
			return nil
		case err != nil:
			return fmt.Errorf("control: latest snapshot: %w", err)
		case !s.Measurements.Timestamp.After(l.last):
			return nil
		}
	}
	// What this instance still buffers is older than what the other one
	// stored; writing it would overwrite those points.
	l.o.Recorder.Forget()
	newest := l.last
	for _, id := range l.ids {
		u := l.units[id]
		last, err := l.latest(ctx, id)
		if err != nil {
			return err
		}
		if last == nil || !last.Timestamp.After(l.last) {
			continue
		}
		if err := u.ad.Attach(ctx, u.asset, last, l.last); err != nil {
			return fmt.Errorf("control: resume %s: %w", id, err)
		}
		u.resume(last)
		if last.Timestamp.After(newest) {
			newest = last.Timestamp
		}
	}
	// Resume after the seconds the other instance already recorded.
	if last := due.Add(-time.Second); newest.After(last) {
		newest = last
	}
	l.last = newest
	l.needRestore = false
	return l.loadTargets(ctx, l.last)
}

// latest is the asset's latest stored measurements, nil when it never
// reported.
func (l *Loop) latest(ctx context.Context, assetID string) (*telemetry.Measurements, error) {
	s, err := l.o.Latest.Latest(ctx, assetID)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("control: latest snapshot of %s: %w", assetID, err)
	}
	return &s.Measurements, nil
}

// loadTargets sets every asset's target to the one in force at t.
func (l *Loop) loadTargets(ctx context.Context, t time.Time) error {
	events, err := l.o.Plan.CurrentEvents(ctx, t)
	if err != nil {
		return fmt.Errorf("control: current events: %w", err)
	}
	for _, u := range l.units {
		u.target = Target{}
	}
	for _, e := range events {
		if u, ok := l.units[e.AssetID]; ok {
			u.target = TargetOf(e)
		}
	}
	return nil
}

// skip crosses the seconds before from that a run cannot process one by
// one: the adapters advance there at once, the events in between are
// reported failed, and the targets in force at from apply.
func (l *Loop) skip(ctx context.Context, from time.Time) ([]dispatch.Outcome, error) {
	events, err := l.o.Plan.EventsBetween(ctx, l.last, from)
	if err != nil {
		return nil, fmt.Errorf("control: schedule events: %w", err)
	}
	out := make([]dispatch.Outcome, 0, len(events))
	for _, e := range events {
		out = append(out, outcome(e, 0, dispatch.Failed, ReasonSkipped, from))
		l.outcomes.WithLabelValues(string(dispatch.Failed)).Inc()
	}
	l.advance(ctx, from)
	l.last = from
	return out, l.loadTargets(ctx, from)
}

func outcome(e dispatch.Event, effective float64, status dispatch.Status, reason string, at time.Time) dispatch.Outcome {
	return dispatch.Outcome{
		OrganizationID: e.OrganizationID, AssetID: e.AssetID, SetTime: e.SetTime, DeliveryTime: e.DeliveryTime,
		ControlMode: e.ControlMode, RequestedPowerMW: e.BESSPowerMW, PoCPowerMW: e.PoCPowerMW,
		EffectivePowerMW: effective, Status: status, Reason: reason, EmittedAt: at,
	}
}

// refreshAssets brings the steered assets in line with the fleet at t:
// each physical asset is attached to its adapter (resuming from its
// stored snapshot when there is one), a changed registration is applied,
// an asset that moved to another adapter is detached from the old one
// first, a deleted one is detached. An asset whose adapter is not
// configured is not steered.
func (l *Loop) refreshAssets(ctx context.Context, t time.Time) error {
	list, err := l.o.Assets.List(ctx, auth.Visibility{All: true})
	if err != nil {
		return fmt.Errorf("control: list assets: %w", err)
	}
	seen := make(map[string]bool, len(list))
	clear(l.parent)
	var failed error
	for _, a := range list {
		if a.IsVirtual() {
			l.parent[a.ID] = a.PhysicalID()
			continue
		}
		seen[a.ID] = true
		name := a.Adapter
		u, ok := l.units[a.ID]
		if ok && u.adapter != name {
			l.detach(ctx, u)
			ok = false
		}
		ad := l.o.Adapters[name]
		if ad == nil {
			if l.unrouted[a.ID] != name {
				l.log.Warn("control: asset not steered: its adapter is not configured", "asset", a.ID, "adapter", name)
				l.unrouted[a.ID] = name
			}
			continue
		}
		delete(l.unrouted, a.ID)
		if ok {
			// Every change of the registration moves updated_at; comparing
			// whole assets would cost more than the rest of the refresh.
			if !a.UpdatedAt.Equal(u.asset.UpdatedAt) {
				if err := ad.Attach(ctx, a, nil, t); err != nil {
					l.log.Warn("control: asset registration not applied", "asset", a.ID, "adapter", name, "error", err)
				}
			}
			u.set(a)
			continue
		}
		last, err := l.latest(ctx, a.ID)
		if err != nil {
			// Attached fresh it would lose its state: the next second tries
			// again.
			failed = err
			break
		}
		if err := ad.Attach(ctx, a, last, t); err != nil {
			l.log.Warn("control: asset not attached", "asset", a.ID, "adapter", name, "error", err)
			continue
		}
		u = &unit{adapter: name, ad: ad}
		u.set(a)
		u.resume(last)
		l.units[a.ID] = u
	}
	if failed == nil {
		for id, u := range l.units {
			if !seen[id] {
				l.detach(ctx, u)
			}
		}
		for id := range l.unrouted {
			if !seen[id] {
				delete(l.unrouted, id)
			}
		}
		l.assetsAt = t
	}
	// Even after a failure ids must match units: an asset may have been
	// detached (moved to another adapter) before it.
	l.ids = l.ids[:0]
	for id := range l.units {
		l.ids = append(l.ids, id)
	}
	slices.Sort(l.ids)
	l.assetGauge.Set(float64(len(l.ids)))
	return failed
}

// detach lets go of a steered asset (deleted, or moved to another
// adapter). An adapter that fails to let go is logged: the asset is no
// longer the loop's either way.
func (l *Loop) detach(ctx context.Context, u *unit) {
	if err := u.ad.Detach(ctx, u.asset.ID); err != nil {
		l.log.Warn("control: asset not detached", "asset", u.asset.ID, "adapter", u.adapter, "error", err)
	}
	delete(l.units, u.asset.ID)
}

// advance brings every adapter's world to t. One adapter failing does not
// hold the others back; its assets' measurements tell what it did.
func (l *Loop) advance(ctx context.Context, t time.Time) {
	for _, name := range l.adapters {
		if err := l.o.Adapters[name].Advance(ctx, t); err != nil {
			l.log.Warn("control: adapter not advanced", "adapter", name, "second", t, "error", err)
		}
	}
}

// physical maps a bid's asset (maybe a virtual one) to its battery.
func (l *Loop) physical(assetID string) string {
	if p, ok := l.parent[assetID]; ok {
		return p
	}
	return assetID
}

// refreshAwards reads the awards, the aFRR activation and the next
// block's targets for t's quarter-hour.
func (l *Loop) refreshAwards(ctx context.Context, t time.Time) error {
	period := t.Truncate(calendar.PeriodLength)
	if period.Equal(l.awards.period) && t.Sub(l.awards.readAt) < slowRefresh {
		return nil
	}
	c := awardCache{period: period, readAt: t, fcr: map[string]float64{}, afrrPos: map[string]float64{},
		afrrNeg: map[string]float64{}, activated: map[string]float64{}, ownPos: map[string]float64{},
		ownNeg: map[string]float64{}, next: map[string]float64{}}
	awarded := func(b bids.Bid) float64 {
		if b.AwardedMW != nil {
			return *b.AwardedMW
		}
		return b.OfferedMW
	}
	fcr, err := l.o.Bids.Covering(ctx, bids.FCR, bids.Successful, t)
	if err != nil {
		return fmt.Errorf("control: FCR awards: %w", err)
	}
	for _, b := range fcr {
		c.fcr[l.physical(b.AssetID)] += awarded(b)
	}
	afrr, err := l.o.Bids.Covering(ctx, bids.AFRRCapacity, bids.Successful, t)
	if err != nil {
		return fmt.Errorf("control: aFRR awards: %w", err)
	}
	c.capacity = afrr
	for _, b := range afrr {
		if b.Product == bids.Pos {
			c.afrrPos[l.physical(b.AssetID)] += awarded(b)
		} else {
			c.afrrNeg[l.physical(b.AssetID)] += awarded(b)
		}
	}
	if err := l.activation(ctx, period, t, &c); err != nil {
		return err
	}
	next := period.Add(calendar.PeriodLength)
	events, err := l.o.Plan.EventsBetween(ctx, next.Add(-time.Second), next)
	if err != nil {
		return fmt.Errorf("control: next block's events: %w", err)
	}
	for _, e := range events {
		c.next[e.AssetID] = TargetOf(e).RequestedMW()
	}
	l.awards = c
	return l.refreshCovers(ctx, t, true)
}

// refreshCovers reads the pool covers in force at t, at the latest
// coverRefresh after the last read, at once when the awards changed, and
// applies them to the awards (inForce).
func (l *Loop) refreshCovers(ctx context.Context, t time.Time, awardsChanged bool) error {
	every := coverRefresh
	if t.Sub(t.Truncate(calendar.PeriodLength)) < coverHandover {
		every = time.Second
	}
	if !awardsChanged && t.Sub(l.coversAt) < every {
		return nil
	}
	steps, err := l.o.Covers.OpenAt(ctx, t)
	if err != nil {
		return fmt.Errorf("control: pool covers: %w", err)
	}
	l.inForce, l.coversAt = l.awards.withCovers(steps), t
	return nil
}

// withCovers is a copy of c with the covered steps applied: the maps a
// cover changes are cloned, so c stays the awards as read.
func (c awardCache) withCovers(steps []portfolio.Step) awardCache {
	if len(steps) == 0 {
		return c
	}
	c.fcr, c.afrrPos, c.afrrNeg, c.activated = maps.Clone(c.fcr), maps.Clone(c.afrrPos), maps.Clone(c.afrrNeg), maps.Clone(c.activated)
	c.coveredIn = map[string]float64{}
	for _, s := range steps {
		c.cover(s)
	}
	return c
}

// activation sums, per battery, the aFRR energy its forwarded energy
// bids covering t are activated for (Activations; signed: positive =
// discharge), in total and per direction.
func (l *Loop) activation(ctx context.Context, period, t time.Time, c *awardCache) error {
	var energy []bids.Bid
	for _, status := range []bids.Status{bids.Submitted, bids.Successful} {
		list, err := l.o.Bids.Covering(ctx, bids.AFRREnergy, status, t)
		if err != nil {
			return fmt.Errorf("control: aFRR energy bids: %w", err)
		}
		energy = append(energy, list...)
	}
	if len(energy) == 0 {
		return nil
	}
	activated, err := l.o.Activations.Activated(ctx, period, energy)
	if err != nil {
		l.log.Warn("control: no aFRR activation", "period", period, "error", err)
		return nil
	}
	for i, b := range energy {
		id := l.physical(b.AssetID)
		c.activated[id] += activated[i]
		if activated[i] > 0 {
			c.ownPos[id] += activated[i]
		} else {
			c.ownNeg[id] += activated[i]
		}
	}
	return nil
}

// cover moves a covered part of a failing battery's obligation to the
// battery covering it: the reservation, and for aFRR the same share of
// the failing battery's activation in that direction (MW over its whole
// obligation). An uncovered step changes nothing: the failing battery
// still delivers what it can.
func (c *awardCache) cover(s portfolio.Step) {
	if s.Covering == "" || !(s.MW > 0) {
		return
	}
	from, to := s.Failing, s.Covering
	switch s.Product {
	case portfolio.FCR:
		c.fcr[to] += s.MW
		c.fcr[from] = math.Max(0, c.fcr[from]-s.MW)
		return
	case portfolio.AFRRPos:
		c.afrrPos[to] += s.MW
		c.afrrPos[from] = math.Max(0, c.afrrPos[from]-s.MW)
	default:
		c.afrrNeg[to] += s.MW
		c.afrrNeg[from] = math.Max(0, c.afrrNeg[from]-s.MW)
	}
	if !(s.ObligationMW > 0) {
		return
	}
	own := c.ownPos
	if s.Product == portfolio.AFRRNeg {
		own = c.ownNeg
	}
	moved := own[from] * math.Min(1, s.MW/s.ObligationMW)
	c.activated[from] -= moved
	c.activated[to] += moved
	if c.coveredIn == nil {
		c.coveredIn = map[string]float64{}
	}
	c.coveredIn[to] += moved
}

// limits are one asset's active restrictions.
type limits struct {
	maxMW, minMW   *float64
	minMWh, maxMWh *float64
	unavailable    bool
	full           bool
}

func activeLimits(list []restrictions.Interval, t time.Time) map[string]*limits {
	out := map[string]*limits{}
	for _, iv := range list {
		lim := out[iv.AssetID]
		if lim == nil {
			lim = &limits{}
			out[iv.AssetID] = lim
		}
		switch iv.Kind {
		case restrictions.PowerLimit:
			lim.maxMW, lim.minMW = iv.Upper, iv.Lower
		case restrictions.EnergyLimit:
			lim.maxMWh, lim.minMWh = iv.Upper, iv.Lower
		case restrictions.Unavailability:
			lim.unavailable = true
		}
		if iv.ActiveAt(t) && iv.Full() {
			lim.full = true
		}
	}
	return out
}

// yieldEvery is how many assets the loop steps between yields of its
// processor. A request woken while the loop runs may wait in this
// processor's run queue until the loop blocks or is preempted (10 ms): the
// other processor serves its own and the global queue (where the
// collector's background sweeper yields to) before it steals. Yielding
// every few dozen assets bounds that wait to a fraction of a millisecond
// (docs/performance.md, issue 10).
const yieldEvery = 64

// yield gives the processor to waiting goroutines after every yieldEvery-th asset.
func yield(i int) {
	if i%yieldEvery == yieldEvery-1 {
		runtime.Gosched()
	}
}

// second processes second t: inputs, schedule, commands, physics,
// measurements. events are the schedule events set at t.
func (l *Loop) second(ctx context.Context, t time.Time, events []dispatch.Event) ([]dispatch.Outcome, error) {
	began := time.Now() // real time, for the tick-duration metric only
	if t.Sub(l.assetsAt) >= assetRefresh {
		if err := l.refreshAssets(ctx, t); err != nil {
			return nil, err
		}
	}
	immediate, err := l.o.Plan.ActiveImmediate(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("control: immediate dispatches: %w", err)
	}
	override := make(map[string]float64, len(immediate))
	for _, d := range immediate {
		override[d.AssetID] = d.SetPowerMW
	}
	active, err := l.o.Restrictions.ActiveAt(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("control: active restrictions: %w", err)
	}
	lims := activeLimits(active, t)
	if l.o.AFRREvents != nil {
		// The quarter-hour's accumulation is finished before the awards
		// of the next one are read: its capacity prices are those as read.
		if slot := slotOf(t); !slot.Equal(l.afrrSlot) {
			if !l.afrrSlot.IsZero() {
				l.o.AFRREvents.Hand(l.finishAFRR(l.afrrSlot, t))
			}
			l.afrrSlot = slot
		}
	}
	if err := l.refreshAwards(ctx, t); err != nil {
		return nil, err
	}
	if err := l.refreshCovers(ctx, t, false); err != nil {
		return nil, err
	}
	if calendar.AlignedToPeriod(t) {
		for _, u := range l.units {
			u.target = Target{}
		}
	}
	due := map[string]dispatch.Event{}
	var outcomes []dispatch.Outcome
	for _, e := range events {
		u, ok := l.units[e.AssetID]
		if !ok {
			outcomes = append(outcomes, outcome(e, 0, dispatch.Failed, ReasonNotControlled, t))
			continue
		}
		u.target = TargetOf(e)
		due[e.AssetID] = e
	}

	for i, id := range l.ids {
		yield(i)
		u := l.units[id]
		in := Inputs{
			RatedMW:           u.ratedMW,
			GridConnectionMW:  u.gridMW,
			Target:            u.target,
			NextMW:            l.inForce.next[id],
			FCRReservedMW:     l.inForce.fcr[id],
			AFRRReservedPosMW: l.inForce.afrrPos[id],
			AFRRReservedNegMW: l.inForce.afrrNeg[id],
			AFRRSetpointMW:    AFRRSetpoint(l.inForce.activated[id], l.inForce.afrrPos[id], l.inForce.afrrNeg[id], t),
			FCRBuffer:         l.o.FCRBuffer,
		}
		in.EnergyKnown, in.AvailableDischargeMWh, in.AvailableChargeMWh = u.energyKnown, u.energy[0], u.energy[1]
		if p, ok := override[id]; ok {
			in.Immediate = &p
		}
		if lim := lims[id]; lim != nil {
			in.MaxPowerMW, in.MinPowerMW = lim.maxMW, lim.minMW
			in.MinEnergyMWh, in.MaxEnergyMWh = lim.minMWh, lim.maxMWh
			in.Unavailable, in.FullyRestricted = lim.unavailable, lim.full
		}
		d := Decide(in)
		control, connected := u.asset.BESSControl(), u.ad.Connected(id)
		var sendErr error
		switch {
		case !connected:
			// Nothing reaches the asset: a command of ours stays ours to
			// hand back when it is reachable again.
		case control:
			// A refused command leaves the previous one in force (the
			// adapter's contract), so a battery steered before stays ours
			// until it is handed back.
			if sendErr = u.ad.Send(ctx, id, d.Command, t); sendErr == nil {
				u.control = true
			}
		case u.control:
			// Control was withdrawn: hand the battery back to passive once.
			if err := u.ad.Send(ctx, id, telemetry.Command{ControlMode: telemetry.Passive}, t); err == nil {
				u.control = false
			}
		}
		if sendErr != nil {
			l.log.Warn("control: command not sent", "asset", id, "error", sendErr)
		}
		u.afrrDir = -1
		if l.o.AFRREvents != nil && in.AFRRSetpointMW != 0 {
			l.recordAFRR(u, t, in.AFRRSetpointMW, d, control, connected, sendErr)
		}
		if e, ok := due[id]; ok {
			status, reason := Judge(d, control, connected, sendErr)
			// A rejected or failed target moved nothing: its effective
			// power is 0, not the immediate dispatch's.
			effective := d.EffectiveMW
			if status == dispatch.Failed || status == dispatch.Rejected {
				effective = 0
			}
			outcomes = append(outcomes, outcome(e, effective, status, reason, t))
		}
	}
	for _, o := range outcomes {
		l.outcomes.WithLabelValues(string(o.Status)).Inc()
	}

	l.advance(ctx, t)
	snapshots := make([]telemetry.Snapshot, 0, len(l.ids))
	for i, id := range l.ids {
		yield(i)
		u := l.units[id]
		m, err := u.ad.Read(ctx, id)
		if err != nil {
			// The asset is left out of this second (disconnected or its
			// telemetry stale: errs.Unavailable, expected); the others go on.
			if !errs.Is(err, errs.Unavailable) {
				l.log.Warn("control: measurements not read", "asset", id, "error", err)
			}
			if u.afrrDir >= 0 {
				u.measuredAFRR(u.afrrDir, 0, false)
			}
			continue
		}
		if u.afrrDir >= 0 {
			u.measuredAFRR(u.afrrDir, m.AFRRPowerActual, true)
		}
		snapshots = append(snapshots, telemetry.Snapshot{AssetID: id, Measurements: m})
		u.measured(&m)
		l.curtail(ctx, u, m, t)
	}
	if err := l.o.Recorder.Record(ctx, snapshots); err != nil {
		// The second was executed: failing it would run it again. The
		// recorder writes what it holds again at its next slot; only the
		// latest state of this second is lost.
		l.log.Warn("control: record telemetry", "second", t, "error", err)
	}
	l.tick.Observe(time.Since(began).Seconds())
	return outcomes, nil
}
