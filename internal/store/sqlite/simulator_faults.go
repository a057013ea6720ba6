package sqlite

import (
	"context"
	"time"

	"atcp/internal/adapters/simulated"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
	"atcp/internal/telemetry/simulator"
)

// SimulatorFaults returns the store of faults injected into simulated
// batteries.
func (db *DB) SimulatorFaults() simulated.FaultStore { return faultStore{db} }

// faultStore writes one row per statement: faults of one asset do not
// depend on each other, so nothing needs the asset's lock.
type faultStore struct{ db *DB }

const faultColumns = `fault_id, organization_id, asset_id, kind, start_time, end_time, created_by`

func scanFault(row restrictionRow) (simulated.Fault, error) {
	var f simulated.Fault
	var kind string
	var start, end int64
	if err := row.Scan(&f.ID, &f.OrganizationID, &f.AssetID, &kind, &start, &end, &f.CreatedBy); err != nil {
		return simulated.Fault{}, err
	}
	f.Kind, f.Start, f.End = simulator.FaultKind(kind), sqlutil.FromMicros(start), sqlutil.FromMicros(end)
	return f, nil
}

func (s faultStore) InsertFault(ctx context.Context, f simulated.Fault) (err error) {
	defer sqlutil.Wrap(&err, "simulator faults: insert")
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO simulator_faults (`+faultColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		f.ID, f.OrganizationID, f.AssetID, string(f.Kind), sqlutil.Micros(f.Start), sqlutil.Micros(f.End), f.CreatedBy)
	return err
}

func (s faultStore) ActiveFaults(ctx context.Context, at time.Time) (_ []simulated.Fault, err error) {
	defer sqlutil.Wrap(&err, "simulator faults: active")
	return collect(ctx, scanFault)(s.db.read(ctx).QueryContext(ctx, `SELECT `+faultColumns+` FROM simulator_faults
		WHERE cleared_at IS NULL AND end_time > ?1 AND start_time <= ?1 ORDER BY asset_id, start_time, fault_id`, sqlutil.Micros(at)))
}

func (s faultStore) AssetFaults(ctx context.Context, v auth.Visibility, assetID string, at time.Time) (_ []simulated.Fault, err error) {
	defer sqlutil.Wrap(&err, "simulator faults: of an asset")
	return collect(ctx, scanFault)(s.db.read(ctx).QueryContext(ctx, `SELECT `+faultColumns+` FROM simulator_faults
		WHERE (?1 OR organization_id = ?2) AND asset_id = ?3 AND cleared_at IS NULL AND end_time > ?4 AND start_time <= ?4
		ORDER BY start_time, fault_id`, v.All, v.OrganizationID, assetID, sqlutil.Micros(at)))
}

func (s faultStore) ClearFault(ctx context.Context, v auth.Visibility, assetID, faultID string, at time.Time) (err error) {
	defer sqlutil.Wrap(&err, "simulator faults: clear")
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE simulator_faults SET cleared_at = ?5
		WHERE (?1 OR organization_id = ?2) AND asset_id = ?3 AND fault_id = ?4
		AND cleared_at IS NULL AND end_time > ?5 AND start_time <= ?5`, v.All, v.OrganizationID, assetID, faultID, sqlutil.Micros(at))
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return errs.NotFoundf("fault %q of asset %q is not in force", faultID, assetID)
	}
	return nil
}
