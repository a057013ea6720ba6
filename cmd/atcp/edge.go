package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"time"

	"atcp/internal/adapters/mqtt"
	"atcp/internal/telemetry/simulator"
)

// edgeFlags are the settings of atcp edge.
type edgeFlags struct {
	broker, username, assets, logLevel   string
	powerMW, energyMWh, efficiency, ramp float64
	pvPeakMW                             float64
	seed                                 uint64
}

const edgeUsage = `Usage: atcp edge --broker mqtt://host:port --asset ID[,ID...] [flags]

Runs each asset as a simulated battery behind its own MQTT edge gateway on
topic prefix atcp/<asset id> (docs/adapters.md): it executes the fresh
commands the platform publishes and publishes the battery's measurements.
Register the assets with "adapter": "mqtt" and the same capacities.
The password comes from ATCP_MQTT_PASSWORD only.

`

// edge runs atcp edge until ctx ends; it returns the exit code.
func edge(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stderr io.Writer) int {
	env := func(name string) string { v, _ := lookupEnv(name); return v }
	var f edgeFlags
	fs := flag.NewFlagSet("edge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.broker, "broker", env("ATCP_MQTT_URL"), "MQTT v5 broker, mqtt://host:port or mqtts://host:port [ATCP_MQTT_URL]")
	fs.StringVar(&f.username, "username", env("ATCP_MQTT_USERNAME"), "user name on the broker [ATCP_MQTT_USERNAME]")
	fs.StringVar(&f.assets, "asset", "", "comma-separated asset ids, one gateway each")
	fs.Float64Var(&f.powerMW, "power-mw", 10, "rated power of each battery, MW, both ways")
	fs.Float64Var(&f.energyMWh, "energy-mwh", 20, "usable energy of each battery, MWh")
	fs.Float64Var(&f.efficiency, "efficiency", 1, "charging and discharging efficiency each, in (0, 1]")
	fs.Float64Var(&f.ramp, "ramp-mw-per-sec", 0, "ramp rate both ways, MW/s; 0 is unlimited")
	fs.Float64Var(&f.pvPeakMW, "pv-peak-mw", 0, "peak power of co-located PV, MW; 0 is no PV")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the simulated noise (PV clouds, LTE signal)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.Usage = func() {
		fmt.Fprint(stderr, edgeUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	var level slog.Level
	batteries, err := f.batteries()
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err == nil {
		err = level.UnmarshalText([]byte(f.logLevel))
	}
	if err != nil {
		fmt.Fprintf(stderr, "atcp edge: %v\n", err)
		return 2
	}
	log := newLogger(stderr, isTerminal(stderr), level)
	e, err := mqtt.NewEdge(ctx, mqtt.EdgeOptions{
		URL: f.broker, Username: f.username, Password: env("ATCP_MQTT_PASSWORD"), Batteries: batteries, Seed: f.seed, Logger: log,
		OnCommand: func(assetID string, seq uint64, err error) {
			if err != nil {
				log.Warn("edge: command refused", "asset", assetID, "seq", seq, "error", err)
				return
			}
			log.Debug("edge: command executed", "asset", assetID, "seq", seq)
		},
	})
	if err != nil {
		fmt.Fprintf(stderr, "atcp edge: %v\n", err)
		return 2
	}
	log.Info("edge: running", "assets", len(batteries))
	<-ctx.Done()
	closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.Close(closeCtx); err != nil {
		log.Error("edge: stopping", "error", err)
		return 1
	}
	return 0
}

// batteries builds the physics of every asset from the flags.
func (f edgeFlags) batteries() ([]simulator.Config, error) {
	if f.broker == "" {
		return nil, errors.New("--broker (or ATCP_MQTT_URL) is required")
	}
	if f.assets == "" {
		return nil, errors.New("--asset is required")
	}
	ramp := f.ramp
	if ramp == 0 {
		ramp = math.Inf(1)
	}
	var out []simulator.Config
	for _, id := range strings.Split(f.assets, ",") {
		c := simulator.Config{
			AssetID: strings.TrimSpace(id), EnergyCapacityMWh: f.energyMWh, PowerCapacityMW: f.powerMW,
			ChargeEfficiency: f.efficiency, DischargeEfficiency: f.efficiency, RampUpMWPerSec: ramp, RampDownMWPerSec: ramp,
			GridImportAllowed: true, PVActive: f.pvPeakMW > 0, PVPeakMW: f.pvPeakMW, LongitudeDeg: 10,
		}
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("asset %q: %w", c.AssetID, err)
		}
		out = append(out, c)
	}
	return out, nil
}
