package afrrhttp

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/bids/bidshttp"
)

// CapacityBid is the aFRR capacity bid record of every response.
type CapacityBid struct {
	ID              string                `json:"id" format:"uuid"`
	IdempotencyKey  *string               `json:"idempotency_key"`
	Product         bids.Product          `json:"product" enum:"pos,neg"`
	StartTime       time.Time             `json:"start_time"`
	EndTime         time.Time             `json:"end_time"`
	CapacityPrice   bidshttp.Price        `json:"capacity_price_eur_per_mw" doc:"EUR/MW/h: EUR per MW and hour of the block."`
	EnergyPrice     bidshttp.Price        `json:"energy_price_eur_per_mwh" doc:"EUR/MWh; negative: the provider pays."`
	OfferedPowerMW  float64               `json:"offered_power_mw"`
	AwardedPowerMW  *float64              `json:"awarded_power_mw" doc:"Null until the auction cleared."`
	Status          bids.Status           `json:"status" enum:"PENDING,SUBMITTED,SUCCESSFUL,REJECTED,FAILED,CANCELLED,FALLBACK"`
	LastEditAttempt *bidshttp.EditAttempt `json:"last_edit_attempt"`
	CreatedAt       time.Time             `json:"created_at"`
	UpdatedAt       time.Time             `json:"updated_at"`
}

// TransformSchema documents that last_edit_attempt may be null.
func (CapacityBid) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullableRefs(s, "last_edit_attempt")
}

func capacityPriceOf(p *bids.Price) bidshttp.Price {
	if p == nil {
		return 0
	}
	return bidshttp.Price(*p)
}

func toCapacityBid(b bids.Bid) CapacityBid {
	return CapacityBid{
		ID: b.ID, IdempotencyKey: b.IdempotencyKey, Product: b.Product, StartTime: b.Start, EndTime: b.End,
		CapacityPrice: capacityPriceOf(b.CapacityPrice), EnergyPrice: capacityPriceOf(b.EnergyPrice),
		OfferedPowerMW: b.OfferedMW, AwardedPowerMW: b.AwardedMW, Status: b.Status,
		LastEditAttempt: bidshttp.Edit(b.LastEdit), CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt,
	}
}

func toCapacityBids(list []bids.Bid) []CapacityBid {
	out := make([]CapacityBid, len(list))
	for i, b := range list {
		out[i] = toCapacityBid(b)
	}
	return out
}

// CapacityBidInput is one bid of a submission.
type CapacityBidInput struct {
	IdempotencyKey *string          `json:"idempotency_key,omitempty" minLength:"1" maxLength:"200" doc:"Retrying the same key for the same interval and product returns the stored bid unchanged."`
	StartTime      time.Time        `json:"start_time" doc:"Start of a tender interval (UTC)."`
	EndTime        time.Time        `json:"end_time" doc:"End of the same tender interval (UTC, exclusive)."`
	Product        bids.Product     `json:"product" enum:"pos,neg" doc:"pos: inject into the grid; neg: absorb from the grid."`
	CapacityPrice  bidshttp.PriceIn `json:"capacity_price_eur_per_mw" doc:"0 to 15000 EUR/MW/h (per MW and hour of the block): a number or a string holding one, at most 2 decimals."`
	EnergyPrice    bidshttp.PriceIn `json:"energy_price_eur_per_mwh" doc:"-15000 to 15000 EUR/MWh; negative: the provider pays. A number or a string holding one, at most 2 decimals."`
	OfferedPowerMW float64          `json:"offered_power_mw" minimum:"1" maximum:"100000" multipleOf:"1" doc:"Whole MW."`
}

// CapacityScope is the replace_scope of a REPLACE.
type CapacityScope struct {
	StartTime time.Time     `json:"start_time"`
	EndTime   time.Time     `json:"end_time"`
	Product   *bids.Product `json:"product,omitempty" enum:"pos,neg" doc:"Omitted: the bids of both directions in the window are deleted first."`
}

