package app

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"atcp/internal/clock"
	"atcp/internal/config"
	"atcp/internal/store"
)

// DemoStart is where the demonstration clock starts without
// ATCP_CLOCK_START: the replayed bidding day, Sunday 2026-02-01, 07:00
// Europe/Berlin, before the FCR and aFRR gates.
var DemoStart = time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)

// startClock anchors the platform clock in the store, so that a restart
// with the same settings continues the same timeline and every instance on
// one database reads the same time; changing the settings re-anchors it.
func startClock(ctx context.Context, cfg config.Config, st store.Backend) (clock.Clock, error) {
	now := time.Now() // the one place the machine's clock enters the platform clock
	speed := strconv.FormatFloat(cfg.ClockSpeed, 'g', -1, 64)
	desired := clock.Anchor{VirtualStart: now.UTC(), RealStart: now.UTC(), Speed: cfg.ClockSpeed}
	var key string
	switch {
	case cfg.ClockStart != nil:
		desired.VirtualStart = *cfg.ClockStart
		key = "start=" + cfg.ClockStart.Format(time.RFC3339Nano) + " speed=" + speed
	case cfg.Demo:
		desired.VirtualStart = DemoStart
		key = "demo speed=" + speed
	case cfg.ClockSpeed == 1:
		return clock.NewScaled(clock.Anchor{VirtualStart: now, RealStart: now, Speed: 1}), nil
	default:
		key = "real speed=" + speed
	}
	anchor, err := st.ClockAnchor(ctx, key, desired)
	if err != nil {
		return nil, fmt.Errorf("anchor the clock: %w", err)
	}
	return clock.NewScaled(anchor), nil
}
