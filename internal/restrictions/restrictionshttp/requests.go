package restrictionshttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/restrictions"
)

// RestrictionRequest is a restriction request as returned. The limit
// fields of the kind's unit are set; the others are null.
type RestrictionRequest struct {
	ID                string     `json:"id" format:"uuid"`
	AssetID           string     `json:"asset_id"`
	OrganizationID    string     `json:"organization_id"`
	Kind              string     `json:"kind" enum:"power_limit,energy_limit,unavailability"`
	Action            string     `json:"action"`
	Status            string     `json:"status" enum:"pending,approved,rejected,cancelled,expired"`
	StartTime         time.Time  `json:"start_time"`
	EndTime           *time.Time `json:"end_time" nullable:"true"`
	UpperLimitMW      *float64   `json:"upper_limit_mw" nullable:"true"`
	LowerLimitMW      *float64   `json:"lower_limit_mw" nullable:"true"`
	UpperLimitMWh     *float64   `json:"upper_limit_mwh" nullable:"true"`
	LowerLimitMWh     *float64   `json:"lower_limit_mwh" nullable:"true"`
	Reason            string     `json:"reason" enum:"maintenance,fault,grid_event,commercial,other"`
	ReasonDescription *string    `json:"reason_description" nullable:"true"`
	TargetStartTime   *time.Time `json:"target_start_time" nullable:"true" doc:"Always null: only the create action exists."`
	TargetEndTime     *time.Time `json:"target_end_time" nullable:"true" doc:"Always null: only the create action exists."`
	RequestedBy       string     `json:"requested_by"`
	RequestedAt       time.Time  `json:"requested_at"`
	DecidedBy         *string    `json:"decided_by" nullable:"true"`
	DecidedAt         *time.Time `json:"decided_at" nullable:"true"`
	DecisionNote      *string    `json:"decision_note" nullable:"true"`
}

func toRequest(r restrictions.Request) RestrictionRequest {
	out := RestrictionRequest{
		ID: r.ID, AssetID: r.AssetID, OrganizationID: r.OrganizationID, Kind: string(r.Kind), Action: r.Action,
		Status: string(r.Status), StartTime: r.Start, EndTime: r.End, Reason: string(r.Reason),
		ReasonDescription: r.ReasonDescription, RequestedBy: r.RequestedBy, RequestedAt: r.RequestedAt,
		DecidedBy: r.DecidedBy, DecidedAt: r.DecidedAt, DecisionNote: r.DecisionNote,
	}
	switch r.Kind {
	case restrictions.PowerLimit:
		out.UpperLimitMW, out.LowerLimitMW = r.Upper, r.Lower
	case restrictions.EnergyLimit:
		out.UpperLimitMWh, out.LowerLimitMWh = r.Upper, r.Lower
	}
	return out
}

// RequestCreate is the body of a restriction-request submission.
type RequestCreate struct {
	StartTime         time.Time  `json:"start_time" doc:"UTC; at most one minute in the past."`
	EndTime           *time.Time `json:"end_time,omitempty" nullable:"true" doc:"Exclusive; omitted or null is open-ended."`
	Reason            string     `json:"reason" enum:"maintenance,fault,grid_event,commercial,other"`
	ReasonDescription *string    `json:"reason_description,omitempty" maxLength:"2000"`
	Action            string     `json:"action,omitempty" enum:"create" default:"create"`
	Kind              string     `json:"kind,omitempty" enum:"power_limit,energy_limit,unavailability" default:"power_limit"`
	UpperLimitMW      *float64   `json:"upper_limit_mw,omitempty" doc:"power_limit only; defaults as for a power limit."`
	LowerLimitMW      *float64   `json:"lower_limit_mw,omitempty" doc:"power_limit only."`
	UpperLimitMWh     *float64   `json:"upper_limit_mwh,omitempty" doc:"energy_limit only; defaults as for an energy limit."`
	LowerLimitMWh     *float64   `json:"lower_limit_mwh,omitempty" doc:"energy_limit only."`
}

// draft maps the body onto the domain, refusing bounds of the wrong unit.
func (b RequestCreate) draft() (restrictions.RequestDraft, error) {
	d := restrictions.RequestDraft{Kind: b.Kind, Action: b.Action, Draft: restrictions.Draft{
		Start: b.StartTime, End: b.EndTime, Reason: b.Reason, ReasonDescription: b.ReasonDescription}}
	mw := b.UpperLimitMW != nil || b.LowerLimitMW != nil
	mwh := b.UpperLimitMWh != nil || b.LowerLimitMWh != nil
	switch restrictions.Kind(b.Kind) {
	case "", restrictions.PowerLimit:
		if mwh {
			return d, errs.Invalidf("body.upper_limit_mwh", nil, "a power_limit request takes upper_limit_mw and lower_limit_mw")
		}
		d.Upper, d.Lower = b.UpperLimitMW, b.LowerLimitMW
	case restrictions.EnergyLimit:
		if mw {
			return d, errs.Invalidf("body.upper_limit_mw", nil, "an energy_limit request takes upper_limit_mwh and lower_limit_mwh")
		}
		d.Upper, d.Lower = b.UpperLimitMWh, b.LowerLimitMWh
	default:
		if mw || mwh {
			return d, errs.Invalidf("body.kind", b.Kind, "an unavailability request carries no limits")
		}
	}
	return d, nil
}

