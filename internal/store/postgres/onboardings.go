package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/store/sqlutil"
)

// Onboardings returns the onboarding workflow store.
func (db *DB) Onboardings() onboarding.Store { return onboardingStore{db} }

// onboardingStore serialises the changes of one workflow by locking its
// row (FOR UPDATE) for the transaction of Mutate; the partial unique index
// onboardings_in_progress keeps one in_progress workflow per asset.
type onboardingStore struct{ db *DB }

// onboardingSelect reads visible workflows ($1 all, $2 organisation).
var onboardingSelect = `SELECT ` + strings.ReplaceAll(sqlutil.OnboardingList("o"), "o.onboarding_id", "o.onboarding_id::text") +
	` FROM onboardings o WHERE ($1 OR o.organization_id = $2)`

var gateSelect = `SELECT ` + strings.NewReplacer("g.gate_id", "g.gate_id::text", "g.onboarding_id", "g.onboarding_id::text").
	Replace(sqlutil.GateList("g")) + ` FROM onboarding_gates g`

func onboardingNotFound(id string) error {
	return errs.E(errs.NotFound, onboarding.CodeOnboardingNotFound, "no onboarding %q", id)
}

func scanOnboarding(row pgx.Row) (onboarding.Onboarding, error) {
	dest, get := sqlutil.OnboardingScan(sqlutil.PostgresInstants)
	if err := row.Scan(dest...); err != nil {
		return onboarding.Onboarding{}, err
	}
	return get()
}

// gates reads the gates of the workflows ids, in order, by workflow.
func (s onboardingStore) gates(ctx context.Context, ids []string) (map[string][]onboarding.Gate, error) {
	rows, err := s.db.conn(ctx).Query(ctx, gateSelect+` WHERE g.onboarding_id = ANY($1::uuid[]) ORDER BY g.onboarding_id, g.gate_order`, ids)
	if err != nil {
		return nil, sqlutil.Wrapped("select gates", err)
	}
	return collectGates(rows)
}

func collectGates(rows pgx.Rows) (map[string][]onboarding.Gate, error) {
	defer rows.Close()
	out := map[string][]onboarding.Gate{}
	for rows.Next() {
		dest, get := sqlutil.GateScan(sqlutil.PostgresInstants)
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
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		// The asset's row lock orders this against a status change through
		// the asset API, which consults the workflows in progress under the
		// same lock (assets.StatusOwner): one of the two sees the other.
		var status string
		err := tx.QueryRow(ctx, `SELECT asset_operational_status FROM assets WHERE asset_id = $1 AND deleted_at IS NULL FOR UPDATE`,
			ob.AssetID).Scan(&status)
		if errors.Is(err, pgx.ErrNoRows) {
			return errs.E(errs.NotFound, onboarding.CodeAssetNotFound, "asset %q not found", ob.AssetID)
		}
		if err != nil {
			return sqlutil.Wrapped("lock asset", err)
		}
		if status != "onboarding" {
			return errs.Conflictf(onboarding.CodeAssetNotOnboarding, "asset %q is %s; a workflow starts only for an asset in status onboarding", ob.AssetID, status)
		}
		_, err = tx.Exec(ctx, `INSERT INTO onboardings (`+sqlutil.OnboardingList("")+`) VALUES (`+
			sqlutil.Placeholders(len(sqlutil.OnboardingColumns), 1, dollar)+`)`, sqlutil.OnboardingValues(ob, sqlutil.PostgresInstants)...)
		if isUniqueViolation(err) {
			return errs.Conflictf(onboarding.CodeOnboardingExists, "asset %q already has an onboarding in progress", ob.AssetID)
		}
		if err != nil {
			return sqlutil.Wrapped("insert onboarding", err)
		}
		for _, g := range ob.Gates {
			if _, err := tx.Exec(ctx, `INSERT INTO onboarding_gates (organization_id, `+sqlutil.GateList("")+`) VALUES ($1, `+
				sqlutil.Placeholders(len(sqlutil.GateColumns), 2, dollar)+`)`,
				append([]any{ob.OrganizationID}, sqlutil.GateValues(g, sqlutil.PostgresInstants)...)...); err != nil {
				return sqlutil.Wrapped("insert gate", err)
			}
		}
		return fn(ctx)
	})
}

func (s onboardingStore) Get(ctx context.Context, v auth.Visibility, id string) (_ onboarding.Onboarding, err error) {
	defer sqlutil.Wrap(&err, "onboardings: get")
	if !onboarding.ValidID(id) {
		return onboarding.Onboarding{}, onboardingNotFound(id)
	}
	// The workflow and its gates in one round trip: every onboarding
	// request reads them, the task page an external contact reloads too.
	var b pgx.Batch
	b.Queue(onboardingSelect+` AND o.onboarding_id = $3`, v.All, v.OrganizationID, id)
	b.Queue(gateSelect+` WHERE g.onboarding_id = $1::uuid ORDER BY g.gate_order`, id)
	br := s.db.conn(ctx).SendBatch(ctx, &b)
	defer br.Close()
	ob, err := scanOnboarding(br.QueryRow())
	if errors.Is(err, pgx.ErrNoRows) {
		return onboarding.Onboarding{}, onboardingNotFound(id)
	}
	if err != nil {
		return onboarding.Onboarding{}, err
	}
	rows, err := br.Query()
	if err != nil {
		return onboarding.Onboarding{}, sqlutil.Wrapped("select gates", err)
	}
	gates, err := collectGates(rows)
	ob.Gates = gates[ob.ID]
	return ob, err
}

