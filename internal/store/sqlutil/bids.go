package sqlutil

import (
	"time"

	"atcp/internal/markets/bids"
)

// BidFixed lists the bid columns set once, at insertion, before the
// BidMutable ones in every select and insert: the scan order of Targets.
var BidFixed = []string{"bid_id", "organization_id", "asset_id", "market", "product", "source", "created_at"}

// BidMutable lists the bid columns an update rewrites, in the order of
// BidValues. Both backends build their SQL from it.
var BidMutable = []string{
	"idempotency_key", "start_time", "end_time", "capacity_price_cents", "energy_price_cents",
	"offered_power_mw", "awarded_power_mw", "status", "settlement_price_cents", "price_source", "source_day", "clearing_note",
	"submitted_at", "edit_type", "edit_status", "edit_attempted_at", "edit_offered_power_mw", "edit_capacity_price_cents",
	"edit_energy_price_cents", "edit_failure_reason", "edit_failure_detail", "updated_at",
}

// Cents stores a price as integer cents (NULL for nil).
func Cents(p *bids.Price) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}

// FromCents reads a price stored by Cents.
func FromCents(v *int64) *bids.Price {
	if v == nil {
		return nil
	}
	p := bids.Price(*v)
	return &p
}

// BidInstants are a bid's instants in a backend's own encoding.
type BidInstants struct {
	Start, End, SubmittedAt, EditAttemptedAt, UpdatedAt any
}

// BidValues returns the values of the BidMutable columns.
func BidValues(b bids.Bid, at BidInstants) []any {
	vals := []any{
		b.IdempotencyKey, at.Start, at.End, Cents(b.CapacityPrice), Cents(b.EnergyPrice),
		b.OfferedMW, b.AwardedMW, string(b.Status), Cents(b.SettlementPrice), b.PriceSource, b.SourceDay, b.ClearingNote,
		at.SubmittedAt,
	}
	if e := b.LastEdit; e != nil {
		vals = append(vals, e.EditType, e.Status, at.EditAttemptedAt, e.RequestedValues.OfferedMW,
			Cents(e.RequestedValues.CapacityPrice), Cents(e.RequestedValues.EnergyPrice), e.FailureReason, e.FailureDetail)
	} else {
		vals = append(vals, nil, nil, nil, nil, nil, nil, nil, nil)
	}
	return append(vals, at.UpdatedAt)
}

// BidRow receives the columns of a bid row that need converting after
// the scan, except the instants, which each backend decodes itself.
type BidRow struct {
	market, product, source, status                   string
	capPrice, energyPrice, settle, editCap, editCents *int64
	editType, editStatus, failReason, failDetail      *string
	editMW                                            *float64
}

// Targets returns the scan destinations of a row selected as the BidFixed
// and the BidMutable columns; the backend passes its own destinations for the
// instants (the pointer-to-instant ones may receive NULL).
func (r *BidRow) Targets(b *bids.Bid, createdAt, start, end, submittedAt, editAttemptedAt, updatedAt any) []any {
	return []any{&b.ID, &b.OrganizationID, &b.AssetID, &r.market, &r.product, &r.source, createdAt,
		&b.IdempotencyKey, start, end, &r.capPrice, &r.energyPrice,
		&b.OfferedMW, &b.AwardedMW, &r.status, &r.settle, &b.PriceSource, &b.SourceDay, &b.ClearingNote, submittedAt,
		&r.editType, &r.editStatus, editAttemptedAt, &r.editMW, &r.editCap, &r.editCents, &r.failReason, &r.failDetail, updatedAt}
}

// Finish fills in what Targets scanned into r, with the decoded instant of
// the last edit attempt (nil when there is none).
func (r *BidRow) Finish(b *bids.Bid, editAttemptedAt *time.Time) {
	b.Market, b.Product, b.Source, b.Status = bids.Market(r.market), bids.Product(r.product), bids.Source(r.source), bids.Status(r.status)
	b.CapacityPrice, b.EnergyPrice, b.SettlementPrice = FromCents(r.capPrice), FromCents(r.energyPrice), FromCents(r.settle)
	if r.editStatus != nil && r.editType != nil && editAttemptedAt != nil && r.editMW != nil {
		b.LastEdit = &bids.EditAttempt{EditType: *r.editType, Status: *r.editStatus, AttemptedAt: *editAttemptedAt,
			RequestedValues: bids.EditValues{OfferedMW: *r.editMW, CapacityPrice: FromCents(r.editCap), EnergyPrice: FromCents(r.editCents)},
			FailureReason:   r.failReason, FailureDetail: r.failDetail}
	}
}
