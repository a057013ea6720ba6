package simulator

import (
	"context"
	"math"
	"sync"
	"time"

	"atcp/internal/errs"
	"atcp/internal/telemetry"
)

// maxStep is the integration step: one tick per second of clock time.
const maxStep = time.Second

// maxSubsteps bounds the work of one Tick after a long gap (a clock jump or
// a paused worker): beyond it the steps grow longer than a second.
const maxSubsteps = 3600

// Simulator holds many simulated assets, keyed by asset id: commands in,
// measurements out (the simulator adapter, internal/adapters/simulated,
// puts it behind the control loop's adapter boundary). It is safe for
// concurrent use.
type Simulator struct {
	mu        sync.Mutex
	seed      uint64
	frequency float64
	batteries map[string]*Battery
}

// New returns an empty simulator whose noise (PV clouds, LTE signal)
// derives from seed, so equal seeds replay equal days.
func New(seed uint64) *Simulator {
	return &Simulator{seed: seed, frequency: nominalFrequencyHz, batteries: map[string]*Battery{}}
}

// Validate rejects configurations the physics cannot integrate.
func (c Config) Validate() error {
	var v errs.Validation
	if c.AssetID == "" {
		v.Add("config.asset_id", "must not be empty", c.AssetID)
	}
	nonNegative := func(loc string, x float64, infOK bool) {
		if math.IsNaN(x) || x < 0 || (!infOK && math.IsInf(x, 1)) {
			v.Add(loc, "must be a non-negative number", x)
		}
	}
	nonNegative("config.energy_capacity_mwh", c.EnergyCapacityMWh, false)
	nonNegative("config.power_capacity_mw", c.PowerCapacityMW, false)
	nonNegative("config.ramp_up_mw_per_sec", c.RampUpMWPerSec, true)
	nonNegative("config.ramp_down_mw_per_sec", c.RampDownMWPerSec, true)
	nonNegative("config.grid_connection_mw", c.GridConnectionMW, false)
	nonNegative("config.pv_peak_mw", c.PVPeakMW, false)
	efficiency := func(loc string, x float64) {
		if !(x > 0 && x <= 1) {
			v.Add(loc, "must be in (0, 1]", x)
		}
	}
	efficiency("config.charge_efficiency", c.ChargeEfficiency)
	efficiency("config.discharge_efficiency", c.DischargeEfficiency)
	return v.Err()
}

// Add starts simulating an asset at instant now. An asset already present
// is a conflict.
func (s *Simulator) Add(cfg Config, now time.Time) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.batteries[cfg.AssetID]; ok {
		return errs.Conflictf(CodeAssetSimulated, "asset %s is already simulated", cfg.AssetID)
	}
	b := NewBattery(cfg, s.seed, now)
	b.SetFrequency(s.frequency)
	s.batteries[cfg.AssetID] = b
	return nil
}

// Update replaces the configuration of a simulated asset (its registry
// record changed), keeping its state.
func (s *Simulator) Update(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.battery(cfg.AssetID)
	if err != nil {
		return err
	}
	b.SetConfig(cfg)
	return nil
}

// Restore resumes a simulated asset from a stored state (after a restart
// or a failover to this instance): the next Tick continues from st.At.
func (s *Simulator) Restore(assetID string, st State) error {
	if math.IsNaN(st.SoCMWh) || math.IsNaN(st.PowerMW) || math.IsInf(st.PowerMW, 0) || st.At.IsZero() {
		return errs.Invalidf("state", st, "state must carry an instant and finite numbers")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.battery(assetID)
	if err != nil {
		return err
	}
	b.Restore(st)
	return nil
}

// Remove stops simulating an asset; removing an unknown asset is a no-op
// so deletions can be replayed.
func (s *Simulator) Remove(assetID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.batteries, assetID)
}

// SetFrequency sets the grid frequency every asset measures (one
// synchronous area).
func (s *Simulator) SetFrequency(hz float64) error {
	if !(hz > 0) || math.IsInf(hz, 0) {
		return errs.Invalidf("frequency", hz, "frequency must be a positive number")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frequency = hz
	for _, b := range s.batteries {
		b.SetFrequency(hz)
	}
	return nil
}

// SetGridSignals sets the DSO curtailment and redispatch signals of one
// asset.
func (s *Simulator) SetGridSignals(assetID string, g GridSignals) error {
	var v errs.Validation
	percent := func(loc string, x float64) {
		if !(x >= 0 && x <= 100) {
			v.Add(loc, "must be between 0 and 100", x)
		}
	}
	percent("grid.export_curtailment_pct", g.ExportCurtailmentPct)
	percent("grid.import_curtailment_pct", g.ImportCurtailmentPct)
	percent("grid.pv_export_curtailment_pct", g.PVExportCurtailmentPct)
	if math.IsNaN(g.RedispatchMW) || math.IsInf(g.RedispatchMW, 0) {
		v.Add("grid.redispatch_mw", "must be a finite number", nil)
	}
	if err := v.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.battery(assetID)
	if err != nil {
		return err
	}
	b.SetGridSignals(g)
	return nil
}

// Tick advances every asset to now in steps of at most one second (longer
// only after a gap above maxSubsteps seconds). Assets already at or past
// now are left alone, so a clock that steps back never rewinds physics.
func (s *Simulator) Tick(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.batteries {
		gap := now.Sub(b.Now())
		if gap <= 0 {
			continue
		}
		n := int64((gap + maxStep - 1) / maxStep)
		n = min(n, maxSubsteps)
		step := gap / time.Duration(n)
		for i := int64(1); i < n; i++ {
			b.Step(step)
		}
		b.Step(now.Sub(b.Now())) // the last step absorbs rounding
	}
}

// Send replaces the asset's command; it takes effect from the next Tick.
// While the asset's communications are lost it is refused
// (errs.Unavailable) and the command in force stays.
func (s *Simulator) Send(ctx context.Context, assetID string, cmd telemetry.Command) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := cmd.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.reachable(assetID)
	if err != nil {
		return err
	}
	b.SetCommand(cmd)
	return nil
}

// Read returns the asset's measurements as of the last Tick;
// errs.Unavailable while its communications are lost.
func (s *Simulator) Read(ctx context.Context, assetID string) (telemetry.Measurements, error) {
	if err := ctx.Err(); err != nil {
		return telemetry.Measurements{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.reachable(assetID)
	if err != nil {
		return telemetry.Measurements{}, err
	}
	return b.Measurements(), nil
}

func (s *Simulator) battery(assetID string) (*Battery, error) {
	b, ok := s.batteries[assetID]
	if !ok {
		return nil, errs.NotFoundf("asset %s is not simulated", assetID)
	}
	return b, nil
}
