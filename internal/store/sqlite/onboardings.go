package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/store/sqlutil"
)

// Onboardings returns the onboarding workflow store.
func (db *DB) Onboardings() onboarding.Store { return onboardingStore{db} }

// onboardingStore runs Mutate in a write transaction: the single write
// connection serialises the changes of a workflow; the partial unique
// index onboardings_in_progress keeps one in_progress workflow per asset.
type onboardingStore struct{ db *DB }

// onboardingSelect reads visible workflows (all, organisation).
var onboardingSelect = `SELECT ` + sqlutil.OnboardingList("o") + ` FROM onboardings o WHERE (? OR o.organization_id = ?)`

var gateSelect = `SELECT ` + sqlutil.GateList("g") + ` FROM onboarding_gates g`

func question(int) string { return "?" }

func onboardingNotFound(id string) error {
	return errs.E(errs.NotFound, onboarding.CodeOnboardingNotFound, "no onboarding %q", id)
}

type scanner interface{ Scan(dest ...any) error }

func scanOnboarding(row scanner) (onboarding.Onboarding, error) {
	dest, get := sqlutil.OnboardingScan(sqlutil.SQLiteInstants)
	if err := row.Scan(dest...); err != nil {
		return onboarding.Onboarding{}, err
	}
	return get()
}

// gates reads the gates of the workflows ids, in order, by workflow.
func (s onboardingStore) gates(ctx context.Context, ids []string) (map[string][]onboarding.Gate, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.read(ctx).QueryContext(ctx, gateSelect+` WHERE g.onboarding_id IN (`+sqlutil.Placeholders(len(ids), 1, question)+
		`) ORDER BY g.onboarding_id, g.gate_order`, args...)
	if err != nil {
		return nil, sqlutil.Wrapped("select gates", err)
	}
	defer rows.Close()
	out := map[string][]onboarding.Gate{}
	for rows.Next() {
		dest, get := sqlutil.GateScan(sqlutil.SQLiteInstants)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		g, err := get()
		if err != nil {
			return nil, err
		}
		out[g.OnboardingID] = append(out[g.OnboardingID], g)
	}
	return out, rows.Err()
}

func (s onboardingStore) withGates(ctx context.Context, ob onboarding.Onboarding) (onboarding.Onboarding, error) {
	gates, err := s.gates(ctx, []string{ob.ID})
	ob.Gates = gates[ob.ID]
	return ob, err
}

func (s onboardingStore) Create(ctx context.Context, ob onboarding.Onboarding, fn func(ctx context.Context) error) (err error) {
	defer sqlutil.Wrap(&err, "onboardings: create")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// Checked inside the write transaction: the single writer orders
		// this against a status change through the asset API, which
		// consults the workflows in progress (assets.StatusOwner).
		var status string
		err := tx.QueryRowContext(ctx, `SELECT asset_operational_status FROM assets WHERE asset_id = ? AND deleted_at IS NULL`,
			ob.AssetID).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return errs.E(errs.NotFound, onboarding.CodeAssetNotFound, "asset %q not found", ob.AssetID)
		}
		if err != nil {
			return sqlutil.Wrapped("read asset", err)
		}
		if status != "onboarding" {
			return errs.Conflictf(onboarding.CodeAssetNotOnboarding, "asset %q is %s; a workflow starts only for an asset in status onboarding", ob.AssetID, status)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO onboardings (`+sqlutil.OnboardingList("")+`) VALUES (`+
			sqlutil.Placeholders(len(sqlutil.OnboardingColumns), 1, question)+`)`, sqlutil.OnboardingValues(ob, sqlutil.SQLiteInstants)...)
		if isUniqueViolation(err) {
			return errs.Conflictf(onboarding.CodeOnboardingExists, "asset %q already has an onboarding in progress", ob.AssetID)
		}
		if err != nil {
			return sqlutil.Wrapped("insert onboarding", err)
		}
		for _, g := range ob.Gates {
			if _, err := tx.ExecContext(ctx, `INSERT INTO onboarding_gates (organization_id, `+sqlutil.GateList("")+`) VALUES (?, `+
				sqlutil.Placeholders(len(sqlutil.GateColumns), 2, question)+`)`,
				append([]any{ob.OrganizationID}, sqlutil.GateValues(g, sqlutil.SQLiteInstants)...)...); err != nil {
				return sqlutil.Wrapped("insert gate", err)
			}
		}
		return fn(ctx)
	})
}

func (s onboardingStore) Get(ctx context.Context, v auth.Visibility, id string) (_ onboarding.Onboarding, err error) {
	defer sqlutil.Wrap(&err, "onboardings: get")
	ob, err := scanOnboarding(s.db.read(ctx).QueryRowContext(ctx, onboardingSelect+` AND o.onboarding_id = ?`, v.All, v.OrganizationID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return onboarding.Onboarding{}, onboardingNotFound(id)
	}
	if err != nil {
		return onboarding.Onboarding{}, err
	}
	return s.withGates(ctx, ob)
}

func (s onboardingStore) List(ctx context.Context, v auth.Visibility, f onboarding.ListFilter) (_ []onboarding.Onboarding, err error) {
	defer sqlutil.Wrap(&err, "onboardings: list")
	rows, err := s.db.read(ctx).QueryContext(ctx, onboardingSelect+` AND (?3 = '' OR o.overall_status = ?3) AND (?4 = '' OR o.asset_id = ?4)
		AND (?5 = '' OR o.organization_id = ?5) ORDER BY o.created_at, o.onboarding_id`,
		v.All, v.OrganizationID, string(f.Status), f.AssetID, f.OrganizationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []onboarding.Onboarding{}
	for rows.Next() {
		ob, err := scanOnboarding(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, ob)
	}
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, err
	}
	ids := make([]string, len(out))
	for i, ob := range out {
		ids[i] = ob.ID
	}
	gates, err := s.gates(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Gates = gates[out[i].ID]
	}
	return out, nil
}

func (s onboardingStore) Mutate(ctx context.Context, v auth.Visibility, id string, fn func(ctx context.Context, ob onboarding.Onboarding) error) (err error) {
	defer sqlutil.Wrap(&err, "onboardings: mutate")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		ob, err := scanOnboarding(tx.QueryRowContext(ctx, onboardingSelect+` AND o.onboarding_id = ?`, v.All, v.OrganizationID, id))
		if errors.Is(err, sql.ErrNoRows) {
			return onboardingNotFound(id)
		}
		if err != nil {
			return sqlutil.Wrapped("read onboarding", err)
		}
		if ob, err = s.withGates(ctx, ob); err != nil {
			return err
		}
		return fn(ctx, ob)
	})
}

func (s onboardingStore) Update(ctx context.Context, ob onboarding.Onboarding) (err error) {
	defer sqlutil.Wrap(&err, "onboardings: update")
	var target any
	if ob.TargetHCDate != nil {
		target = ob.TargetHCDate.String()
	}
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboardings SET overall_status = ?, target_hc_date = ?, notes = ?, updated_at = ?,
		cancelled_at = ?, cancel_reason = ?, completed_at = ? WHERE organization_id = ? AND onboarding_id = ?`,
		string(ob.Status), target, ob.Notes, sqlutil.Micros(ob.UpdatedAt), sqlutil.NullMicros(ob.CancelledAt), ob.CancelReason,
		sqlutil.NullMicros(ob.CompletedAt), ob.OrganizationID, ob.ID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = onboardingNotFound(ob.ID)
		}
		return err
	}
	return nil
}

