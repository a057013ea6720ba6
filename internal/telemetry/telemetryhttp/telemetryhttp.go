// Package telemetryhttp serves asset state, state history and planned
// state (document 2, "Telemetry").
package telemetryhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/feasibility"
	"atcp/internal/restrictions"
	"atcp/internal/restrictions/restrictionshttp"
	"atcp/internal/telemetry/assetstate"
)

// PlannedSetPoint is one step of the scheduled power.
type PlannedSetPoint struct {
	SetPower float64   `json:"set_power" doc:"MW from set_time until the next step."`
	SetTime  time.Time `json:"set_time"`
}

// FCRReservation is an accepted FCR bid.
type FCRReservation struct {
	ID             string      `json:"id" format:"uuid"`
	IdempotencyKey *string     `json:"idempotency_key"`
	StartTime      time.Time   `json:"start_time"`
	EndTime        time.Time   `json:"end_time"`
	OfferedPower   float64     `json:"offered_power" doc:"MW offered."`
	AwardedPower   *float64    `json:"awarded_power" doc:"MW awarded (the reservation held); null when the market recorded none."`
	CapacityPrice  string      `json:"capacity_price" doc:"EUR/MW per block, as a decimal string (for example \"12.5\")."`
	Status         bids.Status `json:"status" enum:"SUCCESSFUL,FALLBACK"`
}

// AFRRCapacityReservation is an accepted aFRR capacity bid.
type AFRRCapacityReservation struct {
	ID             string       `json:"id" format:"uuid"`
	IdempotencyKey *string      `json:"idempotency_key"`
	StartTime      time.Time    `json:"start_time"`
	EndTime        time.Time    `json:"end_time"`
	Product        bids.Product `json:"product" enum:"pos,neg"`
	OfferedPower   float64      `json:"offered_power" doc:"MW offered."`
	AwardedPower   *float64     `json:"awarded_power" doc:"MW awarded (the reservation held); null when the market recorded none."`
	CapacityPrice  string       `json:"capacity_price" doc:"EUR/MW/h, as a decimal string (for example \"12.5\")."`
	EnergyPrice    *string      `json:"energy_price" doc:"EUR/MWh, as a decimal string; negative: the provider pays."`
	Status         bids.Status  `json:"status" enum:"SUCCESSFUL,FALLBACK"`
}

// AFRREnergyReservation is an accepted aFRR energy bid.
type AFRREnergyReservation struct {
	ID             string       `json:"id" format:"uuid"`
	IdempotencyKey *string      `json:"idempotency_key"`
	StartTime      time.Time    `json:"start_time"`
	EndTime        time.Time    `json:"end_time"`
	Product        bids.Product `json:"product" enum:"pos,neg"`
	OfferedPower   float64      `json:"offered_power" doc:"MW offered."`
	AwardedPower   *float64     `json:"awarded_power" doc:"MW activated/awarded; null when the market recorded none."`
	EnergyPrice    *string      `json:"energy_price" doc:"EUR/MWh, as a decimal string; negative: the provider pays."`
	Status         bids.Status  `json:"status" enum:"SUCCESSFUL,FALLBACK"`
}

// PlannedLimit is a power limit (MW) or an energy limit (MWh) of planned
// state.
type PlannedLimit struct {
	StartTime         time.Time  `json:"start_time"`
	EndTime           *time.Time `json:"end_time" nullable:"true" doc:"Exclusive; null is open-ended."`
	UpperLimit        float64    `json:"upper_limit"`
	LowerLimit        float64    `json:"lower_limit"`
	Reason            string     `json:"reason" enum:"maintenance,fault,grid_event,commercial,other"`
	ReasonDescription *string    `json:"reason_description" nullable:"true"`
}

// PlannedUnavailability is an unavailability of planned state.
type PlannedUnavailability struct {
	StartTime         time.Time  `json:"start_time"`
	EndTime           *time.Time `json:"end_time" nullable:"true" doc:"Exclusive; null is open-ended."`
	Reason            string     `json:"reason" enum:"maintenance,fault,grid_event,commercial,other"`
	ReasonDescription *string    `json:"reason_description" nullable:"true"`
}

