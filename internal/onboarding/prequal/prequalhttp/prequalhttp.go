// Package prequalhttp serves the prequalifications of an onboarding
// (docs/onboarding.md #74–78).
package prequalhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/onboardinghttp"
	"atcp/internal/onboarding/prequal"
)

// Prequalification is a prequalification on the wire.
type Prequalification struct {
	PrequalificationID    string    `json:"prequalification_id" format:"uuid"`
	OnboardingID          string    `json:"onboarding_id" format:"uuid"`
	Product               string    `json:"product" enum:"fcr,afrr_pos,afrr_neg"`
	TSO                   string    `json:"tso" enum:"50HZ,TNNT,AMP,TNBW"`
	RequestedMW           float64   `json:"requested_mw" doc:"MW."`
	SubmittedOn           string    `json:"submitted_on" format:"date"`
	TSOReference          *string   `json:"tso_reference"`
	Status                string    `json:"status" enum:"submitted,granted,partially_granted,rejected,withdrawn"`
	PrequalifiedMW        *float64  `json:"prequalified_mw" doc:"MW; null until decided, 0 when rejected."`
	ValidFrom             *string   `json:"valid_from" format:"date"`
	DecidedOn             *string   `json:"decided_on" format:"date"`
	DecisionNote          *string   `json:"decision_note"`
	CertificateDocumentID *string   `json:"certificate_document_id" format:"uuid"`
	WithdrawReason        *string   `json:"withdraw_reason"`
	RecordedByName        string    `json:"recorded_by_name"`
	CreatedAt             time.Time `json:"created_at"`
	UpdatedAt             time.Time `json:"updated_at"`
}

// PrequalificationList is the body of GET …/prequalifications.
type PrequalificationList struct {
	Prequalifications []Prequalification `json:"prequalifications" nullable:"false" doc:"Oldest first."`
}

// PrequalificationRequest is the body of POST …/prequalifications.
type PrequalificationRequest struct {
	Product      string  `json:"product" enum:"fcr,afrr_pos,afrr_neg"`
	RequestedMW  float64 `json:"requested_mw" doc:"MW; above 0 and at most the asset's usable_power_capacity_mw."`
	TSO          string  `json:"tso,omitempty" enum:"50HZ,TNNT,AMP,TNBW" required:"false" doc:"Default: the asset's."`
	SubmittedOn  string  `json:"submitted_on,omitempty" format:"date" required:"false" doc:"Default: today in Europe/Berlin."`
	TSOReference string  `json:"tso_reference,omitempty" maxLength:"100" required:"false"`
}

// PrequalificationResultRequest is the body of …/result.
type PrequalificationResultRequest struct {
	Status                string   `json:"status" enum:"granted,partially_granted,rejected"`
	PrequalifiedMW        *float64 `json:"prequalified_mw,omitempty" required:"false" doc:"MW; required unless rejected: the requested figure when granted, below it when partially granted."`
	DecidedOn             string   `json:"decided_on,omitempty" format:"date" required:"false" doc:"Default: today in Europe/Berlin."`
	ValidFrom             string   `json:"valid_from,omitempty" format:"date" required:"false"`
	DecisionNote          string   `json:"decision_note,omitempty" maxLength:"4000" required:"false"`
	CertificateDocumentID string   `json:"certificate_document_id,omitempty" required:"false" doc:"A prequalification_certificate document of this onboarding."`
}

