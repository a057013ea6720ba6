package alarms

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/dispatch"
	"atcp/internal/restrictions"
	"atcp/internal/telemetry"
	"atcp/internal/worker"
)

// DefaultShards is the number of rule shards: engine jobs that instances
// sharing a database spread among themselves, one lease each.
const DefaultShards = 4

// fleetRefresh is how often (platform time) the asset list is read again,
// as the control loop does: a new asset is judged, and a deleted one's
// alarms resolve, within that long.
const fleetRefresh = 10 * time.Second

// Fleet lists the assets (*assets.Service).
type Fleet interface {
	List(ctx context.Context, v auth.Visibility) ([]assets.Asset, error)
}

// LatestReader reads the latest snapshots of many assets in one query
// (telemetry.Store).
type LatestReader interface {
	LatestMany(ctx context.Context, assetIDs []string) ([]telemetry.Snapshot, error)
}

// ActiveRestrictions reads every asset's active intervals
// (restrictions.Store).
type ActiveRestrictions interface {
	ActiveAt(ctx context.Context, t time.Time) ([]restrictions.Interval, error)
}

// Immediates reads every asset's active immediate dispatch
// (*dispatch.Service).
type Immediates interface {
	ActiveImmediate(ctx context.Context, at time.Time) ([]dispatch.Immediate, error)
}

// EngineOptions configure an Engine; every field but Shards, LeaseTTL
// and Logger is required.
type EngineOptions struct {
	Service      *Service
	Store        Store
	Clock        clock.Clock
	Fleet        Fleet
	Latest       LatestReader
	Restrictions ActiveRestrictions
	Immediates   Immediates
	// StaleAfter is the age (platform time) beyond which measurements are
	// stale (assetstate's bound); 0 never.
	StaleAfter time.Duration
	// Shards is the number of rule shards (DefaultShards when 0).
	Shards int
	// Every is how often (platform time) each shard is evaluated: a
	// second by default. On a fast demo clock, every second of real time
	// is enough: staleness is judged on real time, and sustain and clear
	// times are spans between evaluations, however far apart.
	Every time.Duration
	// LeaseTTL is the lease of each shard job (the worker's default when
	// 0).
	LeaseTTL time.Duration
	Logger   *slog.Logger
}

// Engine evaluates every rule on every asset each platform second, one
// job per shard, and writes what opens and resolves.
type Engine struct {
	o EngineOptions

	mu     sync.Mutex
	shared sharedInputs
}

// sharedInputs are the inputs every shard reads alike, read once per
// platform second (the assets every fleetRefresh) by the first shard run
// of that second on this instance.
type sharedInputs struct {
	fleet       []assets.Asset
	hashes      []int64 // ShardHash of each asset of fleet
	fleetAt     time.Time
	at          time.Time
	limits      map[string]Bounds
	unavailable map[string]bool
	immediate   map[string]bool
}