// CapacitySubmitRequest is the body of POST capacity/bids.
type CapacitySubmitRequest struct {
	Bids         []CapacityBidInput `json:"bids" minItems:"1" maxItems:"500"`
	Mode         bids.Mode          `json:"mode,omitempty" enum:"CREATE,REPLACE" doc:"CREATE (default) or REPLACE."`
	ReplaceScope *CapacityScope     `json:"replace_scope,omitempty" doc:"Required when mode is REPLACE: its PENDING bids (of its product, when given) are deleted first."`
}

// CapacitySubmitResponse is the 201 body of POST capacity/bids.
type CapacitySubmitResponse = bidshttp.SubmitResponse[CapacityBid]

// CapacityUpdateRequest is the body of PUT capacity/bids/{bid_id}. The
// product cannot change: delete the bid and place one in the other
// direction.
type CapacityUpdateRequest struct {
	IdempotencyKey *string          `json:"idempotency_key,omitempty" minLength:"1" maxLength:"200" doc:"Overwrites the stored key; PENDING bids only."`
	StartTime      time.Time        `json:"start_time"`
	EndTime        time.Time        `json:"end_time"`
	CapacityPrice  bidshttp.PriceIn `json:"capacity_price_eur_per_mw" doc:"0 to 15000 EUR/MW/h (per MW and hour of the block): a number or a string holding one, at most 2 decimals."`
	EnergyPrice    bidshttp.PriceIn `json:"energy_price_eur_per_mwh" doc:"-15000 to 15000 EUR/MWh; negative: the provider pays. A number or a string holding one, at most 2 decimals."`
	OfferedPowerMW float64          `json:"offered_power_mw" minimum:"1" maximum:"100000" multipleOf:"1"`
}

// CapacityBidsResponse is the body of GET capacity/bids.
type CapacityBidsResponse struct {
	Bids   []CapacityBid `json:"bids" nullable:"false"`
	Market string        `json:"market" enum:"capacity" doc:"Always capacity."`
}

// CapacityUpdateResponse is the body of PUT capacity/bids/{bid_id}.
type CapacityUpdateResponse struct {
	Bids     []CapacityBid `json:"bids" nullable:"false" doc:"The bid as stored."`
	Warnings []string      `json:"warnings" nullable:"false" doc:"Set when past the recommended deadline."`
}

// CapacityValidIntervalsResponse is the body of GET
// capacity/valid_bid_intervals.
type CapacityValidIntervalsResponse struct {
	Intervals []bidshttp.ValidInterval `json:"intervals" nullable:"false"`
}

// CapacityResult is one bid's auction result.
type CapacityResult struct {
	BidID           string          `json:"bid_id" format:"uuid"`
	Product         bids.Product    `json:"product" enum:"pos,neg"`
	StartTime       time.Time       `json:"start_time"`
	EndTime         time.Time       `json:"end_time"`
	OfferedPowerMW  float64         `json:"offered_power_mw"`
	AwardedPowerMW  *float64        `json:"awarded_power_mw" doc:"Null until cleared."`
	CapacityPrice   bidshttp.Price  `json:"capacity_price_eur_per_mw" doc:"The bid's own price in EUR/MW/h, which an award earns (pay-as-bid)."`
	EnergyPrice     bidshttp.Price  `json:"energy_price_eur_per_mwh" doc:"The bid's energy price, EUR/MWh."`
	Status          bids.Status     `json:"status" enum:"PENDING,SUBMITTED,SUCCESSFUL,REJECTED,FAILED,CANCELLED,FALLBACK"`
	PriceSource     *string         `json:"price_source" doc:"What the figures are: published (the delivery day's own published results; the replayed days 2026-02-01 and 2026-02-02), replayed (the published results of source_day, replayed for a day without its own) or modelled (part of the result is the model's, e.g. an award at exactly the aFRR marginal price); null until cleared."`
	SourceDay       *string         `json:"source_day" format:"date" doc:"The replayed day whose results cleared the bid; null until cleared."`
	ClearingNote    *string         `json:"clearing_note" doc:"What the result was cleared with, in words; null until cleared."`
	CapacityPayment *bidshttp.Price `json:"capacity_payment_eur" nullable:"true" doc:"EUR: awarded MW x capacity price (EUR/MW/h) x hours of the block, when SUCCESSFUL; null otherwise."`
}

