package app

import (
	"context"
	"time"

	"atcp/internal/adapters/mqtt"
	"atcp/internal/adapters/simulated"
	"atcp/internal/assets"
	"atcp/internal/control"
	"atcp/internal/dispatch"
	"atcp/internal/markets/replay"
	"atcp/internal/reporting/afrrreport"
	"atcp/internal/telemetry"
	"atcp/internal/worker"
)

// controlLeaseRealSeconds is how long, in real seconds, the control
// loop's lease outlives its holder: another instance takes over the
// batteries within about that long.
const controlLeaseRealSeconds = 3

// stateStaleRealSeconds: the live state reports an asset not tradeable
// (asset_status 0) once its newest snapshot is older than this many real
// seconds. The control loop records every reachable asset each platform
// second (at most about 2 s behind at 40,000 assets, docs/performance.md)
// and another instance takes over within about controlLeaseRealSeconds,
// so only an asset that stopped reporting (an MQTT gateway offline, its
// measurements older than the adapter's own bound of 5 s) or a platform
// whose loop stopped crosses it.
const stateStaleRealSeconds = 5

// simulatorSeed fixes the simulator's noise (clouds, signal strength, the
// frequency within each replayed quarter-hour), so every instance and
// every restart replays the same days.
const simulatorSeed = 20260201

// controlLoop builds the control loop. Its adapters register here, by
// the name an asset's registration routes it with (docs/adapters.md).
// Assets of an adapter that is not configured (mqtt without
// ATCP_MQTT_URL) are registered but not steered; the loop says so once.
func (a *App) controlLoop(data *replay.Dataset) (*control.Loop, error) {
	adapters := map[string]control.Adapter{
		assets.AdapterSimulator: simulated.New(data, simulatorSeed, a.Store.SimulatorFaults()),
	}
	if a.Config.MQTTURL != "" {
		// New does not wait for the broker: the server starts, and the
		// MQTT assets are unreachable, until it answers.
		m, err := mqtt.New(context.Background(), mqtt.Options{URL: a.Config.MQTTURL, Username: a.Config.MQTTUsername,
			Password: a.Config.MQTTPassword, Logger: a.Log, Registerer: a.Server.Registry(), Clock: a.Security})
		if err != nil {
			return nil, err
		}
		a.mqtt = m
		adapters[assets.AdapterMQTT] = m
	}
	activations := simulated.NewActivations(data)
	a.afrrEvents = afrrreport.NewWriter(a.Store.AFRRDispatchEvents(), activations, a.Log)
	return control.New(control.Options{
		Assets:       a.Assets,
		Adapters:     adapters,
		Plan:         a.Dispatch,
		Restrictions: a.Store.Restrictions(),
		Curtailments: a.Restrictions,
		Bids:         a.Store.Bids(),
		Activations:  activations,
		Covers:       a.Store.CoverSteps(),
		Recorder:     telemetry.NewRecorder(a.Store.Telemetry(), telemetry.RecorderOptions{}),
		Latest:       a.Store.Telemetry(),
		FCRBuffer:    a.Config.FCRPowerBuffer,
		AFRREvents:   a.afrrEvents,
		Logger:       a.Log,
		Registerer:   a.Server.Registry(),
	})
}

// closeAdapters lets go of the brokers the adapters and the event bus
// hold.
func (a *App) closeAdapters(ctx context.Context) error {
	if a.bus != nil {
		a.bus.Close()
		a.bus = nil
	}
	if a.mqtt == nil {
		return nil
	}
	err := a.mqtt.Close(ctx)
	a.mqtt = nil
	return err
}

// retentionJobs keep the stored state history and the dispatch records
// within the 30 days the API reads.
func (a *App) retentionJobs() []worker.Job {
	return []worker.Job{
		{Name: "telemetry-retention", Every: time.Hour, Run: func(ctx context.Context, due time.Time) error {
			n, err := telemetry.Prune(ctx, a.Store.Telemetry(), due)
			if n > 0 {
				a.Log.Info("telemetry history pruned", "chunks", n)
			}
			return err
		}},
		{Name: "dispatch-retention", Every: time.Hour, Offset: 30 * time.Minute, Run: func(ctx context.Context, due time.Time) error {
			n, err := a.Dispatch.Prune(ctx, due)
			if n > 0 {
				a.Log.Info("dispatch records pruned", "rows", n)
			}
			return err
		}},
	}
}

// logImmediateEvents writes the immediate dispatch's internal enable and
// reset events (document 1, Events rule 4) to the log, the operators'
// audit trail of emergency overrides; the control loop itself reads the
// dispatches in force each second.
func (a *App) logImmediateEvents() {
	a.Dispatch.OnImmediate(func(e dispatch.ImmediateEvent) {
		a.Log.Info("immediate dispatch "+string(e.Kind), "asset_id", e.Dispatch.AssetID,
			"start_time", e.Dispatch.Start, "end_time", e.Dispatch.End, "set_power_mw", e.Dispatch.SetPowerMW)
	})
}

// steeredAdapters names the adapters through which this server steers
// assets: none without the control loop (ATCP_SIMULATE=false), the
// simulator, and mqtt when ATCP_MQTT_URL names a broker.
func (a *App) steeredAdapters() []assets.AdapterName {
	if !a.Config.Simulate {
		return nil
	}
	out := []assets.AdapterName{assets.AdapterSimulator}
	if a.Config.MQTTURL != "" {
		out = append(out, assets.AdapterMQTT)
	}
	return out
}