// NewEngine checks the options.
func NewEngine(o EngineOptions) (*Engine, error) {
	if o.Service == nil || o.Store == nil || o.Clock == nil || o.Fleet == nil || o.Latest == nil || o.Restrictions == nil || o.Immediates == nil {
		return nil, errors.New("alarms: missing engine option")
	}
	if o.Shards <= 0 {
		o.Shards = DefaultShards
	}
	if o.Every <= 0 {
		o.Every = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Engine{o: o}, nil
}

// Jobs are the shard jobs "alarms-0" ..., each due Every, at offsets
// spread over the period: shard i at (i+1)/(Shards+1) of it. Run
// together, the shards' reads of every latest state took both processors
// of a small machine at once, and the requests arriving then waited for
// one (docs/performance.md, issue 10); spread, they leave the start of the
// second to the control loop and one another room.
func (e *Engine) Jobs() []worker.Job {
	jobs := make([]worker.Job, e.o.Shards)
	for i := range jobs {
		shard := Shard{Index: i, Count: e.o.Shards}
		offset := e.o.Every * time.Duration(i+1) / time.Duration(e.o.Shards+1)
		jobs[i] = worker.Job{Name: "alarms-" + strconv.Itoa(i), Every: e.o.Every, Offset: offset, LeaseTTL: e.o.LeaseTTL,
			Run: func(ctx context.Context, _ time.Time) error { return e.RunShard(ctx, shard) }}
	}
	return jobs
}

// RunShard evaluates the shard once, at the platform clock's now: it
// reads the shard's assets, their latest measurements, the restrictions
// and immediate dispatches in force and the stored tracks and
// lifecycles, plans the changes (Plan) and writes them, then announces
// the alarms that opened.
func (e *Engine) RunShard(ctx context.Context, shard Shard) error {
	now := e.o.Clock.Now().UTC().Truncate(time.Microsecond)
	shared, err := e.sharedAt(ctx, now)
	if err != nil {
		return err
	}
	var mine []*assets.Asset
	ids := make([]string, 0, len(shared.fleet)/shard.Count+1)
	for i := range shared.fleet {
		a := &shared.fleet[i]
		if a.IsVirtual() || a.OperationalStatus == assets.Offboarded || shared.hashes[i]%int64(shard.Count) != int64(shard.Index) {
			continue
		}
		mine = append(mine, a)
		ids = append(ids, a.ID)
	}
	snaps, err := e.o.Latest.LatestMany(ctx, ids)
	if err != nil {
		return fmt.Errorf("alarms: latest measurements: %w", err)
	}
	st, err := e.o.Store.EngineState(ctx, shard)
	if err != nil {
		return fmt.Errorf("alarms: engine state: %w", err)
	}
	latest := make(map[string]*telemetry.Measurements, len(snaps))
	for i := range snaps {
		latest[snaps[i].AssetID] = &snaps[i].Measurements
	}
	inputs := make([]Input, len(mine))
	for i, a := range mine {
		in := Input{Asset: a, Latest: latest[a.ID], StaleAfter: e.o.StaleAfter,
			Unavailable: shared.unavailable[a.ID], ImmediateDispatch: shared.immediate[a.ID]}
		if in.Latest != nil {
			in.Age = now.Sub(in.Latest.Timestamp)
		}
		if b, ok := shared.limits[a.ID]; ok {
			in.PowerLimit = &b
		}
		inputs[i] = in
	}
	b := Plan(now, inputs, st, NewAlarmID)
	if b.Empty() {
		return nil
	}
	events, err := e.o.Store.Apply(ctx, b)
	if err != nil {
		return fmt.Errorf("alarms: write: %w", err)
	}
	for _, ev := range events {
		e.o.Logger.Info("alarm "+string(ev.Type), "alarm_key", ev.Key.String(), "alarm_id", ev.AlarmID,
			"severity", ev.Severity, "muted", ev.Muted)
	}
	e.o.Service.announce(ctx, events)
	return nil
}

// sharedAt returns the assets and the restrictions and immediate
// dispatches in force at now's second, reading them when no shard has
// this second.
func (e *Engine) sharedAt(ctx context.Context, now time.Time) (sharedInputs, error) {
	sec := now.Truncate(time.Second)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shared.fleetAt.IsZero() || now.Sub(e.shared.fleetAt) >= fleetRefresh || now.Before(e.shared.fleetAt) {
		fleet, err := e.o.Fleet.List(ctx, auth.Visibility{All: true})
		if err != nil {
			return sharedInputs{}, fmt.Errorf("alarms: assets: %w", err)
		}
		hashes := make([]int64, len(fleet))
		for i, a := range fleet {
			hashes[i] = ShardHash(a.ID)
		}
		e.shared.fleet, e.shared.hashes, e.shared.fleetAt = fleet, hashes, now
	}
	if e.shared.at.Equal(sec) && e.shared.limits != nil {
		return e.shared, nil
	}
	ivs, err := e.o.Restrictions.ActiveAt(ctx, now)
	if err != nil {
		return sharedInputs{}, fmt.Errorf("alarms: restrictions: %w", err)
	}
	imm, err := e.o.Immediates.ActiveImmediate(ctx, now)
	if err != nil {
		return sharedInputs{}, fmt.Errorf("alarms: immediate dispatches: %w", err)
	}
	s := sharedInputs{fleet: e.shared.fleet, hashes: e.shared.hashes, fleetAt: e.shared.fleetAt, at: sec,
		limits: map[string]Bounds{}, unavailable: map[string]bool{}, immediate: map[string]bool{}}
	byAsset := map[string][]restrictions.Interval{}
	for _, iv := range ivs {
		byAsset[iv.AssetID] = append(byAsset[iv.AssetID], iv)
		if iv.Kind == restrictions.PowerLimit && iv.ActiveAt(now) {
			s.limits[iv.AssetID] = Bounds{Upper: deref(iv.Upper, 0), Lower: deref(iv.Lower, 0)}
		}
	}
	for id, list := range byAsset {
		if restrictions.FullyRestrictedBy(list, now) {
			s.unavailable[id] = true
		}
	}
	for _, d := range imm {
		s.immediate[d.AssetID] = true
	}
	e.shared = s
	return s, nil
}
