// Package restrictionshttp serves power limits, energy limits,
// unavailability, curtailment and restriction requests.
package restrictionshttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/restrictions"
)

// PowerLimit is a power limit as returned.
type PowerLimit struct {
	StartTime         time.Time  `json:"start_time"`
	EndTime           *time.Time `json:"end_time" nullable:"true" doc:"Exclusive; null is open-ended."`
	UpperLimitMW      float64    `json:"upper_limit_mw"`
	LowerLimitMW      float64    `json:"lower_limit_mw"`
	Reason            string     `json:"reason" enum:"maintenance,fault,grid_event,commercial,other"`
	ReasonDescription *string    `json:"reason_description" nullable:"true"`
}

// EnergyLimit is an energy limit as returned.
type EnergyLimit struct {
	StartTime         time.Time  `json:"start_time"`
	EndTime           *time.Time `json:"end_time" nullable:"true" doc:"Exclusive; null is open-ended."`
	UpperLimitMWh     float64    `json:"upper_limit_mwh"`
	LowerLimitMWh     float64    `json:"lower_limit_mwh"`
	Reason            string     `json:"reason" enum:"maintenance,fault,grid_event,commercial,other"`
	ReasonDescription *string    `json:"reason_description" nullable:"true"`
}

// Unavailability is an unavailability as returned.
type Unavailability struct {
	StartTime          time.Time  `json:"start_time"`
	EndTime            *time.Time `json:"end_time" nullable:"true" doc:"Exclusive; null is open-ended."`
	AvailabilityStatus string     `json:"availability_status" enum:"unavailable"`
	Reason             string     `json:"reason" enum:"maintenance,fault,grid_event,commercial,other"`
	ReasonDescription  *string    `json:"reason_description" nullable:"true"`
}

// PowerLimitList is the body of the power-limit responses.
type PowerLimitList struct {
	Limits []PowerLimit `json:"limits" nullable:"false"`
}

// EnergyLimitList is the body of the energy-limit responses.
type EnergyLimitList struct {
	Limits []EnergyLimit `json:"limits" nullable:"false"`
}

// UnavailabilityList is the body of the unavailability responses.
type UnavailabilityList struct {
	Unavailabilities []Unavailability `json:"unavailabilities" nullable:"false"`
}

// PowerLimitCreate is the body of a power-limit creation.
type PowerLimitCreate struct {
	StartTime         time.Time  `json:"start_time" doc:"UTC; at most one minute in the past."`
	EndTime           *time.Time `json:"end_time,omitempty" nullable:"true" doc:"Exclusive; omitted or null is open-ended."`
	UpperLimitMW      *float64   `json:"upper_limit_mw,omitempty" doc:"At least one bound is required; omitted means the asset's usable power capacity."`
	LowerLimitMW      *float64   `json:"lower_limit_mw,omitempty" doc:"Omitted means minus the asset's usable power capacity."`
	Reason            string     `json:"reason" enum:"maintenance,fault,grid_event,commercial,other"`
	ReasonDescription *string    `json:"reason_description,omitempty" maxLength:"2000"`
}

// EnergyLimitCreate is the body of an energy-limit creation.
type EnergyLimitCreate struct {
	StartTime         time.Time  `json:"start_time" doc:"UTC; at most one minute in the past."`
	EndTime           *time.Time `json:"end_time,omitempty" nullable:"true" doc:"Exclusive; omitted or null is open-ended."`
	UpperLimitMWh     *float64   `json:"upper_limit_mwh,omitempty" doc:"At least one bound is required; omitted means the asset's usable energy capacity."`
	LowerLimitMWh     *float64   `json:"lower_limit_mwh,omitempty" doc:"Omitted means zero."`
	Reason            string     `json:"reason" enum:"maintenance,fault,grid_event,commercial,other"`
	ReasonDescription *string    `json:"reason_description,omitempty" maxLength:"2000"`
}

// UnavailabilityCreate is the body of an unavailability creation.
type UnavailabilityCreate struct {
	StartTime          time.Time  `json:"start_time" doc:"UTC; at most one minute in the past."`
	EndTime            *time.Time `json:"end_time,omitempty" nullable:"true" doc:"Exclusive; omitted or null is open-ended."`
	AvailabilityStatus string     `json:"availability_status,omitempty" enum:"unavailable" default:"unavailable" doc:"Always unavailable."`
	Reason             string     `json:"reason" enum:"maintenance,fault,grid_event,commercial,other"`
	ReasonDescription  *string    `json:"reason_description,omitempty" maxLength:"2000"`
}

