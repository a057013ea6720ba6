// Package bidshttp holds what the bid markets' HTTP packages (fcrhttp,
// afrrhttp) share: the wire types (prices in and out, the
// last_edit_attempt object, the query parameters) and Register, the one
// registration of a bid market's endpoints, to which each market gives its
// paths, words and body mappings.
package bidshttp

import (
	"encoding/json"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/httpapi"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// PriceIn is a price field of a request: a JSON number or a string
// holding one, at most two decimals.
type PriceIn struct{ bids.PriceInput }

// UnmarshalJSON keeps the raw value for the engine to parse.
func (p *PriceIn) UnmarshalJSON(b []byte) error { return p.PriceInput.UnmarshalJSON(b) }

// Schema admits a number or a string.
func (PriceIn) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{
		OneOf:       []*huma.Schema{{Type: huma.TypeNumber}, {Type: huma.TypeString, MaxLength: new(32)}},
		Description: "A number or a string holding one (for example 12.5 or \"12.50\"), at most 2 decimals.",
	}
}

// Price is a price of a response: a JSON number with at most two decimals.
type Price bids.Price

// MarshalJSON writes the exact decimal as a number.
func (p Price) MarshalJSON() ([]byte, error) { return bids.Price(p).MarshalJSON() }

// Schema is a number.
func (Price) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeNumber, Description: "EUR (EUR/MW per block for FCR capacity, EUR/MW/h for aFRR capacity, EUR/MWh for energy), at most 2 decimals."}
}

// PricePtr converts an optional price.
func PricePtr(p *bids.Price) *Price {
	if p == nil {
		return nil
	}
	v := Price(*p)
	return &v
}

// RequestedValues are the values a late edit asks for.
type RequestedValues struct {
	OfferedPowerMW float64 `json:"offered_power_mw"`
	CapacityPrice  *Price  `json:"capacity_price_eur_per_mw,omitempty" doc:"EUR/MW per block for FCR, EUR/MW/h for aFRR capacity."`
	EnergyPrice    *Price  `json:"energy_price_eur_per_mwh,omitempty" doc:"EUR/MWh."`
}

// EditAttempt is last_edit_attempt.
type EditAttempt struct {
	EditType        string          `json:"edit_type" doc:"MODIFY."`
	Status          string          `json:"status" enum:"PENDING_RESYNC,FAILED_LATE_EDIT,APPLIED" doc:"PENDING_RESYNC until forwarded; APPLIED once the market took the values (the bid then shows them); FAILED_LATE_EDIT when the gate closed first (the original bid stays)."`
	AttemptedAt     time.Time       `json:"attempted_at"`
	RequestedValues RequestedValues `json:"requested_values"`
	FailureReason   *string         `json:"failure_reason"`
	FailureDetail   *string         `json:"failure_detail"`
}

// Edit converts a last edit attempt.
func Edit(e *bids.EditAttempt) *EditAttempt {
	if e == nil {
		return nil
	}
	return &EditAttempt{
		EditType: e.EditType, Status: e.Status, AttemptedAt: e.AttemptedAt,
		RequestedValues: RequestedValues{OfferedPowerMW: e.RequestedValues.OfferedMW,
			CapacityPrice: PricePtr(e.RequestedValues.CapacityPrice), EnergyPrice: PricePtr(e.RequestedValues.EnergyPrice)},
		FailureReason: e.FailureReason, FailureDetail: e.FailureDetail,
	}
}

var _ json.Marshaler = Price(0)

// DeleteResponse is the body of a bulk DELETE of bids.
type DeleteResponse struct {
	DeletedCount  int      `json:"deleted_count"`
	DeletedBidIDs []string `json:"deleted_bid_ids" nullable:"false"`
}

// ValidInterval is one tender interval of a capacity market's
// valid_bid_intervals.
type ValidInterval struct {
	StartTime           time.Time `json:"start_time"`
	EndTime             time.Time `json:"end_time"`
	DeliveryDay         string    `json:"delivery_day" doc:"Europe/Berlin delivery day."`
	OpensAt             time.Time `json:"opens_at"`
	RecommendedDeadline time.Time `json:"recommended_deadline"`
	GateClosure         time.Time `json:"gate_closure"`
	BiddingOpen         bool      `json:"bidding_open" doc:"Whether bids may be placed now."`
}

// NewValidInterval describes the tender interval iv of delivery day d
// with its bidding window w.
func NewValidInterval(iv calendar.Interval, d calendar.Day, w calendar.Window, open bool) ValidInterval {
	return ValidInterval{StartTime: iv.Start, EndTime: iv.End, DeliveryDay: d.String(),
		OpensAt: w.Opens, RecommendedDeadline: w.Recommended, GateClosure: w.Closes, BiddingOpen: open}
}

// SubmitResponse is the 201 body of every market's POST bids; B is the
// market's bid record.
type SubmitResponse[B any] struct {
	Bids          []B      `json:"bids" nullable:"false" doc:"The bids of the request in its order; an idempotent retry shows the stored bid."`
	CreatedCount  int      `json:"created_count"`
	DeletedCount  int      `json:"deleted_count"`
	DeletedBidIDs []string `json:"deleted_bid_ids" nullable:"false"`
	Warnings      []string `json:"warnings" nullable:"false"`
	UpdatedCount  int      `json:"updated_count" doc:"Always 0: a submission never changes a stored bid (retries return it unchanged)."`
}

// NewSubmitResponse shows the engine's result with the market's records.
func NewSubmitResponse[B any](res bids.SubmitResult, records func([]bids.Bid) []B) SubmitResponse[B] {
	return SubmitResponse[B]{
		Bids: records(res.Bids), CreatedCount: res.Created, DeletedCount: len(res.DeletedIDs),
		DeletedBidIDs: httpapi.NonNil(res.DeletedIDs), Warnings: httpapi.NonNil(res.Warnings),
	}
}
