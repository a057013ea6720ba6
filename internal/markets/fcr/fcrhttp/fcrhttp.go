// Package fcrhttp serves the FCR market under
// /v1/assets/{asset_id}/markets/fcr: bids (list, submit, delete by
// interval, update, delete one), valid bid intervals and results.
package fcrhttp

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/bids/bidshttp"
	"atcp/internal/markets/fcr"
)

// Bid is the FCR bid record of every response.
type Bid struct {
	ID              string                `json:"id" format:"uuid"`
	IdempotencyKey  *string               `json:"idempotency_key"`
	StartTime       time.Time             `json:"start_time"`
	EndTime         time.Time             `json:"end_time"`
	CapacityPrice   bidshttp.Price        `json:"capacity_price_eur_per_mw" doc:"EUR/MW per block."`
	OfferedPowerMW  float64               `json:"offered_power_mw"`
	AwardedPowerMW  *float64              `json:"awarded_power_mw" doc:"Null until the auction cleared."`
	Status          bids.Status           `json:"status" enum:"PENDING,SUBMITTED,SUCCESSFUL,REJECTED,FAILED,CANCELLED,FALLBACK"`
	LastEditAttempt *bidshttp.EditAttempt `json:"last_edit_attempt"`
	CreatedAt       time.Time             `json:"created_at"`
	UpdatedAt       time.Time             `json:"updated_at"`
}

// TransformSchema documents that last_edit_attempt may be null.
func (Bid) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullableRefs(s, "last_edit_attempt")
}

func toBid(b bids.Bid) Bid {
	var price bidshttp.Price
	if b.CapacityPrice != nil {
		price = bidshttp.Price(*b.CapacityPrice)
	}
	return Bid{
		ID: b.ID, IdempotencyKey: b.IdempotencyKey, StartTime: b.Start, EndTime: b.End, CapacityPrice: price,
		OfferedPowerMW: b.OfferedMW, AwardedPowerMW: b.AwardedMW, Status: b.Status,
		LastEditAttempt: bidshttp.Edit(b.LastEdit), CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt,
	}
}

func toBids(list []bids.Bid) []Bid {
	out := make([]Bid, len(list))
	for i, b := range list {
		out[i] = toBid(b)
	}
	return out
}

// BidInput is one bid of a submission.
type BidInput struct {
	IdempotencyKey *string          `json:"idempotency_key,omitempty" minLength:"1" maxLength:"200" doc:"Retrying the same key for the same interval returns the stored bid unchanged."`
	StartTime      time.Time        `json:"start_time" doc:"Start of a tender interval (UTC)."`
	EndTime        time.Time        `json:"end_time" doc:"End of the same tender interval (UTC, exclusive)."`
	CapacityPrice  bidshttp.PriceIn `json:"capacity_price_eur_per_mw" doc:"EUR/MW per block, 0 to the market maximum (15000 by default): a number or a string holding one, at most 2 decimals."`
	OfferedPowerMW float64          `json:"offered_power_mw" minimum:"1" maximum:"100000" multipleOf:"1" doc:"Whole MW."`
}

// Scope is the replace_scope of a REPLACE.
type Scope struct {
	StartTime time.Time `json:"start_time"`
	EndTime   time.Time `json:"end_time"`
}

// SubmitRequest is the body of POST bids.
type SubmitRequest struct {
	Bids         []BidInput `json:"bids" minItems:"1" maxItems:"500"`
	Mode         bids.Mode  `json:"mode,omitempty" enum:"CREATE,REPLACE" doc:"CREATE (default) or REPLACE."`
	ReplaceScope *Scope     `json:"replace_scope,omitempty" doc:"Required when mode is REPLACE: its PENDING bids are deleted first."`
}

// SubmitResponse is the 201 body of POST bids.
type SubmitResponse = bidshttp.SubmitResponse[Bid]

// UpdateRequest is the body of PUT bids/{bid_id}.
type UpdateRequest struct {
	IdempotencyKey *string          `json:"idempotency_key,omitempty" minLength:"1" maxLength:"200" doc:"Overwrites the stored key; PENDING bids only."`
	StartTime      time.Time        `json:"start_time"`
	EndTime        time.Time        `json:"end_time"`
	CapacityPrice  bidshttp.PriceIn `json:"capacity_price_eur_per_mw" doc:"EUR/MW per block, 0 to the market maximum (15000 by default): a number or a string holding one, at most 2 decimals."`
	OfferedPowerMW float64          `json:"offered_power_mw" minimum:"1" maximum:"100000" multipleOf:"1"`
}

// BidsResponse is the body of GET bids.
type BidsResponse struct {
	Bids []Bid `json:"bids" nullable:"false"`
}