// Shortening is the body of a PATCH.
type Shortening struct {
	NewEndTime *time.Time `json:"new_end_time,omitempty" doc:"Scheduled replacement end, at least 5 minutes ahead and before the current end; exclusive with end_now=true."`
	EndNow     bool       `json:"end_now,omitempty" doc:"End a started interval at server time now; on an interval that has already ended nothing changes (safe to retry)."`
}

type listInput struct {
	AssetID   string    `path:"asset_id"`
	SortBy    string    `query:"sort_by" doc:"Deprecated and ignored: always ordered by start_time."`
	SortOrder string    `query:"sort_order" enum:"asc,desc" default:"asc"`
	StartTime time.Time `query:"start_time" doc:"Overlap filter: intervals ending strictly after this instant, or open-ended."`
	EndTime   time.Time `query:"end_time" doc:"Overlap filter: intervals starting strictly before this instant."`
}

type assetInput struct {
	AssetID string `path:"asset_id"`
}

type createInput[C any] struct {
	AssetID string `path:"asset_id"`
	Body    C
}

type patchInput struct {
	AssetID   string    `path:"asset_id"`
	StartTime time.Time `query:"start_time" required:"true" doc:"Exact start of the interval; identifies it alone."`
	EndTime   string    `query:"end_time" doc:"Deprecated and ignored."`
	Body      Shortening
}

type deleteInput struct {
	AssetID   string    `path:"asset_id"`
	StartTime time.Time `query:"start_time" required:"true" doc:"Exact start of the interval."`
	EndTime   string    `query:"end_time" doc:"Deprecated and ignored."`
}

// kindAPI describes how one interval kind looks on the wire.
type kindAPI[L, C any] struct {
	kind    restrictions.Kind
	segment string // path segment after the asset
	noun    string // for summaries
	list    func([]restrictions.Interval) L
	draft   func(C) restrictions.Draft
	// Examples for the OpenAPI document: a creation, the list it gives,
	// and the list after shortening it to exampleShorten's end.
	exampleCreate, exampleList, exampleShortened string
}

func powerAPI() kindAPI[PowerLimitList, PowerLimitCreate] {
	return kindAPI[PowerLimitList, PowerLimitCreate]{
		kind: restrictions.PowerLimit, segment: "power_limits", noun: "power limit",
		exampleCreate: examplePowerLimitCreate, exampleList: examplePowerLimits, exampleShortened: examplePowerLimitsShortened,
		list: func(ivs []restrictions.Interval) PowerLimitList {
			out := PowerLimitList{Limits: make([]PowerLimit, len(ivs))}
			for i, iv := range ivs {
				out.Limits[i] = PowerLimit{StartTime: iv.Start, EndTime: iv.End, UpperLimitMW: *iv.Upper, LowerLimitMW: *iv.Lower,
					Reason: string(iv.Reason), ReasonDescription: iv.ReasonDescription}
			}
			return out
		},
		draft: func(c PowerLimitCreate) restrictions.Draft {
			return restrictions.Draft{Start: c.StartTime, End: c.EndTime, Upper: c.UpperLimitMW, Lower: c.LowerLimitMW,
				Reason: c.Reason, ReasonDescription: c.ReasonDescription}
		},
	}
}

func energyAPI() kindAPI[EnergyLimitList, EnergyLimitCreate] {
	return kindAPI[EnergyLimitList, EnergyLimitCreate]{
		kind: restrictions.EnergyLimit, segment: "energy_limits", noun: "energy limit",
		exampleCreate: exampleEnergyLimitCreate, exampleList: exampleEnergyLimits, exampleShortened: exampleEnergyLimitsShortened,
		list: func(ivs []restrictions.Interval) EnergyLimitList {
			out := EnergyLimitList{Limits: make([]EnergyLimit, len(ivs))}
			for i, iv := range ivs {
				out.Limits[i] = EnergyLimit{StartTime: iv.Start, EndTime: iv.End, UpperLimitMWh: *iv.Upper, LowerLimitMWh: *iv.Lower,
					Reason: string(iv.Reason), ReasonDescription: iv.ReasonDescription}
			}
			return out
		},
		draft: func(c EnergyLimitCreate) restrictions.Draft {
			return restrictions.Draft{Start: c.StartTime, End: c.EndTime, Upper: c.UpperLimitMWh, Lower: c.LowerLimitMWh,
				Reason: c.Reason, ReasonDescription: c.ReasonDescription}
		},
	}
}

