package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
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

const afrrEventColumns = `organization_id, asset_id, dispatch_slot, direction, event_id::text, activation_id::text,
	request_id::text, created_at, planned_mw, set_mw, accepted_mw, coalesce(outcome, ''), coalesce(filter_reason, ''),
	coalesce(filter_details, ''), category, energy_price_cents, capacity_price::text`

// afrrEventWindow is the overlap of an event's quarter-hour with [$2, $3)
// (document 1, rule 5), for the asset $1 visible to ($4, $5).
const afrrEventWindow = ` FROM afrr_dispatch_events WHERE asset_id = $1 AND ($4 OR organization_id = $5)
	AND dispatch_slot > $2::timestamptz - interval '15 minutes' AND dispatch_slot < $3`

func scanAFRREvent(row pgx.Row) (afrrreport.Event, error) {
	var e afrrreport.Event
	var dir, outcome, category string
	var cents *int64
	var capacity *string
	if err := row.Scan(&e.OrganizationID, &e.AssetID, &e.Slot, &dir, &e.ID, &e.ActivationID, &e.RequestID, &e.CreatedAt,
		&e.PlannedMW, &e.SetMW, &e.AcceptedMW, &outcome, &e.FilterReason, &e.FilterDetails, &category, &cents, &capacity); err != nil {
		return afrrreport.Event{}, err
	}
	e.Direction, e.Outcome, e.Category = bids.Product(dir), afrrreport.Outcome(outcome), afrrreport.Category(category)
	e.Slot, e.CreatedAt = e.Slot.UTC(), e.CreatedAt.UTC()
	if cents != nil {
		p := afrr.PriceFromCents(*cents)
		e.EnergyPrice = &p
	}
	if capacity != nil {
		p, err := decimal.NewFromString(*capacity)
		if err != nil {
			return afrrreport.Event{}, err
		}
		e.CapacityPrice = &p
	}
	return e, nil
}

func (s afrrEventStore) Insert(ctx context.Context, events []afrrreport.Event) (_ int, err error) {
	defer sqlutil.Wrap(&err, "afrr dispatch events: insert")
	if len(events) == 0 {
		return 0, nil
	}
	n := len(events)
	org, asset, dir, id, activation, request := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	slot, created := make([]time.Time, n), make([]time.Time, n)
	planned, set, accepted := make([]float64, n), make([]float64, n), make([]float64, n)
	outcome, reason, details, capacity := make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
	category := make([]string, n)
	cents := make([]*int64, n)
	opt := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	for i, e := range events {
		org[i], asset[i], dir[i], id[i], activation[i], request[i] = e.OrganizationID, e.AssetID, string(e.Direction), e.ID, e.ActivationID, e.RequestID
		slot[i], created[i] = e.Slot, e.CreatedAt
		planned[i], set[i], accepted[i] = e.PlannedMW, e.SetMW, e.AcceptedMW
		outcome[i], reason[i], details[i], category[i] = opt(string(e.Outcome)), opt(e.FilterReason), opt(e.FilterDetails), string(e.Category)
		if e.EnergyPrice != nil {
			c := afrr.PriceCents(*e.EnergyPrice)
			cents[i] = &c
		}
		if e.CapacityPrice != nil {
			capacity[i] = opt(e.CapacityPrice.String())
		}
	}
	// One statement for the batch; a copy already stored is left alone.
	tag, err := s.db.conn(ctx).Exec(ctx, `INSERT INTO afrr_dispatch_events (organization_id, asset_id, dispatch_slot, direction,
		event_id, activation_id, request_id, created_at, planned_mw, set_mw, accepted_mw, outcome, filter_reason, filter_details,
		category, energy_price_cents, capacity_price)
		SELECT o, a, s, d, e::uuid, ac::uuid, r::uuid, c, pl, se, acc, ou, fr, fd, ca, ep, cp::numeric
		FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::timestamptz[], $9::float8[], $10::float8[], $11::float8[], $12::text[], $13::text[], $14::text[], $15::text[],
			$16::bigint[], $17::text[]) AS u(o, a, s, d, e, ac, r, c, pl, se, acc, ou, fr, fd, ca, ep, cp)
		ON CONFLICT DO NOTHING`,
		org, asset, slot, dir, id, activation, request, created, planned, set, accepted, outcome, reason, details, category, cents, capacity)
	if err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

func (s afrrEventStore) List(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, p reporting.Page) (_ []afrrreport.Event, _ int, err error) {
	defer sqlutil.Wrap(&err, "afrr dispatch events: list")
	var total int
	if err := s.db.conn(ctx).QueryRow(ctx, `SELECT count(*)`+afrrEventWindow,
		assetID, w.Start, w.End, v.All, v.OrganizationID).Scan(&total); err != nil {
		return nil, 0, sqlutil.Wrapped("count", err)
	}
	events, err := collectDispatch(ctx, scanAFRREvent)(s.db.conn(ctx).Query(ctx, `SELECT `+afrrEventColumns+afrrEventWindow+`
		ORDER BY dispatch_slot, direction DESC LIMIT $6 OFFSET $7`, assetID, w.Start, w.End, v.All, v.OrganizationID, p.Limit, p.Offset))
	if err != nil {
		return nil, 0, sqlutil.Wrapped("select", err)
	}
	return events, total, nil
}

func (s afrrEventStore) Totals(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, per afrrreport.Bucket) (_ []afrrreport.SlotTotal, err error) {
	defer sqlutil.Wrap(&err, "afrr dispatch events: totals")
	return collectDispatch(ctx, func(row pgx.Row) (afrrreport.SlotTotal, error) {
		var t afrrreport.SlotTotal
		var dir string
		err := row.Scan(&t.Slot, &dir, &t.Count, &t.Dispatched, &t.Filtered, &t.SetMW, &t.AcceptedMW)
		t.Slot, t.Direction = t.Slot.UTC(), bids.Product(dir)
		return t, err
	})(s.db.conn(ctx).Query(ctx, `SELECT CASE WHEN $6 THEN date_bin(interval '1 hour', dispatch_slot, timestamptz '2000-01-01 00:00:00+00')
			ELSE dispatch_slot END AS bucket, direction, count(*)::int,
		count(*) FILTER (WHERE set_mw <> 0)::int, count(*) FILTER (WHERE filter_reason IS NOT NULL)::int,
		sum(GREATEST(0, CASE WHEN direction = 'pos' THEN set_mw ELSE -set_mw END)),
		sum(GREATEST(0, CASE WHEN direction = 'pos' THEN accepted_mw ELSE -accepted_mw END))`+afrrEventWindow+`
		GROUP BY bucket, direction ORDER BY bucket, direction DESC`, assetID, w.Start, w.End, v.All, v.OrganizationID, per == afrrreport.PerHour))
}