// UpdateResponse is the body of PUT bids/{bid_id}.
type UpdateResponse struct {
	Bids     []Bid    `json:"bids" nullable:"false" doc:"The bid as stored."`
	Warnings []string `json:"warnings" nullable:"false" doc:"Set when past the recommended deadline."`
}

// DeleteResponse is the body of DELETE bids.
type DeleteResponse = bidshttp.DeleteResponse

// ValidInterval is one tender interval of valid_bid_intervals.
type ValidInterval = bidshttp.ValidInterval

// ValidIntervalsResponse is the body of GET valid_bid_intervals.
type ValidIntervalsResponse struct {
	Intervals []ValidInterval `json:"intervals" nullable:"false"`
}

// Result is one bid's auction result.
type Result struct {
	BidID           string          `json:"bid_id" format:"uuid"`
	StartTime       time.Time       `json:"start_time"`
	EndTime         time.Time       `json:"end_time"`
	OfferedPowerMW  float64         `json:"offered_power_mw"`
	AwardedPowerMW  *float64        `json:"awarded_power_mw" doc:"Null until cleared."`
	CapacityPrice   bidshttp.Price  `json:"capacity_price_eur_per_mw" doc:"The bid's price, EUR/MW per block."`
	SettlementPrice *bidshttp.Price `json:"settlement_price_eur_per_mw" nullable:"true" doc:"The price the award is paid at, EUR/MW per block; null until cleared."`
	Status          bids.Status     `json:"status" enum:"PENDING,SUBMITTED,SUCCESSFUL,REJECTED,FAILED,CANCELLED,FALLBACK"`
	PriceSource     *string         `json:"price_source" doc:"What the figures are: published (the delivery day's own published results; the replayed days 2026-02-01 and 2026-02-02), replayed (the published results of source_day, replayed for a day without its own) or modelled (part of the result is the model's, e.g. an award at exactly the aFRR marginal price); null until cleared."`
	SourceDay       *string         `json:"source_day" format:"date" doc:"The replayed day whose results cleared the bid; null until cleared."`
	ClearingNote    *string         `json:"clearing_note" doc:"What the result was cleared with, in words; null until cleared."`
	CapacityPayment *bidshttp.Price `json:"capacity_payment_eur" nullable:"true" doc:"EUR: awarded MW x settlement price (EUR/MW per block), when SUCCESSFUL; null otherwise."`
}

// ResultsResponse is the body of GET results.
type ResultsResponse struct {
	Results []Result `json:"results" nullable:"false"`
}

