package afrrhttp

import (
	"context"
	"time"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/bids/bidshttp"
	"atcp/internal/markets/calendar"
)

// EnergyBid is the aFRR energy bid record of every response.
type EnergyBid struct {
	ID             string         `json:"id" format:"uuid"`
	IdempotencyKey *string        `json:"idempotency_key"`
	Product        bids.Product   `json:"product" enum:"pos,neg"`
	StartTime      time.Time      `json:"start_time"`
	EndTime        time.Time      `json:"end_time"`
	EnergyPrice    bidshttp.Price `json:"energy_price_eur_per_mwh" doc:"EUR/MWh; negative: the provider pays."`
	OfferedPowerMW float64        `json:"offered_power_mw"`
	Status         bids.Status    `json:"status" enum:"PENDING,SUBMITTED,SUCCESSFUL,REJECTED,FAILED,CANCELLED,FALLBACK"`
	Source         bids.Source    `json:"source" enum:"api,capacity_bid" doc:"Who created the bid: api (the holder) or capacity_bid (the platform, from a SUCCESSFUL aFRR capacity bid: its awarded power at its energy price, idempotency_key capacity-bid:<capacity bid id>; replace or delete it like any PENDING bid before the energy gate)."`
	CreatedAt      time.Time      `json:"created_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
}

func toEnergyBid(b bids.Bid) EnergyBid {
	var price bidshttp.Price
	if b.EnergyPrice != nil {
		price = bidshttp.Price(*b.EnergyPrice)
	}
	return EnergyBid{
		ID: b.ID, IdempotencyKey: b.IdempotencyKey, Product: b.Product, StartTime: b.Start, EndTime: b.End,
		EnergyPrice: price, OfferedPowerMW: b.OfferedMW, Status: b.Status, Source: b.Source.OrAPI(), CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt,
	}
}

func toEnergyBids(list []bids.Bid) []EnergyBid {
	out := make([]EnergyBid, len(list))
	for i, b := range list {
		out[i] = toEnergyBid(b)
	}
	return out
}

// EnergyBidInput is one bid of an energy submission.
type EnergyBidInput struct {
	IdempotencyKey *string          `json:"idempotency_key,omitempty" minLength:"1" maxLength:"200" doc:"Retrying the same key for the same interval and product returns the stored bid unchanged."`
	Product        bids.Product     `json:"product" enum:"pos,neg"`
	StartTime      time.Time        `json:"start_time" doc:"Start of a 15-minute delivery period (UTC quarter-hour)."`
	EndTime        time.Time        `json:"end_time" doc:"start_time + 15 minutes: one bid per delivery period."`
	EnergyPrice    bidshttp.PriceIn `json:"energy_price_eur_per_mwh" doc:"-15000 to 15000 EUR/MWh; negative: the provider pays. A number or a string holding one, at most 2 decimals."`
	OfferedPowerMW float64          `json:"offered_power_mw" minimum:"1" maximum:"100000" multipleOf:"1" doc:"Whole MW."`
}

// EnergyScope is the replace_scope of an energy REPLACE.
type EnergyScope struct {
	StartTime time.Time     `json:"start_time"`
	EndTime   time.Time     `json:"end_time"`
	Product   *bids.Product `json:"product,omitempty" enum:"pos,neg" doc:"Omitted: the PENDING bids of both directions in the window are deleted first."`
}

// EnergySubmitRequest is the body of POST energy/bids.
type EnergySubmitRequest struct {
	Bids         []EnergyBidInput `json:"bids" minItems:"1" maxItems:"500"`
	Mode         bids.Mode        `json:"mode,omitempty" enum:"CREATE,REPLACE" doc:"CREATE (default) or REPLACE."`
	ReplaceScope *EnergyScope     `json:"replace_scope,omitempty" doc:"Required when mode is REPLACE: its PENDING bids are deleted first."`
}

// EnergySubmitResponse is the 201 body of POST energy/bids.
type EnergySubmitResponse = bidshttp.SubmitResponse[EnergyBid]

// EnergyUpdateRequest is the body of PUT energy/bids/{bid_id}.
type EnergyUpdateRequest struct {
	IdempotencyKey *string          `json:"idempotency_key,omitempty" minLength:"1" maxLength:"200" doc:"Overwrites the stored key."`
	StartTime      time.Time        `json:"start_time"`
	EndTime        time.Time        `json:"end_time"`
	EnergyPrice    bidshttp.PriceIn `json:"energy_price_eur_per_mwh" doc:"-15000 to 15000 EUR/MWh; negative: the provider pays. A number or a string holding one, at most 2 decimals."`
	OfferedPowerMW float64          `json:"offered_power_mw" minimum:"1" maximum:"100000" multipleOf:"1"`
}

// EnergyBidsResponse is the body of GET energy/bids.
type EnergyBidsResponse struct {
	Bids   []EnergyBid `json:"bids" nullable:"false"`
	Market string      `json:"market" enum:"energy"`
}

// EnergyUpdateResponse is the body of PUT energy/bids/{bid_id}.
type EnergyUpdateResponse struct {
	Bids     []EnergyBid `json:"bids" nullable:"false" doc:"The bid as stored."`
	Warnings []string    `json:"warnings" nullable:"false"`
}

// EnergyValidIntervalsResponse is the body of GET energy/valid_bid_intervals:
// delivery periods, whose recommended deadline is their closure.
type EnergyValidIntervalsResponse struct {
	Intervals []bidshttp.ValidInterval `json:"intervals" nullable:"false"`
}

// EnergyResult is one energy bid's outcome.
type EnergyResult struct {
	BidID              string          `json:"bid_id" format:"uuid"`
	Product            bids.Product    `json:"product" enum:"pos,neg"`
	StartTime          time.Time       `json:"start_time"`
	EndTime            time.Time       `json:"end_time"`
	OfferedPowerMW     float64         `json:"offered_power_mw"`
	EnergyPrice        bidshttp.Price  `json:"energy_price_eur_per_mwh" doc:"The bid's price in EUR/MWh (merit order only; activation is paid the marginal price)."`
	ActivatedPowerMW   *float64        `json:"activated_power_mw" doc:"Average activated power over the period; null until cleared."`
	ActivatedEnergyMWh *float64        `json:"activated_energy_mwh" doc:"activated_power_mw x 0.25 h; null until cleared."`
	MarginalPrice      *bidshttp.Price `json:"marginal_price_eur_per_mwh" nullable:"true" doc:"Marginal price of the quarter-hour and direction in EUR/MWh (the TSO substitute price for FALLBACK); null until cleared."`
	SettlementAmount   *bidshttp.Price `json:"settlement_amount_eur" nullable:"true" doc:"EUR: activated_energy_mwh x marginal price (EUR/MWh), to the cent; negative: the provider pays; null until cleared."`
	Status             bids.Status     `json:"status" enum:"PENDING,SUBMITTED,SUCCESSFUL,REJECTED,FAILED,CANCELLED,FALLBACK"`
	Source             bids.Source     `json:"source" enum:"api,capacity_bid" doc:"Who created the bid: api (the holder) or capacity_bid (the platform, from an aFRR capacity award)."`
	PriceSource        *string         `json:"price_source" doc:"What the figures are: modelled (activation and marginal price are modelled from the replayed quarter-hour's frequency and reBAP); null until cleared."`
	SourceDay          *string         `json:"source_day" format:"date" doc:"The replayed day whose results cleared the bid; null until cleared."`
	ClearingNote       *string         `json:"clearing_note" doc:"The replayed quarter-hour and how the bid fared, in words; null until cleared."`
}

// EnergyResultsResponse is the body of GET energy/results.
type EnergyResultsResponse struct {
	Results []EnergyResult `json:"results" nullable:"false"`
}

func toEnergyResult(b bids.Bid) EnergyResult {
	r := EnergyResult{BidID: b.ID, Product: b.Product, StartTime: b.Start, EndTime: b.End, OfferedPowerMW: b.OfferedMW,
		EnergyPrice: toEnergyBid(b).EnergyPrice, Status: b.Status, Source: b.Source.OrAPI(), PriceSource: b.PriceSource,
		SourceDay: b.SourceDay, ClearingNote: b.ClearingNote}
	if st, ok := afrr.SettleEnergy(b); ok {
		activated := 0.0
		if b.AwardedMW != nil {
			activated = *b.AwardedMW
		}
		price, amount := bidshttp.Price(st.Price), bidshttp.Price(st.Amount)
		r.ActivatedPowerMW, r.ActivatedEnergyMWh, r.MarginalPrice, r.SettlementAmount = &activated, &st.ActivatedMWh, &price, &amount
	}
	return r
}

// energyIntervalsInput asks for the energy delivery periods.
type energyIntervalsInput struct {
	AssetID     string `path:"asset_id" doc:"The asset id."`
	DeliveryDay string `query:"delivery_day" required:"false" doc:"A delivery day (YYYY-MM-DD, Europe/Berlin); omitted: every period open now."`
}

// RegisterEnergy adds the aFRR energy endpoints to s.
func RegisterEnergy(s *httpapi.Server, svc *afrr.EnergyService) {
	bidshttp.Register(s, bidshttp.Market[EnergyBid, EnergySubmitRequest, EnergyUpdateRequest, EnergyBidsResponse, EnergyUpdateResponse,
		energyIntervalsInput, EnergyValidIntervalsResponse, EnergyResultsResponse]{
		Tag:            "aFRR energy",
		TagDescription: "aFRR energy bids per quarter-hour and direction (prices in EUR/MWh), bid intervals and activation results.",
		Base:           "/v1/assets/{asset_id}/markets/afrr/energy", ID: "afrr-energy", Directional: true,
		Gates: " Bidding for a delivery period opens D-1 10:00 Europe/Berlin and closes 25 minutes before the period starts " +
			"(409 bidding_not_open before, 409 gate_closed from the closure on).",

		List: bidshttp.Doc{Summary: "List aFRR energy bids", Response: exampleEnergyBids,
			Description: "Energy bids of the asset overlapping [start_time, end_time) (either bound optional), of one product or both. " +
				"Bids that ended more than 30 days ago are not returned."},
		Submit: bidshttp.Doc{Summary: "Place aFRR energy bids", Request: exampleEnergySubmit, Response: exampleEnergySubmitted,
			Description: "Each bid covers exactly one 15-minute delivery period (422 otherwise). CREATE inserts the bids; REPLACE first deletes the PENDING bids fully inside " +
				"replace_scope (of its product, or both when omitted) and every bid must lie inside it. Idempotency per bid: the same idempotency_key for the same period " +
				"and product returns the stored bid. Energy price -15000 to 15000 EUR/MWh (422 PRICE_OUT_OF_RANGE). The power of the request plus the power of the " +
				"committed energy bids must stay within afrr_prequalified_capacity_pos_mw / _neg_mw in every period and direction (capacity bids are not counted; " +
				"409 AFRR_PREQUALIFIED_CAPACITY_EXCEEDED with periods). 409 market_not_enabled when afrr_enabled is false. " +
				"409 asset_not_live when asset_operational_status is not live (checked before the prequalified capacity; not in the demonstration environment). A rejected request stores nothing."},
		DeleteInterval: bidshttp.Doc{Summary: "Delete the aFRR energy bids of an interval", Response: exampleDeleted,
			Description: "Deletes the PENDING energy bids whose start_time and end_time are exactly the ones given (of product, or both when omitted); " +
				"bids in other statuses stay."},
		Update: bidshttp.Doc{Summary: "Change an aFRR energy bid", Request: exampleEnergyUpdate, Response: exampleEnergyUpdated,
			Description: "Changes a PENDING energy bid in place (its product stays; a changed interval is again exactly one delivery period). " +
				"There is no late edit of an energy bid: any other status is 409 bid_not_pending. A new key in use for the period is 409 idempotency_key_in_use. " +
				"409 market_not_enabled when afrr_enabled was switched off. 409 asset_not_live when the change raises the power or moves the interval of a bid of an asset whose asset_operational_status is not live (not in the demonstration environment). Raising the power beyond the prequalified capacity gives 409 " +
				"AFRR_PREQUALIFIED_CAPACITY_EXCEEDED (the bid's own power is not counted)."},
		Delete: bidshttp.Doc{Summary: "Delete one aFRR energy bid",
			Description: "Deletes a PENDING energy bid before its closure (409 gate_closed after, checked first). 409 bid_not_pending for a bid in any other status; 404 for an unknown bid."},
		Intervals: bidshttp.Doc{Summary: "List aFRR energy delivery periods", Response: exampleEnergyIntervals,
			Description: "The 15-minute delivery periods of delivery_day (96; 92 or 100 on clock-change days), or without it every period whose energy bidding is open now; " +
				"each with its opening, closure (recommended_deadline and gate_closure are both the closure, 25 minutes before the period) and whether bidding is open."},
		Results: bidshttp.Doc{Summary: "List aFRR energy results", Response: exampleEnergyResults,
			Description: "Per energy bid overlapping [start_time, end_time) (of product, or both): activated power and energy, the marginal price of its quarter-hour " +
				"and direction (activation is paid at it, not at the bid price), the settlement amount, status (FALLBACK when the period did not clear and the TSO " +
				"substitute price applies) and price source. Bids not yet cleared appear with their current status and nulls. Bids that ended more than 30 days ago are not returned."},

		Service: svc,
		Records: toEnergyBids,
		ListBody: func(list []bids.Bid) EnergyBidsResponse {
			return EnergyBidsResponse{Bids: toEnergyBids(list), Market: "energy"}
		},
		Updated: func(b bids.Bid, warnings []string) EnergyUpdateResponse {
			return EnergyUpdateResponse{Bids: []EnergyBid{toEnergyBid(b)}, Warnings: warnings}
		},
		IntervalsBody: func(ivs []bidshttp.ValidInterval) EnergyValidIntervalsResponse {
			return EnergyValidIntervalsResponse{Intervals: ivs}
		},
		Submission: func(r EnergySubmitRequest) bids.Submission {
			sub := bids.Submission{Mode: r.Mode, Bids: make([]bids.NewBid, len(r.Bids))}
			for i, b := range r.Bids {
				sub.Bids[i] = bids.NewBid{IdempotencyKey: b.IdempotencyKey, Product: b.Product, Start: b.StartTime, End: b.EndTime,
					EnergyPrice: b.EnergyPrice.PriceInput, OfferedMW: b.OfferedPowerMW}
			}
			if sc := r.ReplaceScope; sc != nil {
				sub.Scope = &bids.ReplaceScope{Start: sc.StartTime, End: sc.EndTime, Product: sc.Product}
			}
			return sub
		},
		Change: func(u EnergyUpdateRequest) bids.Change {
			return bids.Change{IdempotencyKey: u.IdempotencyKey, Start: u.StartTime, End: u.EndTime,
				EnergyPrice: u.EnergyPrice.PriceInput, OfferedMW: u.OfferedPowerMW}
		},
		ValidIntervals: func(ctx context.Context, v auth.Visibility, in *energyIntervalsInput) ([]bids.TenderInterval, error) {
			var day *calendar.Day
			if in.DeliveryDay != "" {
				d, err := calendar.ParseDay(in.DeliveryDay)
				if err != nil {
					return nil, errs.Invalidf("query.delivery_day", in.DeliveryDay, "%s", err.Error())
				}
				day = &d
			}
			return svc.ValidIntervals(ctx, v, in.AssetID, day)
		},
		ResultsOf: func(ctx context.Context, v auth.Visibility, f bidshttp.Filter) (EnergyResultsResponse, error) {
			list, err := svc.List(ctx, v, f.AssetID, f.Start, f.End, f.Product)
			if err != nil {
				return EnergyResultsResponse{}, err
			}
			out := EnergyResultsResponse{Results: make([]EnergyResult, len(list))}
			for i, b := range list {
				out.Results[i] = toEnergyResult(b)
			}
			return out, nil
		},
	})
}
