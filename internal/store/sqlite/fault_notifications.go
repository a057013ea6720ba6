package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"atcp/internal/alarms/fault"
	"atcp/internal/errs"
	"atcp/internal/restrictions"
	"atcp/internal/store/sqlutil"
)

// Faults returns the fault-declaration store.
func (db *DB) Faults() fault.Store { return faultNotificationStore{db} }

// faultNotificationStore writes the record and the fault unavailability in one write
// transaction (SQLite has one writer at a time).
type faultNotificationStore struct{ db *DB }

const notificationColumns = `organization_id, asset_id, record_id, alarm_key, alarm_id, declared_by, status, language, subject, body,
	recipient_ids, unavailability_start, unavailability_end, already_declared, notes, created_at, updated_at`

func (s faultNotificationStore) Declare(ctx context.Context, organizationID, assetID string,
	plan func([]restrictions.Interval) (restrictions.Change, fault.Record, error)) (_ fault.Record, err error) {
	defer sqlutil.Wrap(&err, "faults: declare")
	var rec fault.Record
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
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
		if _, err := tx.ExecContext(ctx, `INSERT INTO fault_notifications (`+notificationColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			organizationID, assetID, rec.ID, rec.AlarmKey, rec.AlarmID, rec.DeclaredBy, string(rec.Status), rec.Language,
			rec.Subject, rec.Body, string(ids), sqlutil.Micros(rec.UnavailabilityStart), sqlutil.NullMicros(rec.UnavailabilityEnd),
			rec.AlreadyDeclared, rec.Notes, sqlutil.Micros(rec.CreatedAt), sqlutil.Micros(rec.UpdatedAt)); err != nil {
			return sqlutil.Wrapped("insert record", err)
		}
		return sqlutil.Wrapped("apply unavailability", applyChange(ctx, tx, c))
	})
	return rec, err
}

func (s faultNotificationStore) Finalise(ctx context.Context, assetID, recordID string, status fault.Status, at time.Time) (err error) {
	defer sqlutil.Wrap(&err, "faults: finalise")
	_, err = s.db.write(ctx).ExecContext(ctx, `UPDATE fault_notifications SET status = ?, updated_at = ?
		WHERE asset_id = ? AND record_id = ?`, string(status), sqlutil.Micros(at), assetID, recordID)
	return err
}

func (s faultNotificationStore) Record(ctx context.Context, assetID, recordID string) (_ fault.Record, err error) {
	defer sqlutil.Wrap(&err, "faults: record")
	var r fault.Record
	var status, ids string
	var start, created, updated int64
	var end *int64
	err = s.db.read(ctx).QueryRowContext(ctx, `SELECT `+notificationColumns+` FROM fault_notifications WHERE asset_id = ? AND record_id = ?`,
		assetID, recordID).Scan(&r.OrganizationID, &r.AssetID, &r.ID, &r.AlarmKey, &r.AlarmID, &r.DeclaredBy, &status,
		&r.Language, &r.Subject, &r.Body, &ids, &start, &end, &r.AlreadyDeclared, &r.Notes, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return fault.Record{}, errs.NotFoundf("fault-notification record %s not found", recordID)
	}
	if err != nil {
		return fault.Record{}, err
	}
	r.Status = fault.Status(status)
	r.UnavailabilityStart, r.UnavailabilityEnd = sqlutil.FromMicros(start), sqlutil.FromNullMicros(end)
	r.CreatedAt, r.UpdatedAt = sqlutil.FromMicros(created), sqlutil.FromMicros(updated)
	return r, json.Unmarshal([]byte(ids), &r.RecipientIDs)
}
