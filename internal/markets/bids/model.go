package bids

import (
	"time"

	"github.com/google/uuid"

	"atcp/internal/markets/calendar"
)

// NewID returns the id of a new bid: a UUID of version 7, whose leading
// bits are the time it was made. Ids made one after the other sort
// together, so a day of bids written at once fills a few pages at the end
// of the index on bid_id instead of a hundred scattered ones (and deleting
// them later empties those few again).
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// Market names a market whose bids this engine keeps.
type Market string

// The markets.
const (
	FCR          Market = "fcr"
	AFRRCapacity Market = "afrr_capacity"
	AFRREnergy   Market = "afrr_energy"
)

// Product is the direction a bid serves: Sym for FCR (both directions at
// once), Pos or Neg for aFRR.
type Product string

// The products.
const (
	Sym Product = "sym"
	Pos Product = "pos"
	Neg Product = "neg"
)

// Status is the lifecycle state of a bid (document 1, States and
// transitions).
type Status string

// The bid statuses.
const (
	Pending    Status = "PENDING"
	Submitted  Status = "SUBMITTED"
	Successful Status = "SUCCESSFUL"
	Rejected   Status = "REJECTED"
	Failed     Status = "FAILED"
	Cancelled  Status = "CANCELLED"
	Fallback   Status = "FALLBACK"
)

// Committed reports whether a bid in status s counts against the
// prequalified ceiling; REJECTED, FAILED and CANCELLED release it.
func (s Status) Committed() bool {
	return s == Pending || s == Submitted || s == Successful || s == Fallback
}

// Source says who created a bid.
type Source string

// The bid sources.
const (
	// SourceAPI: placed by its holder through the API. The zero value
	// reads as SourceAPI (the stores write it so), as do the bids stored
	// before sources were recorded.
	SourceAPI Source = "api"
	// SourceCapacityBid: an aFRR energy bid the platform created from a
	// SUCCESSFUL aFRR capacity bid, at its energy price, for a
	// quarter-hour of the award (afrr.AwardEnergyBids).
	SourceCapacityBid Source = "capacity_bid"
)

// OrAPI returns s, or SourceAPI when s is empty.
func (s Source) OrAPI() Source {
	if s == "" {
		return SourceAPI
	}
	return s
}

// Edit states of last_edit_attempt.
const (
	EditModify         = "MODIFY"
	EditPendingResync  = "PENDING_RESYNC"
	EditFailedLateEdit = "FAILED_LATE_EDIT"
	// EditApplied is the outcome once forwarding succeeded (the spec does
	// not show it): the bid row then carries the requested values.
	EditApplied = "APPLIED"
)

// EditValues are the values a late edit asks the market to take.
type EditValues struct {
	OfferedMW     float64
	CapacityPrice *Price
	EnergyPrice   *Price
}

// EditAttempt is last_edit_attempt: a change of a SUBMITTED bid that is
// forwarded to the market after the fact.
type EditAttempt struct {
	EditType        string
	Status          string
	AttemptedAt     time.Time
	RequestedValues EditValues
	FailureReason   *string
	FailureDetail   *string
}

// Bid is one bid of any market.
type Bid struct {
	ID             string
	OrganizationID string
	AssetID        string
	Market         Market
	Product        Product
	Start, End     time.Time // UTC, on quarter-hours
	IdempotencyKey *string
	CapacityPrice  *Price // EUR/MW; nil for aFRR energy bids
	EnergyPrice    *Price // EUR/MWh; aFRR only
	OfferedMW      float64
	AwardedMW      *float64 // nil until cleared
	Status         Status
	LastEdit       *EditAttempt
	Source         Source // who created the bid; set once, at insertion

	// What clearing records.
	SettlementPrice *Price
	PriceSource     *string
	SourceDay       *string // YYYY-MM-DD: the replayed day the result comes from
	ClearingNote    *string // what the result was cleared with
	SubmittedAt     *time.Time

	CreatedAt, UpdatedAt time.Time
}

// Interval is the bid's delivery interval.
func (b Bid) Interval() calendar.Interval { return calendar.Interval{Start: b.Start, End: b.End} }

// CommittedMW is the power the bid holds against the ceiling: nothing when
// released, the awarded power once SUCCESSFUL, otherwise the offered power.
// A late edit waiting to be forwarded holds the larger of the market's and
// the requested power, since either may end up in the market.
func (b Bid) CommittedMW() float64 {
	if !b.Status.Committed() {
		return 0
	}
	if b.Status == Successful {
		if b.AwardedMW == nil {
			return b.OfferedMW
		}
		return *b.AwardedMW
	}
	p := b.OfferedMW
	if b.LastEdit != nil && b.LastEdit.Status == EditPendingResync {
		p = max(p, b.LastEdit.RequestedValues.OfferedMW)
	}
	return p
}

// sameScope reports whether b is in the idempotency scope of the other
// bid: market, product, interval and key.
func (b Bid) sameScope(o Bid) bool {
	return b.IdempotencyKey != nil && o.IdempotencyKey != nil && *b.IdempotencyKey == *o.IdempotencyKey &&
		b.Market == o.Market && b.Product == o.Product && b.Start.Equal(o.Start) && b.End.Equal(o.End)
}