// Register adds the FCR endpoints to s.
func Register(s *httpapi.Server, svc *fcr.Service) {
	bidshttp.Register(s, bidshttp.Market[Bid, SubmitRequest, UpdateRequest, BidsResponse, UpdateResponse,
		bidshttp.TenderIntervalsInput, ValidIntervalsResponse, ResultsResponse]{
		Tag:            "FCR",
		TagDescription: "Frequency Containment Reserve: capacity bids per 4-hour block (prices in EUR/MW per block), tender intervals and auction results.",
		Base:           "/v1/assets/{asset_id}/markets/fcr", ID: "fcr",
		Gates: " Bids open 11:00 Europe/Berlin at D-7; recommended deadline D-1 07:30, enforced gate D-1 08:00 (409 gate_closed after, 409 bidding_not_open before opening).",

		List: bidshttp.Doc{Summary: "List FCR bids", Response: exampleBids,
			Description: "Bids of the asset overlapping [start_time, end_time) (either bound optional). " +
				"Bids that ended more than 30 days ago are not returned."},
		Submit: bidshttp.Doc{Summary: "Place FCR bids", Request: exampleSubmit, Response: exampleSubmitted,
			Description: "CREATE inserts the bids; REPLACE first deletes the PENDING bids fully inside replace_scope and every bid must lie inside it. " +
				"Each interval must be a tender interval (422 with valid_intervals). Idempotency per bid: the same idempotency_key for the same interval returns the stored bid. " +
				"Prices 0 to the market maximum (422 PRICE_OUT_OF_RANGE). The power of the request plus the committed power must stay within fcr_prequalified_capacity_mw " +
				"in every 15-minute period (409 FCR_PREQUALIFIED_CAPACITY_EXCEEDED with periods). 409 market_not_enabled when fcr_enabled is false. " +
				"409 asset_not_live when asset_operational_status is not live (checked before the prequalified capacity; not in the demonstration environment). A rejected request stores nothing."},
		DeleteInterval: bidshttp.Doc{Summary: "Delete the FCR bids of an interval", Response: exampleDeleted,
			Description: "Deletes the PENDING bids whose start_time and end_time are exactly the ones given; bids in other statuses stay."},
		Update: bidshttp.Doc{Summary: "Change an FCR bid", Request: exampleUpdate, Response: exampleUpdated,
			Description: "A PENDING bid changes in place (a changed interval must be a tender interval). A SUBMITTED bid keeps the values the market holds and " +
				"records the change in last_edit_attempt (PENDING_RESYNC; APPLIED once forwarded, FAILED_LATE_EDIT if the gate closes first); " +
				"only offered_power_mw and capacity_price_eur_per_mw may change (409 bid_not_pending otherwise, and for bids in any other status). " +
				"409 market_not_enabled when fcr_enabled was switched off. 409 asset_not_live when the change raises the power or moves the interval of a bid of an asset whose asset_operational_status is not live (not in the demonstration environment). " +
				"Raising the power beyond the prequalified capacity gives 409 FCR_PREQUALIFIED_CAPACITY_EXCEEDED (the bid's own power is not counted)."},
		Delete: bidshttp.Doc{Summary: "Delete one FCR bid",
			Description: "Deletes a PENDING bid, whatever the asset's operational status. 409 bid_not_pending for a bid already submitted (or cleared); 404 for an unknown bid."},
		Intervals: bidshttp.Doc{Summary: "List FCR tender intervals", Response: exampleIntervals,
			Description: "The tender intervals of delivery_day, or of the days overlapping [start_time, end_time) (at most 31 days; only intervals overlapping it), " +
				"or without parameters every interval whose bidding is open now; each with its opening, recommended deadline, gate and whether bidding is open."},
		Results: bidshttp.Doc{Summary: "List FCR auction results", Response: exampleResults,
			Description: "Per bid overlapping [start_time, end_time): offered and awarded power, bid and settlement price, status, " +
				"price source, the replayed day the result comes from and the clearing note and, when SUCCESSFUL, the capacity payment " +
				"(awarded MW x settlement price, EUR). " +
				"Bids not yet cleared appear with their current status and null award. Bids that ended more than 30 days ago are not returned."},

		Service:  svc,
		Records:  toBids,
		ListBody: func(list []bids.Bid) BidsResponse { return BidsResponse{Bids: toBids(list)} },
		Updated: func(b bids.Bid, warnings []string) UpdateResponse {
			return UpdateResponse{Bids: []Bid{toBid(b)}, Warnings: warnings}
		},
		IntervalsBody: func(ivs []ValidInterval) ValidIntervalsResponse { return ValidIntervalsResponse{Intervals: ivs} },
		Submission: func(r SubmitRequest) bids.Submission {
			sub := bids.Submission{Mode: r.Mode, Bids: make([]bids.NewBid, len(r.Bids))}
			for i, b := range r.Bids {
				sub.Bids[i] = bids.NewBid{IdempotencyKey: b.IdempotencyKey, Start: b.StartTime, End: b.EndTime,
					CapacityPrice: b.CapacityPrice.PriceInput, OfferedMW: b.OfferedPowerMW}
			}
			if sc := r.ReplaceScope; sc != nil {
				sub.Scope = &bids.ReplaceScope{Start: sc.StartTime, End: sc.EndTime}
			}
			return sub
		},
		Change: func(u UpdateRequest) bids.Change {
			return bids.Change{IdempotencyKey: u.IdempotencyKey, Start: u.StartTime, End: u.EndTime,
				CapacityPrice: u.CapacityPrice.PriceInput, OfferedMW: u.OfferedPowerMW}
		},
		ValidIntervals: bidshttp.TenderIntervals(svc.ValidIntervals),
		ResultsOf: func(ctx context.Context, v auth.Visibility, f bidshttp.Filter) (ResultsResponse, error) {
			list, err := svc.Results(ctx, v, f.AssetID, f.Start, f.End)
			if err != nil {
				return ResultsResponse{}, err
			}
			out := ResultsResponse{Results: make([]Result, len(list))}
			for i, r := range list {
				wire := toBid(r.Bid)
				out.Results[i] = Result{BidID: r.ID, StartTime: r.Start, EndTime: r.End, OfferedPowerMW: r.OfferedMW,
					AwardedPowerMW: r.AwardedMW, CapacityPrice: wire.CapacityPrice, SettlementPrice: bidshttp.PricePtr(r.SettlementPrice),
					Status: r.Status, PriceSource: r.PriceSource, SourceDay: r.SourceDay, ClearingNote: r.ClearingNote,
					CapacityPayment: bidshttp.PricePtr(r.Payment)}
			}
			return out, nil
		},
	})
}
