package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"atcp/internal/alarms"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
)

// Alarms returns the alarm store.
func (db *DB) Alarms() alarms.Store { return alarmStore{db} }

// alarmStore writes in the single write transaction: a lifecycle read in
// it is locked for the transaction, and events get increasing ids in
// commit order.
type alarmStore struct{ db *DB }

func (s alarmStore) EngineState(ctx context.Context, shard alarms.Shard) (_ alarms.EngineState, err error) {
	defer sqlutil.Wrap(&err, "alarms: engine state")
	var st alarms.EngineState
	q := s.db.read(ctx)
	rows, err := q.QueryContext(ctx, `SELECT organization_id, asset_id, rule_id, holding, since FROM alarm_conditions
		WHERE shard_hash % ? = ?`, shard.Count, shard.Index)
	if err != nil {
		return st, sqlutil.Wrapped("select tracks", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t alarms.Track
		var since int64
		if err := rows.Scan(&t.OrganizationID, &t.Key.AssetID, &t.Key.RuleID, &t.Holding, &since); err != nil {
			return st, err
		}
		t.Since = sqlutil.FromMicros(since)
		st.Tracks = append(st.Tracks, t)
	}
	if err := rows.Err(); err != nil {
		return st, sqlutil.Wrapped("read tracks", err)
	}
	st.Lifecycles, err = s.lifecycles(ctx, q, `SELECT `+sqlutil.LifecycleList+` FROM alarm_lifecycles
		WHERE (open OR muted) AND shard_hash % ? = ?`, shard.Count, shard.Index)
	return st, sqlutil.Wrapped("select lifecycles", err)
}

func (s alarmStore) lifecycles(ctx context.Context, q querier, query string, args ...any) ([]alarms.Lifecycle, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []alarms.Lifecycle{}
	for rows.Next() {
		dest, finish := sqlutil.LifecycleScan(sqlutil.SQLiteInstants)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		l, err := finish()
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

func (s alarmStore) Apply(ctx context.Context, b alarms.Batch) (_ []alarms.Event, err error) {
	defer sqlutil.Wrap(&err, "alarms: apply")
	b = b.Sorted()
	var events []alarms.Event
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, t := range b.Tracks {
			if _, err := tx.ExecContext(ctx, `INSERT INTO alarm_conditions (organization_id, asset_id, rule_id, shard_hash, holding, since)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (asset_id, rule_id) DO UPDATE SET organization_id = excluded.organization_id,
				holding = excluded.holding, since = excluded.since`,
				t.OrganizationID, t.Key.AssetID, t.Key.RuleID, alarms.ShardHash(t.Key.AssetID), t.Holding, sqlutil.Micros(t.Since)); err != nil {
				return sqlutil.Wrapped("upsert track", err)
			}
		}
		for _, k := range b.DropTracks {
			if _, err := tx.ExecContext(ctx, `DELETE FROM alarm_conditions WHERE asset_id = ? AND rule_id = ?`, k.AssetID, k.RuleID); err != nil {
				return sqlutil.Wrapped("delete track", err)
			}
		}
		for _, u := range b.Updates {
			_, ev, err := s.update(ctx, tx, u)
			if err != nil {
				return err
			}
			if ev != nil {
				events = append(events, *ev)
			}
		}
		return nil
	})
	return events, err
}

// update reads the key's row in the write transaction, lets the update
// decide and writes its decision with the event. It returns the row
// afterwards (nil when the key has none) and the event recorded.
func (s alarmStore) update(ctx context.Context, tx *sql.Tx, u alarms.Update) (*alarms.Lifecycle, *alarms.Event, error) {
	list, err := s.lifecycles(ctx, tx, `SELECT `+sqlutil.LifecycleList+` FROM alarm_lifecycles
		WHERE asset_id = ? AND rule_id = ? AND (? OR organization_id = ?)`,
		u.Key.AssetID, u.Key.RuleID, u.Visibility.All, u.Visibility.OrganizationID)
	if err != nil {
		return nil, nil, sqlutil.Wrapped("read lifecycle", err)
	}
	var cur *alarms.Lifecycle
	if len(list) == 1 {
		cur = &list[0]
	}
	next, ev, err := u.Decide(cur)
	if err != nil || next == nil {
		return cur, nil, err
	}
	if ev != nil {
		vals, err := sqlutil.EventValues(*ev, sqlutil.SQLiteInstants)
		if err != nil {
			return nil, nil, err
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO alarm_events (`+strings.Join(sqlutil.EventColumns, ", ")+`) VALUES (`+
			marks(len(vals))+`) RETURNING event_id`, vals...).Scan(&ev.ID); err != nil {
			return nil, nil, sqlutil.Wrapped("insert event", err)
		}
		if ev.Type == alarms.Acknowledged {
			next.AckEventID = &ev.ID
		}
	}
	vals, err := sqlutil.LifecycleValues(*next, sqlutil.SQLiteInstants)
	if err != nil {
		return nil, nil, err
	}
	// Every column is written: an upsert replaces the row as decided.
	cols := strings.Join(sqlutil.LifecycleColumns, ", ")
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO alarm_lifecycles (`+cols+`) VALUES (`+marks(len(vals))+`)`, vals...); err != nil {
		return nil, nil, sqlutil.Wrapped("write lifecycle", err)
	}
	return next, ev, nil
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func (s alarmStore) Act(ctx context.Context, u alarms.Update) (_ alarms.Lifecycle, _ *alarms.Event, err error) {
	defer sqlutil.Wrap(&err, "alarms: act")
	var l *alarms.Lifecycle
	var ev *alarms.Event
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		l, ev, err = s.update(ctx, tx, u)
		return err
	})
	if err != nil {
		return alarms.Lifecycle{}, nil, err
	}
	if l == nil {
		return alarms.Lifecycle{}, nil, errs.NotFoundf("alarm %s not found", u.Key)
	}
	return *l, ev, nil
}

func (s alarmStore) Lifecycle(ctx context.Context, v auth.Visibility, key alarms.Key) (_ alarms.Lifecycle, err error) {
	defer sqlutil.Wrap(&err, "alarms: lifecycle")
	list, err := s.lifecycles(ctx, s.db.read(ctx), `SELECT `+sqlutil.LifecycleList+` FROM alarm_lifecycles
		WHERE asset_id = ? AND rule_id = ? AND (? OR organization_id = ?)`, key.AssetID, key.RuleID, v.All, v.OrganizationID)
	if err != nil {
		return alarms.Lifecycle{}, err
	}
	if len(list) == 0 {
		return alarms.Lifecycle{}, errs.NotFoundf("alarm %s has never been open", key)
	}
	return list[0], nil
}

// where builds a WHERE clause of conditions with their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// in adds column IN (...) for the values.
func in[T ~string](w *where, column string, values []T) {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = string(v)
	}
	w.add(fmt.Sprintf("%s IN (%s)", column, marks(len(values))), args...)
}

