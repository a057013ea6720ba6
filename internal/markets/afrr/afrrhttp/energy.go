package afrrhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

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
		EnergyPrice: price, OfferedPowerMW: b.OfferedMW, Status: b.Status, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt,
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
		EnergyPrice: toEnergyBid(b).EnergyPrice, Status: b.Status, PriceSource: b.PriceSource,
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

// Huma reads parameters only from a struct's own fields, so each input
// spells out the ones it takes.

type energyListOutput struct{ Body EnergyBidsResponse }

type energySubmitInput struct {
	AssetID string `path:"asset_id" doc:"The asset id."`
	Body    EnergySubmitRequest
}

type energySubmitOutput struct{ Body EnergySubmitResponse }

type energyDeleteIntervalOutput struct{ Body bidshttp.DeleteResponse }

type energyUpdateInput struct {
	AssetID string `path:"asset_id" doc:"The asset id."`
	BidID   string `path:"bid_id" doc:"The bid id (uuid)."`
	Body    EnergyUpdateRequest
}

type energyUpdateOutput struct{ Body EnergyUpdateResponse }

type energyValidInput struct {
	AssetID     string `path:"asset_id" doc:"The asset id."`
	DeliveryDay string `query:"delivery_day" required:"false" doc:"A delivery day (YYYY-MM-DD, Europe/Berlin); omitted: every period open now."`
}

type energyValidOutput struct{ Body EnergyValidIntervalsResponse }

type energyResultsOutput struct{ Body EnergyResultsResponse }