// CapacityResultsResponse is the body of GET capacity/results.
type CapacityResultsResponse struct {
	Results []CapacityResult `json:"results" nullable:"false"`
}

// RegisterCapacity adds the aFRR capacity endpoints to s.
func RegisterCapacity(s *httpapi.Server, svc *afrr.CapacityService) {
	bidshttp.Register(s, bidshttp.Market[CapacityBid, CapacitySubmitRequest, CapacityUpdateRequest, CapacityBidsResponse, CapacityUpdateResponse,
		bidshttp.TenderIntervalsInput, CapacityValidIntervalsResponse, CapacityResultsResponse]{
		Tag:            "aFRR capacity",
		TagDescription: "automatic Frequency Restoration Reserve capacity: bids per 4-hour block and direction (capacity prices in EUR/MW/h, energy prices in EUR/MWh), tender intervals and auction results.",
		Base:           "/v1/assets/{asset_id}/markets/afrr/capacity", ID: "afrr-capacity", Directional: true,
		Gates: " Bids open 10:00 Europe/Berlin at D-7; recommended deadline D-1 08:30, enforced gate D-1 09:00 (409 gate_closed after, 409 bidding_not_open before opening).",

		List: bidshttp.Doc{Summary: "List aFRR capacity bids", Response: exampleCapacityBids,
			Description: "Bids of the asset overlapping [start_time, end_time) (either bound optional), of product when given. " +
				"Bids that ended more than 30 days ago are not returned."},
		Submit: bidshttp.Doc{Summary: "Place aFRR capacity bids", Request: exampleCapacitySubmit, Response: exampleCapacitySubmitted,
			Description: "CREATE inserts the bids; REPLACE first deletes the PENDING bids fully inside replace_scope (of its product, or of both directions when it has none) " +
				"and every bid must lie inside it (and have its product). Each interval must be a tender interval (422 with valid_intervals). " +
				"Idempotency per bid: the same idempotency_key for the same interval and product returns the stored bid. " +
				"Capacity price 0 to 15000 EUR/MW per hour, energy price -15000 to 15000 EUR/MWh (422 PRICE_OUT_OF_RANGE). " +
				"Per direction, the power of the request plus the committed aFRR capacity power must stay within afrr_prequalified_capacity_pos_mw / _neg_mw " +
				"in every 15-minute period (409 AFRR_PREQUALIFIED_CAPACITY_EXCEEDED with periods); energy bids do not count. " +
				"409 market_not_enabled when afrr_enabled is false. 409 asset_not_live when asset_operational_status is not live (checked before the prequalified capacity; not in the demonstration environment). A rejected request stores nothing."},
		DeleteInterval: bidshttp.Doc{Summary: "Delete the aFRR capacity bids of an interval", Response: exampleDeleted,
			Description: "Deletes the PENDING bids whose start_time and end_time are exactly the ones given, of product when given (both directions otherwise); " +
				"bids in other statuses stay."},
		Update: bidshttp.Doc{Summary: "Change an aFRR capacity bid", Request: exampleCapacityUpdate, Response: exampleCapacityUpdated,
			Description: "A PENDING bid changes in place (a changed interval must be a tender interval; the product never changes). A SUBMITTED bid keeps the values the market holds and " +
				"records the change in last_edit_attempt (PENDING_RESYNC; APPLIED once forwarded, FAILED_LATE_EDIT if the gate closes first); " +
				"only offered_power_mw and the prices may change (409 bid_not_pending otherwise, and for bids in any other status). " +
				"409 market_not_enabled when afrr_enabled was switched off. 409 asset_not_live when the change raises the power or moves the interval of a bid of an asset whose asset_operational_status is not live (not in the demonstration environment). " +
				"Raising the power beyond the prequalified capacity of the bid's direction gives 409 AFRR_PREQUALIFIED_CAPACITY_EXCEEDED (the bid's own power is not counted)."},
		Delete: bidshttp.Doc{Summary: "Delete one aFRR capacity bid",
			Description: "Deletes a PENDING bid, whatever the asset's operational status. 409 bid_not_pending for a bid already submitted (or cleared); 404 for an unknown bid."},
		Intervals: bidshttp.Doc{Summary: "List aFRR capacity tender intervals", Response: exampleCapacityIntervals,
			Description: "The tender intervals of delivery_day, or of the days overlapping [start_time, end_time) (at most 31 days; only intervals overlapping it), " +
				"or without parameters every interval whose bidding is open now; each with its opening, recommended deadline, gate and whether bidding is open."},
		Results: bidshttp.Doc{Summary: "List aFRR capacity auction results", Response: exampleCapacityResults,
			Description: "Per bid overlapping [start_time, end_time) (of product when given): offered and awarded power, the bid's own capacity price (pay-as-bid) and energy price, " +
				"status, price source, the replayed day the result comes from, the clearing note and, when SUCCESSFUL, the capacity payment (awarded MW x capacity price x hours of the block, EUR). " +
				"Bids not yet cleared appear with their current status and null award. Bids that ended more than 30 days ago are not returned."},

		Service: svc,
		Records: toCapacityBids,
		ListBody: func(list []bids.Bid) CapacityBidsResponse {
			return CapacityBidsResponse{Bids: toCapacityBids(list), Market: "capacity"}
		},
		Updated: func(b bids.Bid, warnings []string) CapacityUpdateResponse {
			return CapacityUpdateResponse{Bids: []CapacityBid{toCapacityBid(b)}, Warnings: warnings}
		},
		IntervalsBody: func(ivs []bidshttp.ValidInterval) CapacityValidIntervalsResponse {
			return CapacityValidIntervalsResponse{Intervals: ivs}
		},
		Submission: func(r CapacitySubmitRequest) bids.Submission {
			sub := bids.Submission{Mode: r.Mode, Bids: make([]bids.NewBid, len(r.Bids))}
			for i, b := range r.Bids {
				sub.Bids[i] = bids.NewBid{IdempotencyKey: b.IdempotencyKey, Product: b.Product, Start: b.StartTime, End: b.EndTime,
					CapacityPrice: b.CapacityPrice.PriceInput, EnergyPrice: b.EnergyPrice.PriceInput, OfferedMW: b.OfferedPowerMW}
			}
			if sc := r.ReplaceScope; sc != nil {
				sub.Scope = &bids.ReplaceScope{Start: sc.StartTime, End: sc.EndTime, Product: sc.Product}
			}
			return sub
		},
		Change: func(u CapacityUpdateRequest) bids.Change {
			return bids.Change{IdempotencyKey: u.IdempotencyKey, Start: u.StartTime, End: u.EndTime,
				CapacityPrice: u.CapacityPrice.PriceInput, EnergyPrice: u.EnergyPrice.PriceInput, OfferedMW: u.OfferedPowerMW}
		},
		ValidIntervals: bidshttp.TenderIntervals(svc.ValidIntervals),
		ResultsOf: func(ctx context.Context, v auth.Visibility, f bidshttp.Filter) (CapacityResultsResponse, error) {
			list, err := svc.Results(ctx, v, f.AssetID, f.Start, f.End, f.Product)
			if err != nil {
				return CapacityResultsResponse{}, err
			}
			out := CapacityResultsResponse{Results: make([]CapacityResult, len(list))}
			for i, r := range list {
				out.Results[i] = CapacityResult{BidID: r.ID, Product: r.Product, StartTime: r.Start, EndTime: r.End,
					OfferedPowerMW: r.OfferedMW, AwardedPowerMW: r.AwardedMW, CapacityPrice: capacityPriceOf(r.CapacityPrice),
					EnergyPrice: capacityPriceOf(r.EnergyPrice), Status: r.Status, PriceSource: r.PriceSource,
					SourceDay: r.SourceDay, ClearingNote: r.ClearingNote,
					CapacityPayment: bidshttp.PricePtr(r.Payment)}
			}
			return out, nil
		},
	})
}