// PlannedState is the planned state of document 1.
type PlannedState struct {
	AssetID                  string                         `json:"asset_id"`
	OrganizationID           string                         `json:"organization_id"`
	StartTime                time.Time                      `json:"start_time"`
	EndTime                  time.Time                      `json:"end_time"`
	ScheduledDispatch        []PlannedSetPoint              `json:"scheduled_dispatch" nullable:"false" doc:"The scheduled power as a step function: every event in the window plus a 0 MW reset at each block start that follows a block with events and has no event of its own."`
	FCRReservations          []FCRReservation               `json:"fcr_reservations" nullable:"false"`
	AFRRCapacityReservations []AFRRCapacityReservation      `json:"afrr_capacity_reservations" nullable:"false"`
	AFRREnergyReservations   []AFRREnergyReservation        `json:"afrr_energy_reservations" nullable:"false"`
	PowerLimits              []PlannedLimit                 `json:"power_limits" nullable:"false" doc:"MW."`
	EnergyLimits             []PlannedLimit                 `json:"energy_limits" nullable:"false" doc:"MWh."`
	Unavailabilities         []PlannedUnavailability        `json:"unavailabilities" nullable:"false"`
	Curtailments             []restrictionshttp.Curtailment `json:"curtailments" nullable:"false"`
	Feasibility              []feasibility.Violation        `json:"feasibility" nullable:"false" doc:"An addition to document 1: where the asset's committed bids (FCR, aFRR capacity and energy, counted as against the prequalified ceiling) and the scheduled power do not fit its usable power (per 15-minute period and side) or its usable energy (the FCR 15-minute reserve and full aFRR activation per tender block); empty when everything fits or the asset records neither figure."`
}

type stateOutput struct {
	Body assetstate.State
}

type plannedOutput struct {
	Body PlannedState
}

type assetInput struct {
	AssetID string `path:"asset_id"`
}

type historyInput struct {
	AssetID      string    `path:"asset_id"`
	StartTime    time.Time `query:"start_time" required:"true" doc:"Inclusive; at most 30 days back."`
	EndTime      time.Time `query:"end_time" required:"true" doc:"Exclusive; after start_time. At most 5 minutes after start_time without do_downsample, 30 days with it."`
	DoDownsample bool      `query:"do_downsample" default:"false" doc:"Aggregate to about 200 points per measurement: the window is cut into 200 equal buckets and each bucket with data yields one point stamped with its start."`
	PointNames   []string  `query:"point_names,explode" doc:"Measurement names (document 1 names, which are also the stored names, or the deprecated aliases), repeated and/or comma-separated; all measurements when omitted. An unknown name is 422."`
}

type plannedInput struct {
	AssetID   string    `path:"asset_id"`
	StartTime time.Time `query:"start_time" required:"true" doc:"Inclusive; at most 30 days back."`
	EndTime   time.Time `query:"end_time" required:"true" doc:"Exclusive; after start_time and at most 8 days after it."`
}

// Register adds the three telemetry endpoints to s.
func Register(s *httpapi.Server, svc *assetstate.Service) {
	tags := []string{s.Tag("Telemetry", "An asset's measured state now, its downsampled state history and its planned state.")}
	read := httpapi.Scopes(auth.AssetRead)

	httpapi.Register(s, huma.Operation{
		OperationID: "get-asset-state", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/state", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleState),
		Summary:   "Latest asset state",
		Description: "Every measurement of the asset as `{name: [{timestamp, value}]}` (exactly one point each), including the " +
			"deprecated aliases available_soc_discharge and available_soc_charge; PV measurements only for pv_active assets. " +
			"asset_status is 0 while a full unavailability or a full power or energy limit is active, and while the asset's latest " +
			"measurements are more than 5 seconds (real time) old: it stopped reporting. A virtual asset shows its " +
			"parent's state with MW/MWh measurements allocated by the segmentation. An asset that has never reported returns `{}`.",
		Errors: []int{http.StatusNotFound},
	}, read, func(ctx context.Context, in *assetInput) (*stateOutput, error) {
		st, err := svc.State(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID)
		if err != nil {
			return nil, err
		}
		return &stateOutput{Body: st}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-asset-state-history", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/state/history", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleHistory),
		Summary:   "Asset state history",
		Description: "Each requested measurement as a list of `{timestamp, value}` over [start_time, end_time). Without do_downsample " +
			"the window is at most 5 minutes and every stored point (one per second) is returned; with it the window may span up " +
			"to 30 days and is cut into 200 equal buckets. Data reaches back 30 days. A named measurement without data is an " +
			"empty list; without point_names only measurements with data appear.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, func(ctx context.Context, in *historyInput) (*stateOutput, error) {
		st, err := svc.History(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, assetstate.HistoryQuery{
			Start: in.StartTime, End: in.EndTime, Downsample: in.DoDownsample, PointNames: in.PointNames})
		if err != nil {
			return nil, err
		}
		return &stateOutput{Body: st}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-asset-planned-state", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/planned_state", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, examplePlanned),
		Summary:   "Asset planned state",
		Description: "What the platform's records plan for [start_time, end_time): the scheduled dispatch as a step function, the " +
			"accepted (SUCCESSFUL, FALLBACK) FCR and aFRR bids, and the power limits, energy limits, unavailabilities and DSO " +
			"curtailments overlapping the window. The window is at most 8 days (enough to reach, from now, the end of the " +
			"furthest delivery day open for bids) and starts at most 30 days back.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, func(ctx context.Context, in *plannedInput) (*plannedOutput, error) {
		p, err := svc.Planned(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.StartTime, in.EndTime)
		if err != nil {
			return nil, err
		}
		return &plannedOutput{Body: toPlanned(p)}, nil
	})
}

