package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/store/sqlutil"
)

// Bids returns the bid store of every market.
func (db *DB) Bids() bids.Store { return bidStore{db} }

// bidStore serialises the changes of an asset's bids by locking the asset
// row (SELECT ... FOR UPDATE) in the transaction that reads, checks and
// writes them.
type bidStore struct{ db *DB }

var (
	bidSelect = "SELECT bid_id::text, " + strings.Join(sqlutil.BidFixed[1:], ", ") + ", " + strings.Join(sqlutil.BidMutable, ", ") + " FROM bids"
	bidInsert = "INSERT INTO bids (" + strings.Join(sqlutil.BidFixed, ", ") + ", " + strings.Join(sqlutil.BidMutable, ", ") +
		") VALUES (" + placeholders(1, len(sqlutil.BidFixed)+len(sqlutil.BidMutable)) + ")"
	bidUpdate = "UPDATE bids SET (" + strings.Join(sqlutil.BidMutable, ", ") + ") = (" + placeholders(3, len(sqlutil.BidMutable)) +
		") WHERE bid_id = $1 AND asset_id = $2"
)

// bidsInWindow reads an asset's ($1) bids of a market ($2) overlapping
// [$3, $4).
var bidsInWindow = bidSelect + ` WHERE asset_id = $1 AND market = $2 AND end_time > $3 AND start_time < $4`

func bidValues(b bids.Bid) []any {
	var editAt any
	if b.LastEdit != nil {
		editAt = b.LastEdit.AttemptedAt
	}
	return sqlutil.BidValues(b, sqlutil.BidInstants{Start: b.Start, End: b.End, SubmittedAt: b.SubmittedAt, EditAttemptedAt: editAt, UpdatedAt: b.UpdatedAt})
}

func scanBid(row pgx.Row) (bids.Bid, error) {
	var b bids.Bid
	var r sqlutil.BidRow
	var editAt *time.Time
	if err := row.Scan(r.Targets(&b, &b.CreatedAt, &b.Start, &b.End, &b.SubmittedAt, &editAt, &b.UpdatedAt)...); err != nil {
		return b, err
	}
	b.CreatedAt, b.UpdatedAt = sqlutil.UTC(b.CreatedAt), sqlutil.UTC(b.UpdatedAt)
	b.Start, b.End, b.SubmittedAt = sqlutil.UTC(b.Start), sqlutil.UTC(b.End), sqlutil.UTCPtr(b.SubmittedAt)
	r.Finish(&b, sqlutil.UTCPtr(editAt))
	return b, nil
}

type bidQuerier interface {
	Query(ctx context.Context, q string, args ...any) (pgx.Rows, error)
}