func unavailabilityAPI() kindAPI[UnavailabilityList, UnavailabilityCreate] {
	return kindAPI[UnavailabilityList, UnavailabilityCreate]{
		kind: restrictions.Unavailability, segment: "unavailability", noun: "unavailability",
		exampleCreate: exampleUnavailabilityCreate, exampleList: exampleUnavailabilities, exampleShortened: exampleUnavailabilitiesShortened,
		list: func(ivs []restrictions.Interval) UnavailabilityList {
			out := UnavailabilityList{Unavailabilities: make([]Unavailability, len(ivs))}
			for i, iv := range ivs {
				out.Unavailabilities[i] = Unavailability{StartTime: iv.Start, EndTime: iv.End, AvailabilityStatus: "unavailable",
					Reason: string(iv.Reason), ReasonDescription: iv.ReasonDescription}
			}
			return out
		},
		draft: func(c UnavailabilityCreate) restrictions.Draft {
			return restrictions.Draft{Start: c.StartTime, End: c.EndTime, Reason: c.Reason, ReasonDescription: c.ReasonDescription}
		},
	}
}

func registerKind[L, C any](s *httpapi.Server, svc *restrictions.Service, k kindAPI[L, C]) {
	tags := []string{tagLimits(s)}
	path := "/v1/assets/{asset_id}/" + k.segment
	id := "-" + string(k.kind)
	write := httpapi.Scopes(auth.AssetWrite, auth.RestrictionsWriteDirect)

	httpapi.Register(s, huma.Operation{
		OperationID: "list" + id, Method: http.MethodGet, Path: path, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, k.exampleList),
		Summary:   "List " + k.noun + " intervals",
		Description: "Ordered by start_time (sort_by is deprecated and ignored). start_time and end_time filter by overlap with " +
			"the half-open window [start_time, end_time): an interval ending exactly at start_time or starting exactly at end_time " +
			"is excluded; open-ended intervals are included.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, in *listInput) (*httpapi.Output[L], error) {
		list, err := svc.List(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, k.kind,
			restrictions.Window{From: in.StartTime, To: in.EndTime}, restrictions.Order(in.SortOrder))
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[L]{Body: k.list(list)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "create" + id, Method: http.MethodPost, Path: path, Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(k.exampleCreate), Responses: httpapi.ResponseExample(http.StatusCreated, k.exampleList),
		Summary: "Create a " + k.noun + " interval",
		Description: "409 overlapping_interval when it overlaps another interval of the same kind (shorten or delete that one first). " +
			"422 for an invalid or missing field.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, func(ctx context.Context, in *createInput[C]) (*httpapi.Output[L], error) {
		iv, err := svc.Create(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, k.kind, k.draft(in.Body))
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[L]{Body: k.list([]restrictions.Interval{iv})}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "shorten" + id, Method: http.MethodPatch, Path: path, Tags: tags,
		RequestBody: httpapi.RequestExample(exampleShorten), Responses: httpapi.ResponseExample(http.StatusOK, k.exampleShortened),
		Summary: "Shorten or end a " + k.noun + " interval",
		Description: "Send exactly one of new_end_time (at least 5 minutes ahead, before the current end) and end_now=true (400 otherwise). " +
			"409 interval_ended for new_end_time on an ended interval; 409 interval_not_started for end_now on a future one.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, func(ctx context.Context, in *patchInput) (*httpapi.Output[L], error) {
		iv, err := svc.Shorten(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, k.kind, in.StartTime,
			restrictions.Shortening{NewEnd: in.Body.NewEndTime, EndNow: in.Body.EndNow})
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[L]{Body: k.list([]restrictions.Interval{iv})}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "delete" + id, Method: http.MethodDelete, Path: path, Tags: tags, DefaultStatus: http.StatusNoContent,
		Summary:     "Delete a future " + k.noun + " interval",
		Description: "404 when no interval starts exactly at start_time; 409 interval_started once it has started (end it with PATCH).",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, func(ctx context.Context, in *deleteInput) (*struct{}, error) {
		return nil, svc.Delete(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, k.kind, in.StartTime)
	})

	if k.kind == restrictions.Unavailability {
		return
	}
	httpapi.Register(s, huma.Operation{
		OperationID: "active" + id, Method: http.MethodGet, Path: path + "/active", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, k.exampleList),
		Summary:   "The active " + k.noun + " interval",
		Errors:    []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, in *assetInput) (*httpapi.Output[L], error) {
		list, err := svc.Active(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, k.kind)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[L]{Body: k.list(list)}, nil
	})
}

// tagLimits declares the tag of the limit, unavailability and curtailment
// endpoints.
func tagLimits(s *httpapi.Server) string {
	return s.Tag("Limits and unavailability", "Power and energy limits, planned unavailability and DSO curtailments: "+
		"what bounds an asset's power and state of charge, and when.")
}

// Register adds every restriction endpoint to s.
func Register(s *httpapi.Server, svc *restrictions.Service) {
	registerKind(s, svc, powerAPI())
	registerKind(s, svc, energyAPI())
	registerKind(s, svc, unavailabilityAPI())
	registerCurtailment(s, svc)
	registerRequests(s, svc)
}