func priceString(p *bids.Price) string {
	if p == nil {
		return ""
	}
	return p.String()
}

func priceStringPtr(p *bids.Price) *string {
	if p == nil {
		return nil
	}
	s := p.String()
	return &s
}

func toPlanned(p assetstate.Planned) PlannedState {
	out := PlannedState{
		AssetID: p.AssetID, OrganizationID: p.OrganizationID, StartTime: p.Start, EndTime: p.End,
		ScheduledDispatch:        make([]PlannedSetPoint, len(p.Dispatch)),
		FCRReservations:          make([]FCRReservation, len(p.FCR)),
		AFRRCapacityReservations: make([]AFRRCapacityReservation, len(p.AFRRCapacity)),
		AFRREnergyReservations:   make([]AFRREnergyReservation, len(p.AFRREnergy)),
		PowerLimits:              limits(p.PowerLimits),
		EnergyLimits:             limits(p.EnergyLimits),
		Unavailabilities:         make([]PlannedUnavailability, len(p.Unavailabilities)),
		Curtailments:             make([]restrictionshttp.Curtailment, len(p.Curtailments)),
		Feasibility:              httpapi.NonNil(p.Feasibility),
	}
	for i, sp := range p.Dispatch {
		out.ScheduledDispatch[i] = PlannedSetPoint{SetPower: sp.PowerMW, SetTime: sp.SetTime}
	}
	for i, b := range p.FCR {
		out.FCRReservations[i] = FCRReservation{ID: b.ID, IdempotencyKey: b.IdempotencyKey, StartTime: b.Start, EndTime: b.End,
			OfferedPower: b.OfferedMW, AwardedPower: b.AwardedMW, CapacityPrice: priceString(b.CapacityPrice), Status: b.Status}
	}
	for i, b := range p.AFRRCapacity {
		out.AFRRCapacityReservations[i] = AFRRCapacityReservation{ID: b.ID, IdempotencyKey: b.IdempotencyKey, StartTime: b.Start,
			EndTime: b.End, Product: b.Product, OfferedPower: b.OfferedMW, AwardedPower: b.AwardedMW,
			CapacityPrice: priceString(b.CapacityPrice), EnergyPrice: priceStringPtr(b.EnergyPrice), Status: b.Status}
	}
	for i, b := range p.AFRREnergy {
		out.AFRREnergyReservations[i] = AFRREnergyReservation{ID: b.ID, IdempotencyKey: b.IdempotencyKey, StartTime: b.Start,
			EndTime: b.End, Product: b.Product, OfferedPower: b.OfferedMW, AwardedPower: b.AwardedMW,
			EnergyPrice: priceStringPtr(b.EnergyPrice), Status: b.Status}
	}
	for i, iv := range p.Unavailabilities {
		out.Unavailabilities[i] = PlannedUnavailability{StartTime: iv.Start, EndTime: iv.End, Reason: string(iv.Reason),
			ReasonDescription: iv.ReasonDescription}
	}
	for i, c := range p.Curtailments {
		out.Curtailments[i] = restrictionshttp.Curtailment{StartTime: c.Start, EndTime: c.End,
			MaxCurtailment: c.MaxCurtailment, MinCurtailment: c.MinCurtailment}
	}
	return out
}

// limits shows power or energy limits; both bounds are always stored
// (omitted ones get their defaults on creation).
func limits(ivs []restrictions.Interval) []PlannedLimit {
	out := make([]PlannedLimit, len(ivs))
	for i, iv := range ivs {
		out[i] = PlannedLimit{StartTime: iv.Start, EndTime: iv.End, UpperLimit: deref(iv.Upper), LowerLimit: deref(iv.Lower),
			Reason: string(iv.Reason), ReasonDescription: iv.ReasonDescription}
	}
	return out
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