func queryBids(ctx context.Context, q bidQuerier, query string, args ...any) ([]bids.Bid, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []bids.Bid{}
	for rows.Next() {
		b, err := scanBid(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

func (s bidStore) Apply(ctx context.Context, v auth.Visibility, asset assets.Asset, market bids.Market, window calendar.Interval,
	decide func(assets.Asset, []bids.Bid) (bids.Changes, error)) (err error) {
	defer sqlutil.Wrap(&err, "bids: apply")
	return s.apply(ctx, v, asset, market, window, nil, func(a assets.Asset, existing, _ []bids.Bid) (bids.Changes, error) {
		return decide(a, existing)
	})
}

func (s bidStore) ApplyAcross(ctx context.Context, v auth.Visibility, asset assets.Asset, market bids.Market, window calendar.Interval,
	others []bids.Market, decide func(a assets.Asset, existing, others []bids.Bid) (bids.Changes, error)) (err error) {
	defer sqlutil.Wrap(&err, "bids: apply across markets")
	return s.apply(ctx, v, asset, market, window, others, decide)
}

// apply is Apply, whose decide also gets the committed bids of the
// asset's other markets in the window, read under the same lock.
func (s bidStore) apply(ctx context.Context, v auth.Visibility, asset assets.Asset, market bids.Market, window calendar.Interval,
	others []bids.Market, decide func(a assets.Asset, existing, others []bids.Bid) (bids.Changes, error)) error {
	assetID := asset.ID
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		// Locking the physical row serialises the bids of one battery,
		// whether placed on it or on its virtual assets.
		a, err := lockAsset(ctx, tx, v, asset.PhysicalID())
		if errs.Is(err, errs.NotFound) {
			return assetNotFound(assetID)
		}
		if err != nil {
			return fmt.Errorf("lock the asset: %w", err)
		}
		if asset.IsVirtual() {
			a = asset
		}
		existing, err := queryBids(ctx, tx, bidsInWindow, assetID, string(market), window.Start, window.End)
		if err != nil {
			return fmt.Errorf("read the bids of the window: %w", err)
		}
		var across []bids.Bid
		for _, m := range others {
			list, err := queryBids(ctx, tx, bidsInWindow, assetID, string(m), window.Start, window.End)
			if err != nil {
				return fmt.Errorf("read the bids of the other markets: %w", err)
			}
			across = append(across, slices.DeleteFunc(list, func(b bids.Bid) bool { return !b.Status.Committed() })...)
		}
		ch, err := decide(a, existing, across)
		if err != nil {
			return err
		}
		if len(ch.Delete) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM bids WHERE bid_id = ANY($1::uuid[]) AND asset_id = $2 AND status = 'PENDING'`, ch.Delete, assetID); err != nil {
				return fmt.Errorf("delete bids: %w", err)
			}
		}
		for _, b := range ch.Update {
			if _, err := tx.Exec(ctx, bidUpdate, append([]any{b.ID, assetID}, bidValues(b)...)...); err != nil {
				if isUniqueViolation(err) {
					return keyInUse(b)
				}
				return fmt.Errorf("update bid: %w", err)
			}
		}
		return sqlutil.Wrapped("insert bids", insertBids(ctx, tx, a.OrganizationID, assetID, ch.Insert))
	})
}

// insertBids inserts bids of the asset assetID of organisation org, in
// one batch.
func insertBids(ctx context.Context, tx pgx.Tx, org, assetID string, list []bids.Bid) error {
	if len(list) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for _, b := range list {
		batch.Queue(bidInsert, append([]any{b.ID, org, assetID, string(b.Market), string(b.Product), string(b.Source.OrAPI()), b.CreatedAt},
			bidValues(b)...)...)
	}
	br := tx.SendBatch(ctx, batch)
	for _, b := range list {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			if isUniqueViolation(err) {
				return keyInUse(b)
			}
			return fmt.Errorf("insert bid: %w", err)
		}
	}
	return br.Close()
}

func keyInUse(b bids.Bid) error {
	return errs.Conflictf(bids.CodeIdempotencyKeyInUse, "another bid already uses this idempotency key for %s/%s",
		b.Start.Format(time.RFC3339), b.End.Format(time.RFC3339))
}

// visibleBid filters by the caller's visibility ($1 all, $2 organisation),
// asset ($3) and market ($4).
const visibleBid = " WHERE ($1 OR organization_id = $2) AND asset_id = $3 AND market = $4"

func (s bidStore) List(ctx context.Context, v auth.Visibility, assetID string, market bids.Market, f bids.Filter) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "bids: list")
	q := bidSelect + visibleBid + " AND end_time > $5"
	args := []any{v.All, v.OrganizationID, assetID, string(market), f.EndAfter}
	if f.Start != nil {
		args = append(args, *f.Start)
		q += " AND end_time > $" + strconv.Itoa(len(args))
	}
	if f.End != nil {
		args = append(args, *f.End)
		q += " AND start_time < $" + strconv.Itoa(len(args))
	}
	if f.Product != nil {
		args = append(args, string(*f.Product))
		q += " AND product = $" + strconv.Itoa(len(args))
	}
	return queryBids(ctx, s.db.conn(ctx), q+" ORDER BY start_time, product, created_at, bid_id", args...)
}

func (s bidStore) Get(ctx context.Context, v auth.Visibility, assetID string, market bids.Market, id string) (_ bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "bids: get")
	b, err := scanBid(s.db.conn(ctx).QueryRow(ctx, bidSelect+visibleBid+" AND bid_id = $5::uuid", v.All, v.OrganizationID, assetID, string(market), id))
	if errors.Is(err, pgx.ErrNoRows) {
		return b, errs.NotFoundf("bid %q not found", id)
	}
	return b, err
}

func (s bidStore) Due(ctx context.Context, market bids.Market, status bids.Status, startBefore time.Time, limit int) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "bids: due")
	return queryBids(ctx, s.db.conn(ctx), bidSelect+` WHERE market = $1 AND status = $2 AND start_time < $3 ORDER BY start_time, bid_id LIMIT $4`,
		string(market), string(status), startBefore, limit)
}

// moveStatus moves bids from one status to another in one transaction.
func (s bidStore) Covering(ctx context.Context, market bids.Market, status bids.Status, at time.Time) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "bids: covering")
	return queryBids(ctx, s.db.conn(ctx), bidSelect+` WHERE market = $1 AND status = $2 AND start_time <= $3 AND end_time > $3 ORDER BY asset_id, bid_id`,
		string(market), string(status), at)
}

// lockBidAssets locks the physical asset rows of refs, in asset_id order
// so that two such transactions cannot deadlock. Apply holds the same
// lock while it reads, decides and rewrites an asset's bids, so a market
// move never lands between its read and its write (where the rewrite
// would undo it). A virtual asset id is its parent's id, a dot and a
// segment id (segment ids have no dots), so the part before its last dot
// is locked too: for a physical id containing a dot that locks at most
// one further row, which is harmless.
func lockBidAssets(ctx context.Context, tx pgx.Tx, refs []bids.Ref) error {
	ids := make([]string, 0, 2*len(refs))
	for _, r := range refs {
		ids = append(ids, r.AssetID)
		if i := strings.LastIndex(r.AssetID, "."); i > 0 {
			ids = append(ids, r.AssetID[:i])
		}
	}
	_, err := tx.Exec(ctx, `SELECT 1 FROM assets WHERE asset_id = ANY($1) ORDER BY asset_id FOR UPDATE`, ids)
	return err
}

func (s bidStore) moveStatus(ctx context.Context, refs []bids.Ref, from, to bids.Status, at time.Time, submitted bool) (int, error) {
	n := 0
	err := s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		n = 0
		if err := lockBidAssets(ctx, tx, refs); err != nil {
			return err
		}
		q := `UPDATE bids SET status = $1, updated_at = $2 WHERE bid_id = $3::uuid AND asset_id = $4 AND status = $5`
		if submitted {
			q = `UPDATE bids SET status = $1, updated_at = $2, submitted_at = $2 WHERE bid_id = $3::uuid AND asset_id = $4 AND status = $5`
		}
		for _, r := range refs {
			tag, err := tx.Exec(ctx, q, string(to), at, r.ID, r.AssetID, string(from))
			if err != nil {
				return err
			}
			n += int(tag.RowsAffected())
		}
		return nil
	})
	return n, err
}

func (s bidStore) MarkSubmitted(ctx context.Context, refs []bids.Ref, at time.Time) (_ int, err error) {
	defer sqlutil.Wrap(&err, "bids: mark submitted")
	return s.moveStatus(ctx, refs, bids.Pending, bids.Submitted, at, true)
}

func (s bidStore) MarkFailed(ctx context.Context, refs []bids.Ref, at time.Time) (_ int, err error) {
	defer sqlutil.Wrap(&err, "bids: mark failed")
	return s.moveStatus(ctx, refs, bids.Pending, bids.Failed, at, false)
}

func (s bidStore) RecordOutcomes(ctx context.Context, outcomes []bids.Outcome, at time.Time) (_ int, err error) {
	defer sqlutil.Wrap(&err, "bids: record outcomes")
	return s.recordOutcomes(ctx, outcomes, at, nil)
}

func (s bidStore) RecordAwards(ctx context.Context, outcomes []bids.Outcome, at time.Time, then bids.FollowUp) (_ int, err error) {
	defer sqlutil.Wrap(&err, "bids: record awards")
	return s.recordOutcomes(ctx, outcomes, at, &then)
}

// recordOutcomes records outcomes and, with then, the bids the awards
// among them bring, in one transaction under the locks of their assets
// (so no Apply of the holder lands between reading its bids and
// inserting the new ones).
func (s bidStore) recordOutcomes(ctx context.Context, outcomes []bids.Outcome, at time.Time, then *bids.FollowUp) (int, error) {
	n := 0
	err := s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		n = 0
		refs := make([]bids.Ref, len(outcomes))
		for i, o := range outcomes {
			refs[i] = o.Ref
		}
		if err := lockBidAssets(ctx, tx, refs); err != nil {
			return sqlutil.Wrapped("lock the assets", err)
		}
		var awarded []bids.Ref
		for _, o := range outcomes {
			from := "status = 'SUBMITTED'"
			if o.Status == bids.Fallback {
				from = "status IN ('SUBMITTED', 'PENDING')"
			}
			tag, err := tx.Exec(ctx, `UPDATE bids SET status = $1, awarded_power_mw = $2, settlement_price_cents = $3, price_source = $4,
				source_day = $5, clearing_note = $6, updated_at = $7
				WHERE bid_id = $8::uuid AND asset_id = $9 AND `+from,
				string(o.Status), o.AwardedMW, sqlutil.Cents(o.SettlementPrice), o.PriceSource, o.SourceDay, o.ClearingNote,
				at, o.ID, o.AssetID)
			if err != nil {
				return sqlutil.Wrapped("record an outcome", err)
			}
			n += int(tag.RowsAffected())
			if tag.RowsAffected() > 0 && o.Status == bids.Successful {
				awarded = append(awarded, o.Ref)
			}
		}
		if then == nil || len(awarded) == 0 {
			return nil
		}
		return followUp(ctx, tx, awarded, *then)
	})
	return n, err
}

// followUp inserts the bids then creates for the awards, asset by asset.
func followUp(ctx context.Context, tx pgx.Tx, awarded []bids.Ref, then bids.FollowUp) error {
	var order []string
	byAsset := map[string][]bids.Bid{}
	for _, r := range awarded {
		b, err := scanBid(tx.QueryRow(ctx, bidSelect+` WHERE bid_id = $1::uuid AND asset_id = $2`, r.ID, r.AssetID))
		if err != nil {
			return sqlutil.Wrapped("read an award", err)
		}
		if byAsset[r.AssetID] == nil {
			order = append(order, r.AssetID)
		}
		byAsset[r.AssetID] = append(byAsset[r.AssetID], b)
	}
	for _, assetID := range order {
		awards := byAsset[assetID]
		ivs := make([]calendar.Interval, len(awards))
		for i, b := range awards {
			ivs[i] = b.Interval()
		}
		w := bids.Hull(ivs...)
		existing, err := queryBids(ctx, tx, bidSelect+` WHERE asset_id = $1 AND market = $2 AND end_time > $3 AND start_time < $4`,
			assetID, string(then.Market), w.Start, w.End)
		if err != nil {
			return sqlutil.Wrapped("read the bids of the awards", err)
		}
		if err := insertBids(ctx, tx, awards[0].OrganizationID, assetID, then.Create(awards, existing)); err != nil {
			return sqlutil.Wrapped("insert the bids of the awards", err)
		}
	}
	return nil
}

func (s bidStore) PendingEdits(ctx context.Context, market bids.Market, limit int) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "bids: pending edits")
	return queryBids(ctx, s.db.conn(ctx), bidSelect+` WHERE market = $1 AND edit_status = 'PENDING_RESYNC' ORDER BY edit_attempted_at, bid_id LIMIT $2`,
		string(market), limit)
}

func (s bidStore) ResolveEdit(ctx context.Context, ref bids.Ref, applied bool, reason, detail string, at time.Time) (err error) {
	defer sqlutil.Wrap(&err, "bids: resolve edit")
	q := `UPDATE bids SET edit_status = 'FAILED_LATE_EDIT', edit_failure_reason = $1, edit_failure_detail = $2, updated_at = $3
		WHERE bid_id = $4::uuid AND asset_id = $5 AND edit_status = 'PENDING_RESYNC'`
	args := []any{reason, detail, at, ref.ID, ref.AssetID}
	if applied {
		q = `UPDATE bids SET offered_power_mw = edit_offered_power_mw, capacity_price_cents = edit_capacity_price_cents,
			energy_price_cents = edit_energy_price_cents, edit_status = 'APPLIED', updated_at = $1
			WHERE bid_id = $2::uuid AND asset_id = $3 AND edit_status = 'PENDING_RESYNC'`
		args = []any{at, ref.ID, ref.AssetID}
	}
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if err := lockBidAssets(ctx, tx, []bids.Ref{ref}); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, q, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errs.NotFoundf("bid %q has no pending edit", ref.ID)
		}
		return nil
	})
}

func (s bidStore) CommittedAfter(ctx context.Context, assetID string, t time.Time) (_ map[bids.Market]int, err error) {
	defer sqlutil.Wrap(&err, "bids: committed after")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT market, count(*) FROM bids WHERE asset_id = $1 AND end_time > $2
		AND status IN ('PENDING', 'SUBMITTED', 'SUCCESSFUL', 'FALLBACK') GROUP BY market`, assetID, t)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[bids.Market]int{}
	for rows.Next() {
		var m string
		var n int
		if err := rows.Scan(&m, &n); err != nil {
			return nil, err
		}
		out[bids.Market(m)] = n
	}
	return out, rows.Err()
}