func (w *where) visibility(v auth.Visibility) {
	if !v.All {
		w.add("organization_id = ?", v.OrganizationID)
	}
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

func (s alarmStore) Events(ctx context.Context, v auth.Visibility, f alarms.EventFilter) (_ []alarms.Event, _ int, err error) {
	defer sqlutil.Wrap(&err, "alarms: events")
	var w where
	w.visibility(v)
	if f.OrganizationID != "" {
		w.add("organization_id = ?", f.OrganizationID)
	}
	if f.AssetID != "" {
		w.add("asset_id = ?", f.AssetID)
	}
	if !f.From.IsZero() {
		w.add("ts >= ?", sqlutil.Micros(f.From))
	}
	if !f.To.IsZero() {
		w.add("ts < ?", sqlutil.Micros(f.To))
	}
	if len(f.Severities) > 0 {
		in(&w, "severity", f.Severities)
	}
	if len(f.Types) > 0 {
		in(&w, "event_type", f.Types)
	}
	q := s.db.read(ctx)
	var total int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM alarm_events`+w.String(), w.args...).Scan(&total); err != nil {
		return nil, 0, sqlutil.Wrapped("count events", err)
	}
	rows, err := q.QueryContext(ctx, `SELECT `+sqlutil.EventList+` FROM alarm_events`+w.String()+
		` ORDER BY ts DESC, event_id DESC LIMIT ? OFFSET ?`, append(w.args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, sqlutil.Wrapped("select events", err)
	}
	defer rows.Close()
	out := []alarms.Event{}
	for rows.Next() {
		dest, finish := sqlutil.EventScan(sqlutil.SQLiteInstants)
		if err := rows.Scan(dest...); err != nil {
			return nil, 0, err
		}
		e, err := finish()
		if err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

func (s alarmStore) Active(ctx context.Context, v auth.Visibility, f alarms.ActiveFilter) (_ []alarms.Lifecycle, _ int, err error) {
	defer sqlutil.Wrap(&err, "alarms: active")
	var w where
	w.add("open")
	w.visibility(v)
	if f.OrganizationID != "" {
		w.add("organization_id = ?", f.OrganizationID)
	}
	if f.AssetID != "" {
		w.add("asset_id = ?", f.AssetID)
	}
	if len(f.Severities) > 0 {
		in(&w, "severity", f.Severities)
	}
	q := s.db.read(ctx)
	var total int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM alarm_lifecycles`+w.String(), w.args...).Scan(&total); err != nil {
		return nil, 0, sqlutil.Wrapped("count active", err)
	}
	list, err := s.lifecycles(ctx, q, `SELECT `+sqlutil.LifecycleList+` FROM alarm_lifecycles`+w.String()+
		` ORDER BY opened_at DESC, asset_id, rule_id LIMIT ? OFFSET ?`, append(w.args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, sqlutil.Wrapped("select active", err)
	}
	return list, total, nil
}
