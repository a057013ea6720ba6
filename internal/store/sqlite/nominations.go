package sqlite

import (
	"context"
	"database/sql"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/reporting/nomination"
	"atcp/internal/store/sqlutil"
)

// Nominations returns the balancing-group nominations' store.
func (db *DB) Nominations() nomination.Store { return nominationStore{db} }

// nominationStore writes revisions in one write transaction: the single
// write connection serialises two runs nominating the same day, so the
// second finds the first's revision and adds none.
type nominationStore struct{ db *DB }

const nominationConfigColumns = `organization_id, tso, responsible_organization_id, control_area_eic, source_control_area_eic,
	target_control_area_eic, source_balancing_group_eic, target_balancing_group_eic, note, updated_at`

func (s nominationStore) EnergyBids(ctx context.Context, span calendar.Interval) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "nominations: energy bids")
	return queryBids(ctx, s.db.read(ctx), bidSelect+` WHERE market = 'afrr_energy'
		AND status IN ('PENDING', 'SUBMITTED', 'SUCCESSFUL', 'REJECTED', 'FALLBACK') AND start_time >= ? AND start_time < ?
		ORDER BY asset_id, bid_id`, sqlutil.Micros(span.Start), sqlutil.Micros(span.End))
}

func (s nominationStore) AssetZones(ctx context.Context) (_ []nomination.AssetZone, err error) {
	defer sqlutil.Wrap(&err, "nominations: asset zones")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT asset_id, organization_id, tso FROM assets WHERE tso IS NOT NULL ORDER BY asset_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []nomination.AssetZone
	for rows.Next() {
		var z nomination.AssetZone
		if err := rows.Scan(&z.AssetID, &z.OrganizationID, &z.TSO); err != nil {
			return nil, err
		}
		out = append(out, z)
	}
	return out, rows.Err()
}

