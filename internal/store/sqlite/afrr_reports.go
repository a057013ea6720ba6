package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/auth"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/reporting"
	"atcp/internal/reporting/afrrreport"
	"atcp/internal/store/sqlutil"
)

// AFRRDispatchEvents returns the store of the aFRR dispatch events.
func (db *DB) AFRRDispatchEvents() afrrreport.Store { return afrrEventStore{db} }

type afrrEventStore struct{ db *DB }

const afrrEventColumns = `organization_id, asset_id, dispatch_slot, direction, event_id, activation_id, request_id, created_at,
	planned_mw, set_mw, accepted_mw, outcome, filter_reason, filter_details, category, energy_price_cents, capacity_price`

// afrrEventBatch is how many rows one INSERT writes (17 parameters each).
const afrrEventBatch = 50

var afrrEventInsertBatch = hotWrite(afrrEventInsert(afrrEventBatch))

func afrrEventInsert(n int) string {
	row := "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	// A copy already stored (another instance's, a retry) is left alone.
	return `INSERT INTO afrr_dispatch_events (` + afrrEventColumns + `) VALUES ` + row + strings.Repeat(", "+row, n-1) +
		` ON CONFLICT DO NOTHING`
}

// afrrEventWindow is the overlap of an event's quarter-hour with [?2, ?3)
// (document 1, rule 5; microseconds), for the asset ?1 visible to (?4, ?5).
const afrrEventWindow = ` FROM afrr_dispatch_events WHERE asset_id = ?1 AND (?4 OR organization_id = ?5)
	AND dispatch_slot > ?2 - 900000000 AND dispatch_slot < ?3`

func scanAFRREvent(row restrictionRow) (afrrreport.Event, error) {
	var e afrrreport.Event
	var dir, category string
	var outcome, reason, details, capacity sql.NullString
	var slot, created int64
	var cents *int64
	if err := row.Scan(&e.OrganizationID, &e.AssetID, &slot, &dir, &e.ID, &e.ActivationID, &e.RequestID, &created,
		&e.PlannedMW, &e.SetMW, &e.AcceptedMW, &outcome, &reason, &details, &category, &cents, &capacity); err != nil {
		return afrrreport.Event{}, err
	}
	e.Direction, e.Outcome, e.Category = bids.Product(dir), afrrreport.Outcome(outcome.String), afrrreport.Category(category)
	e.FilterReason, e.FilterDetails = reason.String, details.String
	e.Slot, e.CreatedAt = sqlutil.FromMicros(slot), sqlutil.FromMicros(created)
	if cents != nil {
		p := afrr.PriceFromCents(*cents)
		e.EnergyPrice = &p
	}
	if capacity.Valid {
		p, err := decimal.NewFromString(capacity.String)
		if err != nil {
			return afrrreport.Event{}, err
		}
		e.CapacityPrice = &p
	}
	return e, nil
}

func afrrEventArgs(e afrrreport.Event) []any {
	var cents, capacity any
	if e.EnergyPrice != nil {
		cents = afrr.PriceCents(*e.EnergyPrice)
	}
	if e.CapacityPrice != nil {
		capacity = e.CapacityPrice.String()
	}
	return []any{e.OrganizationID, e.AssetID, sqlutil.Micros(e.Slot), string(e.Direction), e.ID, e.ActivationID, e.RequestID,
		sqlutil.Micros(e.CreatedAt), e.PlannedMW, e.SetMW, e.AcceptedMW, sqlutil.NullIfEmpty(string(e.Outcome)),
		sqlutil.NullIfEmpty(e.FilterReason), sqlutil.NullIfEmpty(e.FilterDetails), string(e.Category), cents, capacity}
}

func (s afrrEventStore) Insert(ctx context.Context, events []afrrreport.Event) (n int, err error) {
	defer sqlutil.Wrap(&err, "afrr dispatch events: insert")
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for len(events) > 0 {
			k := min(len(events), afrrEventBatch)
			args := make([]any, 0, 17*k)
			for _, e := range events[:k] {
				args = append(args, afrrEventArgs(e)...)
			}
			var res sql.Result
			var err error
			if k == afrrEventBatch {
				stmt, serr := s.db.txStmt(ctx, tx, afrrEventInsertBatch)
				if serr != nil {
					return serr
				}
				res, err = stmt.ExecContext(ctx, args...)
			} else {
				res, err = tx.ExecContext(ctx, afrrEventInsert(k), args...)
			}
			if err != nil {
				return err
			}
			added, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += int(added)
			events = events[k:]
		}
		return nil
	})
	return n, err
}

func (s afrrEventStore) List(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, p reporting.Page) (_ []afrrreport.Event, _ int, err error) {
	defer sqlutil.Wrap(&err, "afrr dispatch events: list")
	args := []any{assetID, sqlutil.Micros(w.Start), sqlutil.Micros(w.End), v.All, v.OrganizationID}
	var total int
	if err := s.db.read(ctx).QueryRowContext(ctx, `SELECT count(*)`+afrrEventWindow, args...).Scan(&total); err != nil {
		return nil, 0, sqlutil.Wrapped("count", err)
	}
	events, err := collect(ctx, scanAFRREvent)(s.db.read(ctx).QueryContext(ctx, `SELECT `+afrrEventColumns+afrrEventWindow+`
		ORDER BY dispatch_slot, direction DESC LIMIT ?6 OFFSET ?7`, append(args, p.Limit, p.Offset)...))
	if err != nil {
		return nil, 0, sqlutil.Wrapped("select", err)
	}
	return events, total, nil
}

func (s afrrEventStore) Totals(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, per afrrreport.Bucket) (_ []afrrreport.SlotTotal, err error) {
	defer sqlutil.Wrap(&err, "afrr dispatch events: totals")
	return collect(ctx, func(row restrictionRow) (afrrreport.SlotTotal, error) {
		var t afrrreport.SlotTotal
		var dir string
		var slot int64
		err := row.Scan(&slot, &dir, &t.Count, &t.Dispatched, &t.Filtered, &t.SetMW, &t.AcceptedMW)
		t.Slot, t.Direction = sqlutil.FromMicros(slot), bids.Product(dir)
		return t, err
	})(s.db.read(ctx).QueryContext(ctx, `SELECT dispatch_slot / ?6 * ?6 AS bucket, direction, count(*), sum(set_mw <> 0),
		sum(filter_reason IS NOT NULL),
		sum(max(0, CASE WHEN direction = 'pos' THEN set_mw ELSE -set_mw END)),
		sum(max(0, CASE WHEN direction = 'pos' THEN accepted_mw ELSE -accepted_mw END))`+afrrEventWindow+`
		GROUP BY bucket, direction ORDER BY bucket, direction DESC`,
		assetID, sqlutil.Micros(w.Start), sqlutil.Micros(w.End), v.All, v.OrganizationID, bucketMicros(per)))
}

// bucketMicros is the length of a Totals bucket in microseconds (slots
// are microseconds since the epoch, whose hours are UTC's).
func bucketMicros(per afrrreport.Bucket) int64 {
	if per == afrrreport.PerHour {
		return time.Hour.Microseconds()
	}
	return (15 * time.Minute).Microseconds()
}
