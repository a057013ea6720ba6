package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/alarms"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
)

// Alarms returns the alarm store.
func (db *DB) Alarms() alarms.Store { return alarmStore{db} }

type alarmStore struct{ db *DB }

// alarmEventsLock is the transaction-level advisory lock every
// transaction that records alarm events takes first: they commit one
// after the other, so event ids (taken from the identity inside the
// lock) increase in commit order, and a reader resuming after an id
// never skips one committed later. Events are transitions only, rare
// next to the evaluations.
const alarmEventsLock = 0x61746370616c726d // "atcpalrm"

func (s alarmStore) EngineState(ctx context.Context, shard alarms.Shard) (_ alarms.EngineState, err error) {
	defer sqlutil.Wrap(&err, "alarms: engine state")
	var st alarms.EngineState
	q := s.db.conn(ctx)
	rows, err := q.Query(ctx, `SELECT organization_id, asset_id, rule_id, holding, since FROM alarm_conditions
		WHERE shard_hash % $1 = $2`, shard.Count, shard.Index)
	if err != nil {
		return st, sqlutil.Wrapped("select tracks", err)
	}
	st.Tracks, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (alarms.Track, error) {
		var t alarms.Track
		err := row.Scan(&t.OrganizationID, &t.Key.AssetID, &t.Key.RuleID, &t.Holding, &t.Since)
		t.Since = t.Since.UTC()
		return t, err
	})
	if err != nil {
		return st, sqlutil.Wrapped("read tracks", err)
	}
	st.Lifecycles, err = s.lifecycles(ctx, q, `SELECT `+sqlutil.LifecycleList+` FROM alarm_lifecycles
		WHERE (open OR muted) AND shard_hash % $1 = $2`, shard.Count, shard.Index)
	return st, sqlutil.Wrapped("select lifecycles", err)
}

func (s alarmStore) lifecycles(ctx context.Context, q querier, sql string, args ...any) ([]alarms.Lifecycle, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []alarms.Lifecycle{}
	for rows.Next() {
		dest, finish := sqlutil.LifecycleScan(sqlutil.PostgresInstants)
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
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if len(b.Updates) > 0 {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(alarmEventsLock)); err != nil {
				return sqlutil.Wrapped("lock events", err)
			}
		}
		if err := s.writeTracks(ctx, tx, b); err != nil {
			return err
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

func (s alarmStore) writeTracks(ctx context.Context, tx pgx.Tx, b alarms.Batch) error {
	if n := len(b.Tracks); n > 0 {
		orgs, assetIDs, rules := make([]string, n), make([]string, n), make([]string, n)
		shards, holding, since := make([]int64, n), make([]bool, n), make([]time.Time, n)
		for i, t := range b.Tracks {
			orgs[i], assetIDs[i], rules[i] = t.OrganizationID, t.Key.AssetID, t.Key.RuleID
			shards[i], holding[i], since[i] = alarms.ShardHash(t.Key.AssetID), t.Holding, t.Since
		}
		if _, err := tx.Exec(ctx, `INSERT INTO alarm_conditions (organization_id, asset_id, rule_id, shard_hash, holding, since)
			SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::boolean[], $6::timestamptz[])
			ON CONFLICT (asset_id, rule_id) DO UPDATE SET organization_id = excluded.organization_id,
			holding = excluded.holding, since = excluded.since`, orgs, assetIDs, rules, shards, holding, since); err != nil {
			return sqlutil.Wrapped("upsert tracks", err)
		}
	}
	if n := len(b.DropTracks); n > 0 {
		assetIDs, rules := make([]string, n), make([]string, n)
		for i, k := range b.DropTracks {
			assetIDs[i], rules[i] = k.AssetID, k.RuleID
		}
		if _, err := tx.Exec(ctx, `DELETE FROM alarm_conditions c USING unnest($1::text[], $2::text[]) AS d (asset_id, rule_id)
			WHERE c.asset_id = d.asset_id AND c.rule_id = d.rule_id`, assetIDs, rules); err != nil {
			return sqlutil.Wrapped("delete tracks", err)
		}
	}
	return nil
}

// update locks the key's row, lets the update decide and writes its
// decision with the event. It returns the row afterwards (nil when the
// key has none) and the event recorded.
func (s alarmStore) update(ctx context.Context, tx pgx.Tx, u alarms.Update) (*alarms.Lifecycle, *alarms.Event, error) {
	list, err := s.lifecycles(ctx, tx, `SELECT `+sqlutil.LifecycleList+` FROM alarm_lifecycles
		WHERE asset_id = $1 AND rule_id = $2 AND ($3 OR organization_id = $4) FOR UPDATE`,
		u.Key.AssetID, u.Key.RuleID, u.Visibility.All, u.Visibility.OrganizationID)
	if err != nil {
		return nil, nil, sqlutil.Wrapped("lock lifecycle", err)
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
		vals, err := sqlutil.EventValues(*ev, sqlutil.PostgresInstants)
		if err != nil {
			return nil, nil, err
		}
		if err := tx.QueryRow(ctx, `INSERT INTO alarm_events (`+strings.Join(sqlutil.EventColumns, ", ")+`) VALUES (`+
			sqlutil.Placeholders(len(vals), 1, dollar)+`) RETURNING event_id`, vals...).Scan(&ev.ID); err != nil {
			return nil, nil, sqlutil.Wrapped("insert event", err)
		}
		if ev.Type == alarms.Acknowledged {
			next.AckEventID = &ev.ID
		}
	}
	vals, err := sqlutil.LifecycleValues(*next, sqlutil.PostgresInstants)
	if err != nil {
		return nil, nil, err
	}
	cols := strings.Join(sqlutil.LifecycleColumns, ", ")
	if cur == nil {
		_, err = tx.Exec(ctx, `INSERT INTO alarm_lifecycles (`+cols+`) VALUES (`+sqlutil.Placeholders(len(vals), 1, dollar)+`)`, vals...)
	} else {
		_, err = tx.Exec(ctx, `UPDATE alarm_lifecycles SET (`+cols+`) = (`+sqlutil.Placeholders(len(vals), 1, dollar)+`)
			WHERE asset_id = $2 AND rule_id = $3`, vals...)
	}
	if err != nil {
		return nil, nil, sqlutil.Wrapped("write lifecycle", err)
	}
	return next, ev, nil
}

func dollar(i int) string { return fmt.Sprintf("$%d", i) }

func (s alarmStore) Act(ctx context.Context, u alarms.Update) (_ alarms.Lifecycle, _ *alarms.Event, err error) {
	defer sqlutil.Wrap(&err, "alarms: act")
	var l *alarms.Lifecycle
	var ev *alarms.Event
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(alarmEventsLock)); err != nil {
			return sqlutil.Wrapped("lock events", err)
		}
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
	list, err := s.lifecycles(ctx, s.db.conn(ctx), `SELECT `+sqlutil.LifecycleList+` FROM alarm_lifecycles
		WHERE asset_id = $1 AND rule_id = $2 AND ($3 OR organization_id = $4)`, key.AssetID, key.RuleID, v.All, v.OrganizationID)
	if err != nil {
		return alarms.Lifecycle{}, err
	}
	if len(list) == 0 {
		return alarms.Lifecycle{}, errs.NotFoundf("alarm %s has never been open", key)
	}
	return list[0], nil
}

// where builds a WHERE clause of conditions with numbered arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	for range args {
		w.args = append(w.args, nil)
	}
	n := len(w.args) - len(args)
	for i, a := range args {
		w.args[n+i] = a
		cond = strings.Replace(cond, "?", dollar(n+i+1), 1)
	}
	w.conds = append(w.conds, cond)
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