func (s onboardingStore) UpdateGate(ctx context.Context, organizationID string, g onboarding.Gate) (err error) {
	defer sqlutil.Wrap(&err, "onboardings: update gate")
	sets := make([]string, 0, len(sqlutil.GateColumns))
	for _, c := range sqlutil.GateColumns[3:] {
		sets = append(sets, fmt.Sprintf("%s = ?", c))
	}
	vals := sqlutil.GateValues(g, sqlutil.SQLiteInstants)
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_gates SET `+strings.Join(sets, ", ")+
		` WHERE organization_id = ? AND gate_id = ? AND onboarding_id = ? AND definition_id = ?`,
		append(vals[3:], organizationID, vals[0], vals[1], vals[2])...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = errs.E(errs.NotFound, onboarding.CodeGateNotFound, "no gate %q", g.ID)
		}
		return err
	}
	return nil
}

func (s onboardingStore) AppendAudit(ctx context.Context, e onboarding.AuditEntry) (err error) {
	defer sqlutil.Wrap(&err, "onboardings: append audit")
	vals, err := sqlutil.AuditValues(e, sqlutil.SQLiteInstants)
	if err != nil {
		return err
	}
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO onboarding_audit (`+sqlutil.AuditList+`) VALUES (`+
		sqlutil.Placeholders(len(sqlutil.AuditColumns), 1, question)+`)`, vals...)
	return err
}

func (s onboardingStore) Audit(ctx context.Context, v auth.Visibility, onboardingID string, f onboarding.AuditFilter) (_ []onboarding.AuditEntry, _ int, err error) {
	defer sqlutil.Wrap(&err, "onboardings: audit")
	where := `FROM onboarding_audit WHERE (?1 OR organization_id = ?2) AND onboarding_id = ?3
		AND substr(action, 1, length(?4)) = ?4 AND (?5 = '' OR target_type = ?5) AND (?6 = '' OR target_id = ?6) AND (?7 = '' OR actor_kind = ?7)
		AND (?8 IS NULL OR at >= ?8) AND (?9 IS NULL OR at < ?9)`
	args := []any{v.All, v.OrganizationID, onboardingID, f.ActionPrefix, f.TargetType, f.TargetID, f.ActorKind,
		sqlutil.NullMicros(f.StartTime), sqlutil.NullMicros(f.EndTime)}
	var total int
	if err := s.db.read(ctx).QueryRowContext(ctx, `SELECT count(*) `+where, args...).Scan(&total); err != nil {
		return nil, 0, sqlutil.Wrapped("count audit", err)
	}
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+sqlutil.AuditList+` `+where+` ORDER BY at DESC, entry_id DESC LIMIT ?10 OFFSET ?11`,
		append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, sqlutil.Wrapped("select audit", err)
	}
	defer rows.Close()
	out := []onboarding.AuditEntry{}
	for rows.Next() {
		dest, get := sqlutil.AuditScan(sqlutil.SQLiteInstants)
		if err := rows.Scan(dest...); err != nil {
			return nil, 0, err
		}
		e, err := get()
		if err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

func (s onboardingStore) InProgressFor(ctx context.Context, assetID string) (_ string, _ bool, err error) {
	defer sqlutil.Wrap(&err, "onboardings: in progress for asset")
	var id string
	err = s.db.read(ctx).QueryRowContext(ctx, `SELECT onboarding_id FROM onboardings WHERE asset_id = ? AND overall_status = 'in_progress'`,
		assetID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}
