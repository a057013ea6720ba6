package control

import (
	"context"
	"time"

	"atcp/internal/errs"
	"atcp/internal/telemetry"
)

// connectionMW is what the point of connection carries at most, the base
// of the curtailment bounds: the grid connection power, else rated power
// plus the PV peak (not a registry field; taken as the rated power, as
// the simulator does).
func (u *unit) connectionMW() float64 {
	if u.gridMW > 0 {
		return u.gridMW
	}
	if u.asset.PVActive {
		return 2 * u.ratedMW
	}
	return u.ratedMW
}

// curtail keeps the asset's curtailment records in line with what it
// measures (the DSO's signals reach the asset, not the platform): one is
// opened when the point of connection's curtailment starts, closed when
// it ends, and replaced (closed and a new one opened) when the DSO
// changes how much it curtails, so that each record's bounds are the ones
// that held. A record already open (or already closed) is fine: another
// instance may have written it.
func (l *Loop) curtail(ctx context.Context, u *unit, m telemetry.Measurements, t time.Time) {
	on := curtailed(m)
	var bounds [2]float64
	if on {
		bounds[0], bounds[1] = curtailmentBounds(u.connectionMW(), m)
	}
	if on == u.curtailed && (!on || bounds == u.bounds) {
		return
	}
	if u.curtailed {
		if _, err := l.o.Curtailments.CloseCurtailment(ctx, u.asset.ID, t); err != nil && !errs.Is(err, errs.NotFound) {
			l.log.Warn("control: curtailment record", "asset", u.asset.ID, "error", err)
			return
		}
		u.curtailed = false
	}
	if on {
		if _, err := l.o.Curtailments.OpenCurtailment(ctx, u.asset.ID, t, bounds[0], bounds[1]); err != nil && !errs.Is(err, errs.Conflict) {
			l.log.Warn("control: curtailment record", "asset", u.asset.ID, "error", err)
			return
		}
		u.curtailed, u.bounds = true, bounds
	}
}

// curtailed reports whether m shows the DSO curtailing the point of
// connection.
func curtailed(m telemetry.Measurements) bool {
	return m.ExportCurtailmentDSO > 0 || m.ImportCurtailmentDSO > 0
}

// curtailmentBounds are the curtailment record's figures (MW) for a point
// of connection of connMW under m's curtailment: the most the DSO lets
// the asset export (max_curtailment) and, signed negative, import
// (min_curtailment).
func curtailmentBounds(connMW float64, m telemetry.Measurements) (maxMW, minMW float64) {
	return connMW * (1 - m.ExportCurtailmentDSO/100), -connMW * (1 - m.ImportCurtailmentDSO/100)
}