// PrequalificationWithdrawRequest is the body of …/withdraw.
type PrequalificationWithdrawRequest struct {
	Reason string `json:"reason" minLength:"1" maxLength:"500"`
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func dayOpt(d *calendar.Day) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

func toWire(p prequal.Prequalification) Prequalification {
	return Prequalification{PrequalificationID: p.ID, OnboardingID: p.OnboardingID, Product: string(p.Product), TSO: string(p.TSO),
		RequestedMW: p.RequestedMW, SubmittedOn: p.SubmittedOn.String(), TSOReference: opt(p.TSOReference), Status: string(p.Status),
		PrequalifiedMW: p.PrequalifiedMW, ValidFrom: dayOpt(p.ValidFrom), DecidedOn: dayOpt(p.DecidedOn), DecisionNote: opt(p.DecisionNote),
		CertificateDocumentID: opt(p.CertificateDocumentID), WithdrawReason: opt(p.WithdrawReason), RecordedByName: p.RecordedBy,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

type onboardingPath struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
}

type prequalPath struct {
	OnboardingID       string `path:"onboarding_id" doc:"A malformed id is 404."`
	PrequalificationID string `path:"prequalification_id" doc:"A malformed id is 404."`
}

type createInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	Body         PrequalificationRequest
}

type createOutput struct {
	Location string `header:"Location"`
	Body     Prequalification
}

type resultInput struct {
	OnboardingID       string `path:"onboarding_id"`
	PrequalificationID string `path:"prequalification_id"`
	Body               PrequalificationResultRequest
}

type withdrawInput struct {
	OnboardingID       string `path:"onboarding_id"`
	PrequalificationID string `path:"prequalification_id"`
	Body               PrequalificationWithdrawRequest
}

const (
	notVisible = "404 onboarding_not_found when the workflow is unknown or of another organisation."
	notFound   = " 404 prequalification_not_found when the workflow has no such prequalification."
	closed     = "409 onboarding_closed when the workflow is completed or cancelled."
	platOnly   = "403 platform_only for a caller outside the platform organisation."
)

var (
	sample = Prequalification{PrequalificationID: "0193a5c2-9000-7000-8000-000000000001", OnboardingID: "0193a5c0-1e2f-7a3b-8c4d-5e6f7a8b9c0d",
		Product: "fcr", TSO: "50HZ", RequestedMW: 8, SubmittedOn: "2026-04-01", TSOReference: opt("PQ-2026-0412"), Status: "submitted",
		RecordedByName: "ops@platform.example", CreatedAt: time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC)}
	exampleSubmitted = httpapi.ExampleJSON(sample)
	exampleDecided   = httpapi.ExampleJSON(decided(sample))
	exampleList      = httpapi.ExampleJSON(PrequalificationList{Prequalifications: []Prequalification{decided(sample)}})
	exampleCreate    = `{"product": "fcr", "requested_mw": 8, "submitted_on": "2026-04-01", "tso_reference": "PQ-2026-0412"}`
	exampleResult    = `{"status": "partially_granted", "prequalified_mw": 6.5, "decided_on": "2026-05-12", "valid_from": "2026-05-15",
		"decision_note": "Granted for 6.5 MW after the double-test."}`
	exampleWithdraw  = `{"reason": "The granted figure was recorded wrongly."}`
	exampleWithdrawn = func() string {
		w := decided(sample)
		w.Status, w.WithdrawReason = "withdrawn", opt("The granted figure was recorded wrongly.")
		return httpapi.ExampleJSON(w)
	}()
)

func decided(p Prequalification) Prequalification {
	mw := 6.5
	p.Status, p.PrequalifiedMW, p.DecidedOn, p.ValidFrom = "partially_granted", &mw, opt("2026-05-12"), opt("2026-05-15")
	p.DecisionNote, p.UpdatedAt = opt("Granted for 6.5 MW after the double-test."), time.Date(2026, 5, 12, 9, 0, 0, 0, time.UTC)
	return p
}

