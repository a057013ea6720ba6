package control

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/dispatch"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/portfolio"
	"atcp/internal/telemetry"
)

// fakePlan is an in-memory dispatch.Plan.
type fakePlan struct {
	mu        sync.Mutex
	events    []dispatch.Event
	immediate []dispatch.Immediate
	outcomes  map[string]dispatch.Outcome // by asset and set time
	calls     int                         // RecordOutcomes calls
	fail      error                       // RecordOutcomes fails with it when set
}

func newFakePlan() *fakePlan { return &fakePlan{outcomes: map[string]dispatch.Outcome{}} }

func (p *fakePlan) schedule(org, assetID string, at time.Time, mw float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, dispatch.Event{OrganizationID: org, AssetID: assetID, ControlMode: "bess_only", BESSPowerMW: &mw,
		SetTime: at, DeliveryTime: at.Truncate(calendar.PeriodLength), CreatedAt: at})
	slices.SortFunc(p.events, func(a, b dispatch.Event) int { return a.SetTime.Compare(b.SetTime) })
}

func (p *fakePlan) override(assetID string, from, to time.Time, mw float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.immediate = append(p.immediate, dispatch.Immediate{AssetID: assetID, Start: from, End: to, SetPowerMW: mw})
}

func (p *fakePlan) ActiveImmediate(_ context.Context, at time.Time) ([]dispatch.Immediate, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []dispatch.Immediate
	for _, d := range p.immediate {
		if !d.Start.After(at) && at.Before(d.End) {
			out = append(out, d)
		}
	}
	return out, nil
}

func (p *fakePlan) EventsBetween(_ context.Context, from, to time.Time) ([]dispatch.Event, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []dispatch.Event
	for _, e := range p.events {
		if e.SetTime.After(from) && !e.SetTime.After(to) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (p *fakePlan) CurrentEvents(_ context.Context, at time.Time) ([]dispatch.Event, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	latest := map[string]dispatch.Event{}
	for _, e := range p.events {
		if !e.SetTime.After(at) && e.DeliveryTime.Equal(at.Truncate(calendar.PeriodLength)) {
			latest[e.AssetID] = e
		}
	}
	var out []dispatch.Event
	for _, e := range latest {
		out = append(out, e)
	}
	return out, nil
}

func (p *fakePlan) RecordOutcomes(_ context.Context, outcomes []dispatch.Outcome) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.fail != nil {
		return p.fail
	}
	for _, o := range outcomes {
		p.outcomes[o.AssetID+"@"+o.SetTime.Format(time.RFC3339)] = o
	}
	return nil
}

func (p *fakePlan) outcome(assetID string, at time.Time) (dispatch.Outcome, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	o, ok := p.outcomes[assetID+"@"+at.Format(time.RFC3339)]
	return o, ok
}

// fakeRecorder keeps every snapshot and serves the latest stored one, as
// the telemetry store would after a flush.
type fakeRecorder struct {
	mu      sync.Mutex
	history map[string][]telemetry.Measurements
	flushes int
	forgets int
	failing bool // Record fails (the store is down)
}

func newFakeRecorder() *fakeRecorder {
	return &fakeRecorder{history: map[string][]telemetry.Measurements{}}
}

func (r *fakeRecorder) Record(_ context.Context, snapshots []telemetry.Snapshot) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failing {
		return errors.New("store down")
	}
	for _, s := range snapshots {
		r.history[s.AssetID] = append(r.history[s.AssetID], s.Measurements)
	}
	return nil
}

func (r *fakeRecorder) Flush(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushes++
	return nil
}

func (r *fakeRecorder) Forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgets++
}

func (r *fakeRecorder) Latest(_ context.Context, assetID string) (telemetry.Snapshot, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.history[assetID]
	if len(h) == 0 {
		return telemetry.Snapshot{}, errs.NotFoundf("no state of %s", assetID)
	}
	return telemetry.Snapshot{AssetID: assetID, Measurements: h[len(h)-1]}, nil
}

func (r *fakeRecorder) last(assetID string) telemetry.Measurements {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.history[assetID]
	if len(h) == 0 {
		return telemetry.Measurements{}
	}
	return h[len(h)-1]
}

func (r *fakeRecorder) points(assetID string) []telemetry.Measurements {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.history[assetID])
}

// fakeAdapter is an Adapter in memory: it keeps what the loop attached and
// sent, and measures the last command's battery power.
type fakeAdapter struct {
	mu       sync.Mutex
	attached map[string]assets.Asset
	attaches []string // asset ids, in call order
	lasts    map[string]*telemetry.Measurements
	detaches []string
	commands map[string][]telemetry.Command
	offline  map[string]bool  // not connected; Read is errs.Unavailable
	readErr  map[string]error // Read fails with it
	now      time.Time
}

func newFakeAdapter() *fakeAdapter {
	return &fakeAdapter{attached: map[string]assets.Asset{}, lasts: map[string]*telemetry.Measurements{},
		commands: map[string][]telemetry.Command{}, offline: map[string]bool{}, readErr: map[string]error{}}
}

func (f *fakeAdapter) Attach(_ context.Context, a assets.Asset, last *telemetry.Measurements, _ time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attached[a.ID] = a
	f.attaches = append(f.attaches, a.ID)
	f.lasts[a.ID] = last
	return nil
}

func (f *fakeAdapter) Detach(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.attached, id)
	f.detaches = append(f.detaches, id)
	return nil
}

func (f *fakeAdapter) Send(_ context.Context, id string, cmd telemetry.Command, _ time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.attached[id]; !ok {
		return errs.NotFoundf("asset %s is not attached", id)
	}
	f.commands[id] = append(f.commands[id], cmd)
	return nil
}

func (f *fakeAdapter) Advance(_ context.Context, t time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = t
	return nil
}

func (f *fakeAdapter) Read(_ context.Context, id string) (telemetry.Measurements, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.attached[id].ID == "":
		return telemetry.Measurements{}, errs.NotFoundf("asset %s is not attached", id)
	case f.offline[id]:
		return telemetry.Measurements{}, errs.E(errs.Unavailable, "asset_unreachable", "asset %s is not connected", id)
	case f.readErr[id] != nil:
		return telemetry.Measurements{}, f.readErr[id]
	}
	m := telemetry.Measurements{Timestamp: f.now}
	if c := f.commands[id]; len(c) > 0 {
		m.BatteryPowerActualAC = c[len(c)-1].BESSPowerMW
	}
	return m, nil
}

func (f *fakeAdapter) Connected(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.attached[id]
	return ok && !f.offline[id]
}

func (f *fakeAdapter) sent(id string) []telemetry.Command {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.commands[id])
}

func (f *fakeAdapter) calls() (attaches, detaches []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.attaches), slices.Clone(f.detaches)
}

// fakeFleet is a Fleet whose list tests change between runs.
type fakeFleet struct {
	mu   sync.Mutex
	list []assets.Asset
}

func (f *fakeFleet) List(context.Context, auth.Visibility) ([]assets.Asset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.list), nil
}

// noActivations is an Activations without any activation.
type noActivations struct{}

func (noActivations) Activated(_ context.Context, _ time.Time, energy []bids.Bid) ([]float64, error) {
	return make([]float64, len(energy)), nil
}

// fakeCovers are cover steps, all in force.
type fakeCovers []portfolio.Step

func (f fakeCovers) OpenAt(context.Context, time.Time) ([]portfolio.Step, error) { return f, nil }