func scanConfigs(rows *sql.Rows, err error) ([]nomination.Config, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []nomination.Config
	for rows.Next() {
		var c nomination.Config
		var updated int64
		if err := rows.Scan(&c.OrganizationID, &c.TSO, &c.ResponsibleOrganizationID, &c.EICs.ControlArea, &c.EICs.SourceControlArea,
			&c.EICs.TargetControlArea, &c.EICs.SourceBalancingGroup, &c.EICs.TargetBalancingGroup, &c.Note, &updated); err != nil {
			return nil, err
		}
		c.UpdatedAt = sqlutil.FromMicros(updated)
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s nominationStore) Configs(ctx context.Context) (_ []nomination.Config, err error) {
	defer sqlutil.Wrap(&err, "nominations: configs")
	return scanConfigs(s.db.read(ctx).QueryContext(ctx, `SELECT `+nominationConfigColumns+` FROM nomination_configs ORDER BY organization_id, tso`))
}

func (s nominationStore) Config(ctx context.Context, org string, tso assets.TSO) (_ nomination.Config, err error) {
	defer sqlutil.Wrap(&err, "nominations: config")
	list, err := scanConfigs(s.db.read(ctx).QueryContext(ctx, `SELECT `+nominationConfigColumns+` FROM nomination_configs
		WHERE organization_id = ? AND tso = ?`, org, string(tso)))
	if err != nil {
		return nomination.Config{}, err
	}
	if len(list) == 0 {
		return nomination.Config{}, errs.NotFoundf("no balancing-group configuration of organisation %q in zone %s", org, tso)
	}
	return list[0], nil
}

func configValues(c nomination.Config) []any {
	return []any{c.OrganizationID, string(c.TSO), c.ResponsibleOrganizationID, c.EICs.ControlArea, c.EICs.SourceControlArea,
		c.EICs.TargetControlArea, c.EICs.SourceBalancingGroup, c.EICs.TargetBalancingGroup, c.Note, sqlutil.Micros(c.UpdatedAt)}
}

func (s nominationStore) PutConfig(ctx context.Context, c nomination.Config) (err error) {
	defer sqlutil.Wrap(&err, "nominations: put config")
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO nomination_configs (`+nominationConfigColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id, tso) DO UPDATE SET responsible_organization_id = excluded.responsible_organization_id,
			control_area_eic = excluded.control_area_eic, source_control_area_eic = excluded.source_control_area_eic,
			target_control_area_eic = excluded.target_control_area_eic, source_balancing_group_eic = excluded.source_balancing_group_eic,
			target_balancing_group_eic = excluded.target_balancing_group_eic, note = excluded.note, updated_at = excluded.updated_at`,
		configValues(c)...)
	return err
}

func (s nominationStore) EnsureConfig(ctx context.Context, c nomination.Config) (err error) {
	defer sqlutil.Wrap(&err, "nominations: ensure config")
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO nomination_configs (`+nominationConfigColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (organization_id, tso) DO NOTHING`, configValues(c)...)
	return err
}

// scanRevisions reads revisions (RevisionColumns) without asset rows.
func scanRevisions(rows *sql.Rows, err error) ([]nomination.Revision, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []nomination.Revision{}
	for rows.Next() {
		var r sqlutil.RevisionRow
		var created int64
		var sent, answered *int64
		if err := rows.Scan(r.Targets(&created, &sent, &answered)...); err != nil {
			return nil, err
		}
		rev, err := r.Revision()
		if err != nil {
			return nil, err
		}
		rev.CreatedAt, rev.SentAt, rev.AnswerAt = sqlutil.FromMicros(created), sqlutil.FromNullMicros(sent), sqlutil.FromNullMicros(answered)
		out = append(out, rev)
	}
	return out, rows.Err()
}

// withAssets loads the asset rows of each revision, of owner org only
// unless org is empty.
func (s nominationStore) withAssets(ctx context.Context, revs []nomination.Revision, org string) error {
	for i := range revs {
		r := &revs[i]
		rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT asset_id, asset_organization_id, periods FROM nomination_assets
			WHERE organization_id = ? AND tso = ? AND delivery_day = ? AND revision = ? AND (? = '' OR asset_organization_id = ?)
			ORDER BY asset_id`, r.OrganizationID, string(r.TSO), r.Day.String(), r.Number, org, org)
		if err != nil {
			return sqlutil.Wrapped("read asset rows", err)
		}
		err = func() error {
			defer rows.Close()
			for rows.Next() {
				var a nomination.AssetRow
				var periods string
				if err := rows.Scan(&a.AssetID, &a.OrganizationID, &periods); err != nil {
					return err
				}
				if a.Periods, err = sqlutil.ParseNominationPeriods(periods); err != nil {
					return err
				}
				r.Assets = append(r.Assets, a)
			}
			return rows.Err()
		}()
		if err != nil {
			return sqlutil.Wrapped("read asset rows", err)
		}
	}
	return nil
}

func (s nominationStore) AddRevision(ctx context.Context, k nomination.Key, c nomination.Content, at time.Time) (rev nomination.Revision, added bool, err error) {
	defer sqlutil.Wrap(&err, "nominations: add revision")
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		latest, err := scanRevisions(tx.QueryContext(ctx, `SELECT `+sqlutil.RevisionColumns+` FROM nomination_revisions
			WHERE organization_id = ? AND tso = ? AND delivery_day = ? ORDER BY revision DESC LIMIT 1`,
			k.OrganizationID, string(k.TSO), k.Day.String()))
		if err != nil {
			return sqlutil.Wrapped("read latest revision", err)
		}
		var prev *nomination.Content
		n := 1
		if len(latest) == 1 {
			if err := s.withAssets(ctx, latest, ""); err != nil {
				return err
			}
			prev, n, rev = &latest[0].Content, latest[0].Number+1, latest[0]
		}
		reason := nomination.Diff(prev, c)
		if reason == "" {
			return nil
		}
		rev = nomination.NewRevision(k, n, c, reason, at)
		periods, err := sqlutil.NominationPeriods(c.Periods)
		if err != nil {
			return err
		}
		args := append([]any{k.OrganizationID, string(k.TSO), k.Day.String(), n, reason, rev.Reference, string(rev.Status), rev.Detail},
			sqlutil.NominationEICs(c.EICs)...)
		args = append(args, periods, sqlutil.Micros(at), nil, nil)
		res, err := tx.ExecContext(ctx, `INSERT INTO nomination_revisions (`+sqlutil.RevisionColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, args...)
		if err != nil {
			return sqlutil.Wrapped("insert revision", err)
		}
		if got, err := res.RowsAffected(); err != nil || got == 0 {
			return err
		}
		for _, a := range c.Assets {
			periods, err := sqlutil.NominationPeriods(a.Periods)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO nomination_assets (organization_id, tso, delivery_day, revision, asset_id,
				asset_organization_id, periods) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				k.OrganizationID, string(k.TSO), k.Day.String(), n, a.AssetID, a.OrganizationID, periods); err != nil {
				return sqlutil.Wrapped("insert asset row", err)
			}
		}
		added = true
		return nil
	})
	return rev, added, err
}

func (s nominationStore) ClaimUnsent(ctx context.Context, at, resendBefore time.Time) (_ []nomination.Revision, err error) {
	defer sqlutil.Wrap(&err, "nominations: claim unsent")
	var claimed []nomination.Revision
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		claimed, err = scanRevisions(tx.QueryContext(ctx, `UPDATE nomination_revisions SET status = 'sent', sent_at = ?
			WHERE status = 'pending' OR (status = 'sent' AND sent_at < ?)
			RETURNING `+sqlutil.RevisionColumns, sqlutil.Micros(at), sqlutil.Micros(resendBefore)))
		if err != nil {
			return err
		}
		return s.withAssets(ctx, claimed, "")
	})
	return claimed, err
}

func (s nominationStore) Answer(ctx context.Context, k nomination.Key, n int, status nomination.Status, detail string, at time.Time) (err error) {
	defer sqlutil.Wrap(&err, "nominations: answer")
	_, err = s.db.write(ctx).ExecContext(ctx, `UPDATE nomination_revisions SET status = ?, detail = ?, answered_at = ?
		WHERE organization_id = ? AND tso = ? AND delivery_day = ? AND revision = ? AND status = 'sent'`,
		string(status), detail, sqlutil.Micros(at), k.OrganizationID, string(k.TSO), k.Day.String(), n)
	return err
}

func (s nominationStore) Revisions(ctx context.Context, org string, day calendar.Day, tso assets.TSO) (_ []nomination.Revision, err error) {
	defer sqlutil.Wrap(&err, "nominations: revisions")
	return scanRevisions(s.db.read(ctx).QueryContext(ctx, `SELECT `+sqlutil.RevisionColumns+` FROM nomination_revisions
		WHERE organization_id = ? AND delivery_day = ? AND (? = '' OR tso = ?) ORDER BY tso, revision`,
		org, day.String(), string(tso), string(tso)))
}

func (s nominationStore) Zones(ctx context.Context, org string, day calendar.Day) (_ []assets.TSO, err error) {
	defer sqlutil.Wrap(&err, "nominations: zones")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT DISTINCT tso FROM nomination_revisions
		WHERE organization_id = ? AND delivery_day = ? ORDER BY tso`, org, day.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []assets.TSO
	for rows.Next() {
		var t assets.TSO
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// latestAcknowledged keeps, of the revisions r, the latest acknowledged
// one of each nomination.
const latestAcknowledged = ` r.status = 'acknowledged' AND r.revision = (SELECT max(x.revision) FROM nomination_revisions x
	WHERE x.organization_id = r.organization_id AND x.tso = r.tso AND x.delivery_day = r.delivery_day AND x.status = 'acknowledged')`

func (s nominationStore) Acknowledged(ctx context.Context, org string, day calendar.Day, tso assets.TSO) (_ []nomination.Revision, err error) {
	defer sqlutil.Wrap(&err, "nominations: acknowledged")
	revs, err := scanRevisions(s.db.read(ctx).QueryContext(ctx, `SELECT `+sqlutil.RevisionColumns+` FROM nomination_revisions r
		WHERE r.organization_id = ? AND r.delivery_day = ? AND (? = '' OR r.tso = ?) AND`+latestAcknowledged+` ORDER BY r.tso`,
		org, day.String(), string(tso), string(tso)))
	if err != nil {
		return nil, err
	}
	return revs, s.withAssets(ctx, revs, "")
}

func (s nominationStore) OwnedElsewhere(ctx context.Context, org string, day calendar.Day, tso assets.TSO) (_ []nomination.Revision, err error) {
	defer sqlutil.Wrap(&err, "nominations: owned elsewhere")
	// Only the key and exchange columns: another organisation's header and
	// zone periods are not the owner's to see.
	revs, err := scanRevisions(s.db.read(ctx).QueryContext(ctx, `SELECT organization_id, tso, delivery_day, revision, reason,
		data_exchange_reference, status, detail, NULL, NULL, NULL, NULL, NULL, '[]', created_at, sent_at, answered_at
		FROM nomination_revisions r
		WHERE r.delivery_day = ? AND r.organization_id <> ? AND (? = '' OR r.tso = ?) AND`+latestAcknowledged+`
		AND EXISTS (SELECT 1 FROM nomination_assets a WHERE a.organization_id = r.organization_id AND a.tso = r.tso
			AND a.delivery_day = r.delivery_day AND a.revision = r.revision AND a.asset_organization_id = ?)
		ORDER BY r.tso, r.organization_id`, day.String(), org, string(tso), string(tso), org))
	if err != nil {
		return nil, err
	}
	return revs, s.withAssets(ctx, revs, org)
}