// Register adds the prequalification endpoints to s.
func Register(s *httpapi.Server, svc *prequal.Service) {
	tags := onboardinghttp.Tags(s)
	read, write := httpapi.Scopes(auth.OnboardingRead), httpapi.Scopes(auth.OnboardingWrite)
	base := "/v1/onboardings/{onboarding_id}/prequalifications"

	httpapi.Register(s, huma.Operation{
		OperationID: "create-onboarding-prequalification", Method: http.MethodPost, Path: base, Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(exampleCreate), Responses: httpapi.ResponseExample(http.StatusCreated, exampleSubmitted),
		Summary: "Record a prequalification submitted to the TSO",
		Description: "Platform only. One prequalification that is not withdrawn per product. " + platOnly + " " + notVisible + " " + closed +
			" 409 prequalification_exists when the product has one; 409 prequalification_not_in_template when the workflow's template has no " +
			"prequalification gate; 422 for requested_mw not above 0 or above the asset's usable_power_capacity_mw, or no tso given or known.",
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *createInput) (*createOutput, error) {
		var v errs.Validation
		r := prequal.CreateRequest{Product: in.Body.Product, RequestedMW: in.Body.RequestedMW, TSO: in.Body.TSO,
			SubmittedOn: onboardinghttp.Day(&v, "body.submitted_on", in.Body.SubmittedOn), TSOReference: in.Body.TSOReference}
		if err := v.Err(); err != nil {
			return nil, err
		}
		p, err := svc.Create(ctx, a, in.OnboardingID, r)
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &createOutput{Location: "/v1/onboardings/" + p.OnboardingID + "/prequalifications/" + p.ID, Body: toWire(p)}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-prequalifications", Method: http.MethodGet, Path: base, Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:     "List the prequalifications of a workflow",
		Description: "Every product's, withdrawn ones included, oldest first. " + notVisible,
		Errors:      []int{http.StatusNotFound},
	}, read, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *onboardingPath) (*httpapi.Output[PrequalificationList], error) {
		list, err := svc.List(ctx, a, in.OnboardingID)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[PrequalificationList]{Body: PrequalificationList{Prequalifications: httpapi.Map(list, toWire)}}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "get-onboarding-prequalification", Method: http.MethodGet, Path: base + "/{prequalification_id}", Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleDecided),
		Summary:     "Read a prequalification",
		Description: notVisible + notFound,
		Errors:      []int{http.StatusNotFound},
	}, read, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *prequalPath) (*httpapi.Output[Prequalification], error) {
		p, err := svc.Get(ctx, a, in.OnboardingID, in.PrequalificationID)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[Prequalification]{Body: toWire(p)}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "record-onboarding-prequalification-result", Method: http.MethodPost, Path: base + "/{prequalification_id}/result", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleResult), Responses: httpapi.ResponseExample(http.StatusOK, exampleDecided),
		Summary: "Record the TSO's result of a prequalification",
		Description: "Platform only. In the same transaction the asset's fcr_prequalified_capacity_mw, afrr_prequalified_capacity_pos_mw or " +
			"afrr_prequalified_capacity_neg_mw becomes prequalified_mw (0 when rejected), the ceiling of the product's bids from then on. " +
			"409 prequalification_decided unless submitted (withdraw and submit again to correct a result); 409 asset_update_refused when the " +
			"asset refuses the figure. 422 for a prequalified_mw that does not fit the status, or a certificate_document_id that is not a " +
			"prequalification_certificate document of this onboarding. " + platOnly + " " + notVisible + notFound + " " + closed,
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *resultInput) (*httpapi.Output[Prequalification], error) {
		var v errs.Validation
		r := prequal.ResultRequest{Status: in.Body.Status, PrequalifiedMW: in.Body.PrequalifiedMW,
			DecidedOn: onboardinghttp.Day(&v, "body.decided_on", in.Body.DecidedOn), ValidFrom: onboardinghttp.Day(&v, "body.valid_from", in.Body.ValidFrom),
			DecisionNote: in.Body.DecisionNote, CertificateDocumentID: in.Body.CertificateDocumentID}
		if err := v.Err(); err != nil {
			return nil, err
		}
		p, err := svc.Result(ctx, a, in.OnboardingID, in.PrequalificationID, r)
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &httpapi.Output[Prequalification]{Body: toWire(p)}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "withdraw-onboarding-prequalification", Method: http.MethodPost, Path: base + "/{prequalification_id}/withdraw", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleWithdraw), Responses: httpapi.ResponseExample(http.StatusOK, exampleWithdrawn),
		Summary: "Withdraw a prequalification",
		Description: "Platform only. Any status but withdrawn becomes withdrawn; from a decided one the asset's figure of the product is " +
			"reset to 0 in the same transaction. 409 prequalification_withdrawn when already withdrawn. " + platOnly + " " + notVisible +
			notFound + " " + closed,
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *withdrawInput) (*httpapi.Output[Prequalification], error) {
		p, err := svc.Withdraw(ctx, a, in.OnboardingID, in.PrequalificationID, in.Body.Reason)
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &httpapi.Output[Prequalification]{Body: toWire(p)}, nil
	}))
}