// DecisionBody is the body of approve, reject and cancel.
type DecisionBody struct {
	Note *string `json:"note,omitempty" maxLength:"2000" doc:"Shown back to the requester."`
}

type requestCreateInput struct {
	AssetID string `path:"asset_id"`
	Body    RequestCreate
}

type requestListInput struct {
	AssetID string `query:"asset_id"`
	Status  string `query:"status" enum:"pending,approved,rejected,cancelled,expired"`
	Kind    string `query:"kind" enum:"power_limit,energy_limit,unavailability"`
}

// RequestList is the body of the request list.
type RequestList struct {
	Requests []RestrictionRequest `json:"requests" nullable:"false"`
}

type requestInput struct {
	RequestID string `path:"request_id" doc:"A UUID."`
}

type decisionInput struct {
	RequestID string `path:"request_id" doc:"A UUID."`
	Body      *DecisionBody
}

type requestOutput struct{ Body RestrictionRequest }

func registerRequests(s *httpapi.Server, svc *restrictions.Service) {
	tags := []string{s.Tag("Restriction requests", "Limits and unavailability that need approval: requested, then approved, rejected or cancelled; they expire when their window passes.")}

	httpapi.Register(s, huma.Operation{
		OperationID: "create-restriction-request", Method: http.MethodPost, Path: "/v1/assets/{asset_id}/restriction_requests",
		RequestBody: httpapi.RequestExample(exampleRequestCreate), Responses: httpapi.ResponseExample(http.StatusCreated, exampleRequest("pending", "")),
		Tags: tags, DefaultStatus: http.StatusCreated, Summary: "Request a restriction that needs approval",
		Description: "Validated like a direct write (422 invalid, 409 overlapping_interval) and stored pending. " +
			"A pending request expires when its window passes (an open-ended one when its start passes).",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *requestCreateInput) (*requestOutput, error) {
		d, err := in.Body.draft()
		if err != nil {
			return nil, err
		}
		r, err := svc.Submit(ctx, *httpapi.Principal(ctx), in.AssetID, d)
		if err != nil {
			return nil, err
		}
		return &requestOutput{Body: toRequest(r)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-restriction-requests", Method: http.MethodGet, Path: "/v1/restriction_requests", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, `{"requests":[`+exampleRequest("pending", "")+`]}`),
		Summary:   "List restriction requests", Description: "Requests visible to the caller's organisation, newest first.",
		Errors: []int{http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.RestrictionsReview), func(ctx context.Context, in *requestListInput) (*httpapi.Output[RequestList], error) {
		list, err := svc.Requests(ctx, httpapi.Principal(ctx).Visibility(),
			restrictions.RequestFilter{AssetID: in.AssetID, Kind: restrictions.Kind(in.Kind)}, restrictions.Status(in.Status))
		if err != nil {
			return nil, err
		}
		out := &httpapi.Output[RequestList]{Body: RequestList{Requests: make([]RestrictionRequest, len(list))}}
		for i, r := range list {
			out.Body.Requests[i] = toRequest(r)
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-restriction-request", Method: http.MethodGet, Path: "/v1/restriction_requests/{request_id}", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleRequest("approved", "Agreed with the DSO")),
		Summary:   "Read a restriction request", Errors: []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.RestrictionsReview), func(ctx context.Context, in *requestInput) (*requestOutput, error) {
		r, err := svc.Request(ctx, httpapi.Principal(ctx).Visibility(), in.RequestID)
		if err != nil {
			return nil, err
		}
		return &requestOutput{Body: toRequest(r)}, nil
	})

	decisions := []struct {
		name, status, summary, description string // status: the request's after the decision
		scope                              auth.Scope
		decide                             func(context.Context, auth.Principal, string, *string) (restrictions.Request, error)
	}{
		{"approve", "approved", "Approve a pending restriction request",
			"Re-validates against the asset's live data and intervals and applies the restriction atomically; on failure the " +
				"request stays pending and the error says why (422 approval_validation_failed, 409 overlapping_interval). " +
				"409 request_not_pending or request_expired.", auth.RestrictionsApprove, svc.Approve},
		{"reject", "rejected", "Reject a pending restriction request", "409 request_not_pending or request_expired.",
			auth.RestrictionsApprove, svc.Reject},
		{"cancel", "cancelled", "Cancel a pending restriction request",
			"Only the requester or a platform administrator (403 not_requester). 409 request_not_pending or request_expired.",
			auth.AssetWrite, svc.Cancel},
	}
	for _, d := range decisions {
		httpapi.Register(s, huma.Operation{
			OperationID: d.name + "-restriction-request", Method: http.MethodPost,
			RequestBody: httpapi.RequestExample(exampleDecision),
			Responses:   httpapi.ResponseExample(http.StatusOK, exampleRequest(d.status, "Agreed with the DSO")),
			Path:        "/v1/restriction_requests/{request_id}/" + d.name, Tags: tags, Summary: d.summary, Description: d.description,
			Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
		}, httpapi.Scopes(d.scope), func(ctx context.Context, in *decisionInput) (*requestOutput, error) {
			var note *string
			if in.Body != nil {
				note = in.Body.Note
			}
			r, err := d.decide(ctx, *httpapi.Principal(ctx), in.RequestID, note)
			if err != nil {
				return nil, err
			}
			return &requestOutput{Body: toRequest(r)}, nil
		})
	}
}
