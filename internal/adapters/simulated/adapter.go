package simulated

import (
	"context"
	"fmt"
	"sync"
	"time"

	"atcp/internal/assets"
	"atcp/internal/detrand"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/replay"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/simulator"
)

// Adapter steers simulated batteries (a control.Adapter): commands go to
// the battery simulator, and Advance steps the simulator's physics under
// the modelled grid frequency and DSO curtailment and the injected
// faults. It is safe for concurrent use.
type Adapter struct {
	sim        *simulator.Simulator
	data       *replay.Dataset
	seed       uint64
	faultStore ActiveFaults

	mu         sync.Mutex
	batteries  map[string]*battery
	freqPeriod time.Time
	freq       []float64 // the 1 Hz frequency of freqPeriod's quarter-hour
	faults     []Fault   // the faults in force as last read
}

// battery is what the adapter keeps of one attached asset.
type battery struct {
	cfg    simulator.Config
	key    uint64 // the asset's curtailment draws (seed and asset id)
	grid   simulator.GridSignals
	faults simulator.Faults
}

// New returns an adapter without assets whose simulator noise, frequency
// series and curtailments derive from seed and whose frequency follows the
// replayed day of data (nil: 50 Hz throughout). Advance reads the faults
// in force from faults (nil: none are injected), so that a fault injected
// through any instance reaches the one running the control loop.
func New(data *replay.Dataset, seed uint64, faults ActiveFaults) *Adapter {
	return &Adapter{sim: simulator.New(seed), data: data, seed: seed, faultStore: faults, batteries: map[string]*battery{}}
}

// Attach starts simulating a's battery at at (simulator.ConfigFromAsset),
// or applies a changed registration keeping the battery's state; a
// non-nil last resumes it from those measurements (Config.StateFrom).
func (a *Adapter) Attach(_ context.Context, asset assets.Asset, last *telemetry.Measurements, at time.Time) error {
	cfg := simulator.ConfigFromAsset(asset)
	a.mu.Lock()
	defer a.mu.Unlock()
	b, attached := a.batteries[asset.ID]
	switch {
	case !attached:
		if err := a.sim.Add(cfg, at); err != nil {
			return err
		}
		b = &battery{key: a.seed ^ detrand.Hash(asset.ID)}
	case b.cfg != cfg:
		if err := a.sim.Update(cfg); err != nil {
			return err
		}
	}
	if last != nil {
		if err := a.sim.Restore(asset.ID, cfg.StateFrom(*last)); err != nil {
			if !attached {
				// Started fresh it would lose its state: not attached.
				a.sim.Remove(asset.ID)
			}
			return err
		}
	}
	b.cfg = cfg
	a.batteries[asset.ID] = b
	return nil
}

// Detach stops simulating the asset; an unknown asset is no error.
func (a *Adapter) Detach(_ context.Context, assetID string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sim.Remove(assetID)
	delete(a.batteries, assetID)
	return nil
}

// Send replaces the asset's command; it takes effect from the next
// Advance.
func (a *Adapter) Send(ctx context.Context, assetID string, cmd telemetry.Command, _ time.Time) error {
	return a.sim.Send(ctx, assetID, cmd)
}

// Advance sets the grid frequency, every battery's DSO signals and its
// faults in force at second t, and steps the physics to t. When the
// faults cannot be read, those read last stay in force until they end,
// the physics still steps, and the error is returned.
func (a *Adapter) Advance(ctx context.Context, t time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.sim.SetFrequency(a.frequency(t)); err != nil {
		return err
	}
	faultErr := a.readFaults(ctx, t)
	faults := a.faultsAt(t)
	for id, b := range a.batteries {
		if g := curtailment(b.key, b.cfg.PVActive, t); g != b.grid {
			if err := a.sim.SetGridSignals(id, g); err != nil {
				return err
			}
			b.grid = g
		}
		if f := faults[id]; f != b.faults {
			if err := a.sim.SetFaults(id, f); err != nil {
				return err
			}
			b.faults = f
		}
	}
	a.sim.Tick(t)
	return faultErr
}

// readFaults reads the faults in force at t, one query for every asset;
// a.mu is held.
func (a *Adapter) readFaults(ctx context.Context, t time.Time) error {
	if a.faultStore == nil {
		return nil
	}
	list, err := a.faultStore.ActiveFaults(ctx, t)
	if err != nil {
		return fmt.Errorf("simulated: read the active faults: %w", err)
	}
	a.faults = list
	return nil
}

// faultsAt is each asset's faults in force at t; a.mu is held.
func (a *Adapter) faultsAt(t time.Time) map[string]simulator.Faults {
	if len(a.faults) == 0 {
		return nil
	}
	out := map[string]simulator.Faults{}
	for _, f := range a.faults {
		if !t.Before(f.Start) && t.Before(f.End) {
			fs := out[f.AssetID]
			fs.Add(f.Kind)
			out[f.AssetID] = fs
		}
	}
	return out
}

// Read returns the battery's measurements as of the last Advance;
// errs.Unavailable while its communications are lost (an injected fault).
func (a *Adapter) Read(ctx context.Context, assetID string) (telemetry.Measurements, error) {
	return a.sim.Read(ctx, assetID)
}

// Connected reports whether the asset is simulated and its
// communications work: only an injected communication loss makes a
// simulated battery unreachable.
func (a *Adapter) Connected(assetID string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.batteries[assetID]
	return ok && !b.faults.CommunicationLoss
}

// frequency is the grid frequency at t; a.mu is held.
func (a *Adapter) frequency(t time.Time) float64 {
	period := t.Truncate(calendar.PeriodLength)
	if a.freq == nil || !period.Equal(a.freqPeriod) {
		a.freq, a.freqPeriod = FrequencySeries(a.data, a.seed, period), period
	}
	return a.freq[int(t.Sub(period)/time.Second)]
}
