package postgres

import (
	"context"

	"atcp/internal/alarms"
	"atcp/internal/auth"
	"atcp/internal/store/sqlutil"
)

// The live stream's reads (alarms.Store): by event_id, on the
// alarm_events_id index.

func (s alarmStore) LatestEventID(ctx context.Context) (_ int64, err error) {
	defer sqlutil.Wrap(&err, "alarms: latest event id")
	var id int64
	err = s.db.conn(ctx).QueryRow(ctx, `SELECT COALESCE(max(event_id), 0) FROM alarm_events`).Scan(&id)
	return id, err
}

func (s alarmStore) EventsAfter(ctx context.Context, afterID int64, limit int) (_ []alarms.Event, err error) {
	defer sqlutil.Wrap(&err, "alarms: events after")
	var w where
	w.add("event_id > ?", afterID)
	return s.eventsByID(ctx, w, limit)
}

func (s alarmStore) VisibleEventsAfter(ctx context.Context, v auth.Visibility, organizationID string, afterID, throughID int64, limit int) (_ []alarms.Event, err error) {
	defer sqlutil.Wrap(&err, "alarms: visible events after")
	var w where
	w.add("event_id > ?", afterID)
	w.add("event_id <= ?", throughID)
	w.visibility(v)
	if organizationID != "" {
		w.add("organization_id = ?", organizationID)
	}
	return s.eventsByID(ctx, w, limit)
}

func (s alarmStore) eventsByID(ctx context.Context, w where, limit int) ([]alarms.Event, error) {
	query := `SELECT ` + sqlutil.EventList + ` FROM alarm_events` + w.String() + ` ORDER BY event_id`
	query += w.page(limit, 0) // before w.args is read: it appends the limit
	rows, err := s.db.conn(ctx).Query(ctx, query, w.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []alarms.Event{}
	for rows.Next() {
		dest, finish := sqlutil.EventScan(sqlutil.PostgresInstants)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		e, err := finish()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