func (w *where) page(limit, offset int) string {
	w.args = append(w.args, limit, offset)
	return fmt.Sprintf(" LIMIT $%d OFFSET $%d", len(w.args)-1, len(w.args))
}

func strs[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = string(x)
	}
	return out
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
		w.add("ts >= ?", f.From)
	}
	if !f.To.IsZero() {
		w.add("ts < ?", f.To)
	}
	if len(f.Severities) > 0 {
		w.add("severity = ANY(?)", strs(f.Severities))
	}
	if len(f.Types) > 0 {
		w.add("event_type = ANY(?)", strs(f.Types))
	}
	q := s.db.conn(ctx)
	var total int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM alarm_events`+w.String(), w.args...).Scan(&total); err != nil {
		return nil, 0, sqlutil.Wrapped("count events", err)
	}
	cond := w.String()
	rows, err := q.Query(ctx, `SELECT `+sqlutil.EventList+` FROM alarm_events`+cond+` ORDER BY ts DESC, event_id DESC`+
		w.page(f.Limit, f.Offset), w.args...)
	if err != nil {
		return nil, 0, sqlutil.Wrapped("select events", err)
	}
	defer rows.Close()
	out := []alarms.Event{}
	for rows.Next() {
		dest, finish := sqlutil.EventScan(sqlutil.PostgresInstants)
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
		w.add("severity = ANY(?)", strs(f.Severities))
	}
	q := s.db.conn(ctx)
	var total int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM alarm_lifecycles`+w.String(), w.args...).Scan(&total); err != nil {
		return nil, 0, sqlutil.Wrapped("count active", err)
	}
	cond := w.String()
	list, err := s.lifecycles(ctx, q, `SELECT `+sqlutil.LifecycleList+` FROM alarm_lifecycles`+cond+
		` ORDER BY opened_at DESC, asset_id, rule_id`+w.page(f.Limit, f.Offset), w.args...)
	if err != nil {
		return nil, 0, sqlutil.Wrapped("select active", err)
	}
	return list, total, nil
}
