package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/alarms/fault"
	"atcp/internal/errs"
	"atcp/internal/restrictions"
	"atcp/internal/store/sqlutil"
)

// Faults returns the fault-declaration store.
func (db *DB) Faults() fault.Store { return faultNotificationStore{db} }

// faultNotificationStore writes the record and the fault unavailability under the
// restrictions' advisory lock of the asset, so that a declaration is
// serialised with every other interval write on it.
type faultNotificationStore struct{ db *DB }

const faultInsertColumns = `organization_id, asset_id, record_id, alarm_key, alarm_id, declared_by, status, language, subject, body,
	recipient_ids, unavailability_start, unavailability_end, already_declared, notes, created_at, updated_at`

const notificationColumns = `organization_id, asset_id, record_id::text, alarm_key, alarm_id, declared_by, status, language, subject, body,
	recipient_ids, unavailability_start, unavailability_end, already_declared, notes, created_at, updated_at`

func (s faultNotificationStore) Declare(ctx context.Context, organizationID, assetID string,
	plan func([]restrictions.Interval) (restrictions.Change, fault.Record, error)) (_ fault.Record, err error) {
	defer sqlutil.Wrap(&err, "faults: declare")
	var rec fault.Record
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if err := lockRestrictedAsset(ctx, tx, assetID); err != nil {
			return sqlutil.Wrapped("lock asset", err)
		}
		existing, err := kindIntervals(ctx, tx, assetID, restrictions.Unavailability)
		if err != nil {
			return sqlutil.Wrapped("read unavailability", err)
		}
		var c restrictions.Change
		if c, rec, err = plan(existing); err != nil {
			return err
		}
		ids, err := json.Marshal(append([]int64{}, rec.RecipientIDs...))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO fault_notifications (`+faultInsertColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
			organizationID, assetID, rec.ID, rec.AlarmKey, rec.AlarmID, rec.DeclaredBy, string(rec.Status), rec.Language,
			rec.Subject, rec.Body, ids, rec.UnavailabilityStart, rec.UnavailabilityEnd, rec.AlreadyDeclared, rec.Notes,
			rec.CreatedAt, rec.UpdatedAt); err != nil {
			return sqlutil.Wrapped("insert record", err)
		}
		return sqlutil.Wrapped("apply unavailability", applyChange(ctx, tx, c))
	})
	return rec, err
}

func (s faultNotificationStore) Finalise(ctx context.Context, assetID, recordID string, status fault.Status, at time.Time) (err error) {
	defer sqlutil.Wrap(&err, "faults: finalise")
	_, err = s.db.conn(ctx).Exec(ctx, `UPDATE fault_notifications SET status = $3, updated_at = $4
		WHERE asset_id = $1 AND record_id = $2`, assetID, recordID, string(status), at)
	return err
}

func (s faultNotificationStore) Record(ctx context.Context, assetID, recordID string) (_ fault.Record, err error) {
	defer sqlutil.Wrap(&err, "faults: record")
	var r fault.Record
	var status string
	var ids []byte
	err = s.db.conn(ctx).QueryRow(ctx, `SELECT `+notificationColumns+` FROM fault_notifications WHERE asset_id = $1 AND record_id = $2`,
		assetID, recordID).Scan(&r.OrganizationID, &r.AssetID, &r.ID, &r.AlarmKey, &r.AlarmID, &r.DeclaredBy, &status,
		&r.Language, &r.Subject, &r.Body, &ids, &r.UnavailabilityStart, &r.UnavailabilityEnd, &r.AlreadyDeclared, &r.Notes,
		&r.CreatedAt, &r.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return fault.Record{}, errs.NotFoundf("fault-notification record %s not found", recordID)
	}
	if err != nil {
		return fault.Record{}, err
	}
	r.Status = fault.Status(status)
	r.UnavailabilityStart, r.UnavailabilityEnd = sqlutil.UTC(r.UnavailabilityStart), sqlutil.UTCPtr(r.UnavailabilityEnd)
	r.CreatedAt, r.UpdatedAt = sqlutil.UTC(r.CreatedAt), sqlutil.UTC(r.UpdatedAt)
	return r, json.Unmarshal(ids, &r.RecipientIDs)
}