func (s onboardingStore) List(ctx context.Context, v auth.Visibility, f onboarding.ListFilter) (_ []onboarding.Onboarding, err error) {
	defer sqlutil.Wrap(&err, "onboardings: list")
	rows, err := s.db.conn(ctx).Query(ctx, onboardingSelect+` AND ($3 = '' OR o.overall_status = $3) AND ($4 = '' OR o.asset_id = $4)
		AND ($5 = '' OR o.organization_id = $5) ORDER BY o.created_at, o.onboarding_id`,
		v.All, v.OrganizationID, string(f.Status), f.AssetID, f.OrganizationID)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (onboarding.Onboarding, error) { return scanOnboarding(row) })
	if err != nil || len(out) == 0 {
		return []onboarding.Onboarding{}, err
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
	if !onboarding.ValidID(id) {
		return onboardingNotFound(id)
	}
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		ob, err := scanOnboarding(tx.QueryRow(ctx, onboardingSelect+` AND o.onboarding_id = $3 FOR UPDATE`, v.All, v.OrganizationID, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return onboardingNotFound(id)
		}
		if err != nil {
			return sqlutil.Wrapped("lock onboarding", err)
		}
		if ob, err = s.withGates(ctx, ob); err != nil {
			return err
		}
		return fn(ctx, ob)
	})
}

func (s onboardingStore) Update(ctx context.Context, ob onboarding.Onboarding) (err error) {
	defer sqlutil.Wrap(&err, "onboardings: update")
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboardings SET overall_status = $3, target_hc_date = $4, notes = $5, updated_at = $6,
		cancelled_at = $7, cancel_reason = $8, completed_at = $9 WHERE organization_id = $1 AND onboarding_id = $2`,
		ob.OrganizationID, ob.ID, string(ob.Status), targetText(ob), ob.Notes, ob.UpdatedAt, ob.CancelledAt, ob.CancelReason, ob.CompletedAt)
	if err == nil && tag.RowsAffected() == 0 {
		return onboardingNotFound(ob.ID)
	}
	return err
}

func targetText(ob onboarding.Onboarding) any {
	if ob.TargetHCDate == nil {
		return nil
	}
	return ob.TargetHCDate.String()
}

func (s onboardingStore) UpdateGate(ctx context.Context, organizationID string, g onboarding.Gate) (err error) {
	defer sqlutil.Wrap(&err, "onboardings: update gate")
	sets := make([]string, 0, len(sqlutil.GateColumns))
	for i, c := range sqlutil.GateColumns[3:] {
		sets = append(sets, fmt.Sprintf("%s = $%d", c, i+5))
	}
	vals := sqlutil.GateValues(g, sqlutil.PostgresInstants)
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_gates SET `+strings.Join(sets, ", ")+
		` WHERE organization_id = $1 AND gate_id = $2 AND onboarding_id = $3 AND definition_id = $4`,
		append([]any{organizationID, vals[0], vals[1], vals[2]}, vals[3:]...)...)
	if err == nil && tag.RowsAffected() == 0 {
		return errs.E(errs.NotFound, onboarding.CodeGateNotFound, "no gate %q", g.ID)
	}
	return err
}

func (s onboardingStore) AppendAudit(ctx context.Context, e onboarding.AuditEntry) (err error) {
	defer sqlutil.Wrap(&err, "onboardings: append audit")
	vals, err := sqlutil.AuditValues(e, sqlutil.PostgresInstants)
	if err != nil {
		return err
	}
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO onboarding_audit (`+sqlutil.AuditList+`) VALUES (`+
		sqlutil.Placeholders(len(sqlutil.AuditColumns), 1, dollar)+`)`, vals...)
	return err
}

func (s onboardingStore) Audit(ctx context.Context, v auth.Visibility, onboardingID string, f onboarding.AuditFilter) (_ []onboarding.AuditEntry, _ int, err error) {
	defer sqlutil.Wrap(&err, "onboardings: audit")
	if !onboarding.ValidID(onboardingID) {
		return nil, 0, onboardingNotFound(onboardingID)
	}
	where := `FROM onboarding_audit WHERE ($1 OR organization_id = $2) AND onboarding_id = $3
		AND starts_with(action, $4) AND ($5 = '' OR target_type = $5) AND ($6 = '' OR target_id = $6) AND ($7 = '' OR actor_kind = $7)
		AND ($8::timestamptz IS NULL OR at >= $8) AND ($9::timestamptz IS NULL OR at < $9)`
	args := []any{v.All, v.OrganizationID, onboardingID, f.ActionPrefix, f.TargetType, f.TargetID, f.ActorKind, f.StartTime, f.EndTime}
	var total int
	if err := s.db.conn(ctx).QueryRow(ctx, `SELECT count(*) `+where, args...).Scan(&total); err != nil {
		return nil, 0, sqlutil.Wrapped("count audit", err)
	}
	sel := strings.NewReplacer("entry_id", "entry_id::text", "onboarding_id", "onboarding_id::text").Replace(sqlutil.AuditList)
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+sel+` `+where+` ORDER BY at DESC, entry_id DESC LIMIT $10 OFFSET $11`,
		append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, sqlutil.Wrapped("select audit", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (onboarding.AuditEntry, error) {
		dest, get := sqlutil.AuditScan(sqlutil.PostgresInstants)
		if err := row.Scan(dest...); err != nil {
			return onboarding.AuditEntry{}, err
		}
		return get()
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func (s onboardingStore) InProgressFor(ctx context.Context, assetID string) (_ string, _ bool, err error) {
	defer sqlutil.Wrap(&err, "onboardings: in progress for asset")
	var id string
	err = s.db.conn(ctx).QueryRow(ctx, `SELECT onboarding_id FROM onboardings WHERE asset_id = $1 AND overall_status = 'in_progress'`,
		assetID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}
