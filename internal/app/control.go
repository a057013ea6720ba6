package app

import (
	"context"
	"time"

	"atcp/internal/control"
	"atcp/internal/markets/replay"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/simulator"
	"atcp/internal/worker"
)

// controlLeaseRealSeconds is how long, in real seconds, the control
// loop's lease outlives its holder: another instance takes over the
// batteries within about that long.
const controlLeaseRealSeconds = 3

// simulatorSeed fixes the simulator's noise (clouds, signal strength, the
// frequency within each replayed quarter-hour), so every instance and
// every restart replays the same days.
const simulatorSeed = 20260201

// controlLoop builds the control loop with the battery simulator as every
// asset's adapter.
func (a *App) controlLoop(data *replay.Dataset) (*control.Loop, error) {
	return control.New(control.Options{
		Clock:        a.Clock,
		Assets:       a.Assets,
		Plan:         a.Dispatch,
		Restrictions: a.Store.Restrictions(),
		Curtailments: a.Restrictions,
		Bids:         a.Store.Bids(),
		Market:       data,
		Simulator:    simulator.New(simulatorSeed),
		Recorder:     telemetry.NewRecorder(a.Store.Telemetry(), telemetry.RecorderOptions{}),
		Latest:       a.Store.Telemetry(),
		FCRBuffer:    a.Config.FCRPowerBuffer,
		Seed:         simulatorSeed,
		Logger:       a.Log,
		Registerer:   a.Server.Registry(),
	})
}

// telemetryJobs keep the stored history within its 30 days.
func (a *App) telemetryJobs() []worker.Job {
	return []worker.Job{{Name: "telemetry-retention", Every: time.Hour, Run: func(ctx context.Context, due time.Time) error {
		n, err := telemetry.Prune(ctx, a.Store.Telemetry(), due)
		if n > 0 {
			a.Log.Info("telemetry history pruned", "chunks", n)
		}
		return err
	}}}
}
