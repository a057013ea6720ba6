// Package portfoliohttp serves the pool cover steps: who failed which
// obligation, who covered it at which backup price, what stayed
// uncovered (docs/portfolio.md).
package portfoliohttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/pools"
	"atcp/internal/portfolio"
)

// CoverStep is one recorded step.
type CoverStep struct {
	StepID          string    `json:"step_id" format:"uuid"`
	OrganizationID  string    `json:"organization_id"`
	PoolID          *string   `json:"pool_id" doc:"Null when the failing asset is in no pool (nobody covers it)."`
	QuarterHour     time.Time `json:"quarter_hour" doc:"Start of the 15-minute delivery period (UTC)."`
	Product         string    `json:"product" enum:"fcr,pos,neg" doc:"The obligation: FCR, or aFRR in direction pos or neg."`
	FailingAssetID  string    `json:"failing_asset_id" doc:"The battery that could not deliver."`
	CoveringAssetID *string   `json:"covering_asset_id" doc:"The pool member that delivered it instead; null: uncovered (a penalty-bearing shortfall)."`
	MW              float64   `json:"mw" doc:"The part of the obligation this step is about (MW)."`
	ObligationMW    float64   `json:"obligation_mw" doc:"The failing battery's whole obligation of the product in the quarter-hour (MW)."`
	Price           *string   `json:"price" doc:"The coverer's backup price (EUR/MWh; for FCR EUR per MW and hour of cover), two decimals; null when uncovered."`
	PriceSource     *string   `json:"price_source" enum:"override,default" doc:"Where the price came from; null when uncovered."`
	StartTime       time.Time `json:"start_time" doc:"When the step began (inclusive)."`
	EndTime         time.Time `json:"end_time" doc:"When it ended (exclusive); the end of the quarter-hour while it lasts."`
}

// TransformSchema lets price_source's enum admit its null.
func (CoverStep) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullInEnums(s)
}

// CoverList is the body of a cover read.
type CoverList struct {
	Covers []CoverStep `json:"covers" nullable:"false" doc:"Ordered by start_time, failing asset, product and coverer."`
}

func toStep(s portfolio.Step) CoverStep {
	opt := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	out := CoverStep{StepID: s.ID, OrganizationID: s.OrganizationID, PoolID: opt(s.PoolID), QuarterHour: s.QuarterHour,
		Product: string(s.Product), FailingAssetID: s.Failing, CoveringAssetID: opt(s.Covering), MW: s.MW, ObligationMW: s.ObligationMW,
		StartTime: s.From, EndTime: s.To}
	if s.Price != nil {
		out.Price, out.PriceSource = opt(s.Price.StringFixed(2)), opt(s.PriceSource)
	}
	return out
}

// WindowQuery is the window and page size of a cover read.
type WindowQuery struct {
	StartTime time.Time `query:"start_time" doc:"Overlap filter: steps ending strictly after it. Default: 24 hours before end_time."`
	EndTime   time.Time `query:"end_time" doc:"Overlap filter: steps starting strictly before it. Default: now. The window spans at most 31 days."`
	Limit     int       `query:"limit" minimum:"1" maximum:"1000" default:"100"`
}

func (q WindowQuery) window() portfolio.Window {
	return portfolio.Window{Start: q.StartTime, End: q.EndTime, Limit: q.Limit}
}

type assetInput struct {
	AssetID string `path:"asset_id" doc:"The asset id; a virtual asset reads its battery's steps."`
	WindowQuery
}

type poolInput struct {
	PoolID         string `path:"pool_id" doc:"The pool id."`
	OrganizationID string `query:"organization_id" doc:"Honoured for platform administrators only; default: the caller's organisation."`
	WindowQuery
}

// Pools resolves the pool a request names (pools.Service).
type Pools interface {
	Target(ctx context.Context, p *auth.Principal, named string) (pools.Target, error)
	Get(ctx context.Context, t pools.Target, id string) (pools.Pool, error)
}

type listOutput struct{ Body CoverList }

func list(steps []portfolio.Step) *listOutput {
	out := &listOutput{Body: CoverList{Covers: make([]CoverStep, len(steps))}}
	for i, s := range steps {
		out.Body.Covers[i] = toStep(s)
	}
	return out
}

// Register adds the cover endpoints to s.
func Register(s *httpapi.Server, svc *portfolio.Service, pl Pools) {
	tags := []string{s.Tag("Pool covers",
		"Backup-market dispatch across pool members: when a battery cannot deliver an awarded obligation, other members of its pool cover it, cheapest backup price first; the rest is a shortfall.")}
	httpapi.Register(s, huma.Operation{
		OperationID: "list-asset-covers", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/covers", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:   "List the cover steps of an asset",
		Description: "The steps in which the asset could not deliver an awarded obligation (covered by a pool member, or uncovered) " +
			"or covered another member's, overlapping [start_time, end_time). 422 for a window that is empty or longer than 31 days; " +
			"404 when the asset is unknown, deleted or of another organisation.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.MarketRead), func(ctx context.Context, in *assetInput) (*listOutput, error) {
		steps, err := svc.AssetCovers(ctx, httpapi.Principal(ctx), in.AssetID, in.window())
		if err != nil {
			return nil, err
		}
		return list(steps), nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-pool-covers", Method: http.MethodGet, Path: "/v1/pools/{pool_id}/covers", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:   "List the cover steps of a pool (beta)",
		Description: "Beta, like every pool endpoint. The steps of the pool's members overlapping [start_time, end_time): who could not " +
			"deliver which obligation, who covered it at which backup price, what stayed uncovered. 422 for a window that is empty " +
			"or longer than 31 days, or organization_not_accessible; 404 when the organisation has no such pool.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.PoolRead), func(ctx context.Context, in *poolInput) (*listOutput, error) {
		p := httpapi.Principal(ctx)
		t, err := pl.Target(ctx, p, in.OrganizationID)
		if err != nil {
			return nil, errs.Within("query.", err)
		}
		pool, err := pl.Get(ctx, t, in.PoolID)
		if err != nil {
			return nil, err
		}
		steps, err := svc.PoolCovers(ctx, p, pool.OrganizationID, pool.ID, in.window())
		if err != nil {
			return nil, err
		}
		return list(steps), nil
	})
}