// RegisterEnergy adds the aFRR energy endpoints to s.
func RegisterEnergy(s *httpapi.Server, svc *afrr.EnergyService) {
	tags := []string{s.Tag("aFRR energy", "aFRR energy bids per quarter-hour and direction (prices in EUR/MWh), bid intervals and activation results.")}
	base := "/v1/assets/{asset_id}/markets/afrr/energy"
	gates := " Bidding for a delivery period opens D-1 10:00 Europe/Berlin and closes 25 minutes before the period starts " +
		"(409 bidding_not_open before, 409 gate_closed from the closure on)."

	httpapi.Register(s, huma.Operation{
		OperationID: "list-afrr-energy-bids", Method: http.MethodGet, Path: base + "/bids", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleEnergyBids),
		Summary:   "List aFRR energy bids",
		Description: "Energy bids of the asset overlapping [start_time, end_time) (either bound optional), of one product or both. " +
			"Bids that ended more than 30 days ago are not returned.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.MarketRead), func(ctx context.Context, in *bidshttp.DirectionalListInput) (*energyListOutput, error) {
		start, end := bidshttp.Bounds(in.StartTime, in.EndTime)
		list, err := svc.List(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, start, end, bidshttp.OptionalProduct(in.Product))
		if err != nil {
			return nil, err
		}
		return &energyListOutput{Body: EnergyBidsResponse{Bids: toEnergyBids(list), Market: "energy"}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "submit-afrr-energy-bids", Method: http.MethodPost, Path: base + "/bids", Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(exampleEnergySubmit), Responses: httpapi.ResponseExample(http.StatusCreated, exampleEnergySubmitted),
		Summary: "Place aFRR energy bids",
		Description: "Each bid covers exactly one 15-minute delivery period (422 otherwise). CREATE inserts the bids; REPLACE first deletes the PENDING bids fully inside " +
			"replace_scope (of its product, or both when omitted) and every bid must lie inside it. Idempotency per bid: the same idempotency_key for the same period " +
			"and product returns the stored bid. Energy price -15000 to 15000 EUR/MWh (422 PRICE_OUT_OF_RANGE). The power of the request plus the power of the " +
			"committed energy bids must stay within afrr_prequalified_capacity_pos_mw / _neg_mw in every period and direction (capacity bids are not counted; " +
			"409 AFRR_PREQUALIFIED_CAPACITY_EXCEEDED with periods). 409 market_not_enabled when afrr_enabled is false. A rejected request stores nothing." + gates,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.MarketWrite), func(ctx context.Context, in *energySubmitInput) (*energySubmitOutput, error) {
		sub := bids.Submission{Mode: in.Body.Mode, Bids: make([]bids.NewBid, len(in.Body.Bids))}
		for i, b := range in.Body.Bids {
			sub.Bids[i] = bids.NewBid{IdempotencyKey: b.IdempotencyKey, Product: b.Product, Start: b.StartTime, End: b.EndTime,
				EnergyPrice: b.EnergyPrice.PriceInput, OfferedMW: b.OfferedPowerMW}
		}
		if sc := in.Body.ReplaceScope; sc != nil {
			sub.Scope = &bids.ReplaceScope{Start: sc.StartTime, End: sc.EndTime, Product: sc.Product}
		}
		res, err := svc.Submit(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, sub)
		if err != nil {
			return nil, err
		}
		return &energySubmitOutput{Body: bidshttp.NewSubmitResponse(res, toEnergyBids)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-afrr-energy-bids", Method: http.MethodDelete, Path: base + "/bids", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleDeleted),
		Summary:   "Delete the aFRR energy bids of an interval",
		Description: "Deletes the PENDING energy bids whose start_time and end_time are exactly the ones given (of product, or both when omitted); " +
			"bids in other statuses stay." + gates,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.MarketWrite), func(ctx context.Context, in *bidshttp.DirectionalDeleteInput) (*energyDeleteIntervalOutput, error) {
		ids, err := svc.DeleteInterval(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID,
			calendar.Interval{Start: in.StartTime, End: in.EndTime}, bidshttp.OptionalProduct(in.Product))
		if err != nil {
			return nil, err
		}
		return &energyDeleteIntervalOutput{Body: bidshttp.DeleteResponse{DeletedCount: len(ids), DeletedBidIDs: bidshttp.NonNil(ids)}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "update-afrr-energy-bid", Method: http.MethodPut, Path: base + "/bids/{bid_id}", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleEnergyUpdate), Responses: httpapi.ResponseExample(http.StatusOK, exampleEnergyUpdated),
		Summary: "Change an aFRR energy bid",
		Description: "Changes a PENDING energy bid in place (its product stays; a changed interval is again exactly one delivery period). " +
			"There is no late edit of an energy bid: any other status is 409 bid_not_pending. A new key in use for the period is 409 idempotency_key_in_use. " +
			"409 market_not_enabled when afrr_enabled was switched off. Raising the power beyond the prequalified capacity gives 409 " +
			"AFRR_PREQUALIFIED_CAPACITY_EXCEEDED (the bid's own power is not counted)." + gates,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.MarketWrite), func(ctx context.Context, in *energyUpdateInput) (*energyUpdateOutput, error) {
		b, warn, err := svc.Update(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.BidID, bids.Change{
			IdempotencyKey: in.Body.IdempotencyKey, Start: in.Body.StartTime, End: in.Body.EndTime,
			EnergyPrice: in.Body.EnergyPrice.PriceInput, OfferedMW: in.Body.OfferedPowerMW,
		})
		if err != nil {
			return nil, err
		}
		return &energyUpdateOutput{Body: EnergyUpdateResponse{Bids: []EnergyBid{toEnergyBid(b)}, Warnings: bidshttp.NonNil(warn)}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-afrr-energy-bid", Method: http.MethodDelete, Path: base + "/bids/{bid_id}", Tags: tags, DefaultStatus: http.StatusNoContent,
		Summary:     "Delete one aFRR energy bid",
		Description: "Deletes a PENDING energy bid before its closure (409 gate_closed after, checked first). 409 bid_not_pending for a bid in any other status; 404 for an unknown bid." + gates,
		Errors:      []int{http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.MarketWrite), func(ctx context.Context, in *bidshttp.BidPath) (*struct{}, error) {
		return nil, svc.Delete(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.BidID)
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-afrr-energy-valid-bid-intervals", Method: http.MethodGet, Path: base + "/valid_bid_intervals", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleEnergyIntervals),
		Summary:   "List aFRR energy delivery periods",
		Description: "The 15-minute delivery periods of delivery_day (96; 92 or 100 on clock-change days), or without it every period whose energy bidding is open now; " +
			"each with its opening, closure (recommended_deadline and gate_closure are both the closure, 25 minutes before the period) and whether bidding is open.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.MarketRead), func(ctx context.Context, in *energyValidInput) (*energyValidOutput, error) {
		var day *calendar.Day
		if in.DeliveryDay != "" {
			d, err := calendar.ParseDay(in.DeliveryDay)
			if err != nil {
				return nil, errs.Invalidf("query.delivery_day", in.DeliveryDay, "%s", err.Error())
			}
			day = &d
		}
		list, err := svc.ValidIntervals(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, day)
		if err != nil {
			return nil, err
		}
		out := &energyValidOutput{Body: EnergyValidIntervalsResponse{Intervals: make([]bidshttp.ValidInterval, len(list))}}
		for i, p := range list {
			out.Body.Intervals[i] = bidshttp.NewValidInterval(p.Interval, p.DeliveryDay, p.Window, p.Open)
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-afrr-energy-results", Method: http.MethodGet, Path: base + "/results", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleEnergyResults),
		Summary:   "List aFRR energy results",
		Description: "Per energy bid overlapping [start_time, end_time) (of product, or both): activated power and energy, the marginal price of its quarter-hour " +
			"and direction (activation is paid at it, not at the bid price), the settlement amount, status (FALLBACK when the period did not clear and the TSO " +
			"substitute price applies) and price source. Bids not yet cleared appear with their current status and nulls. Bids that ended more than 30 days ago are not returned.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.MarketRead), func(ctx context.Context, in *bidshttp.DirectionalListInput) (*energyResultsOutput, error) {
		start, end := bidshttp.Bounds(in.StartTime, in.EndTime)
		list, err := svc.List(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, start, end, bidshttp.OptionalProduct(in.Product))
		if err != nil {
			return nil, err
		}
		out := &energyResultsOutput{Body: EnergyResultsResponse{Results: make([]EnergyResult, len(list))}}
		for i, b := range list {
			out.Body.Results[i] = toEnergyResult(b)
		}
		return out, nil
	})
}
