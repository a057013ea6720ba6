package bidshttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// Service is what a market's bid endpoints call: the bid engine, or a
// market that narrows its Submit and Update.
type Service interface {
	List(ctx context.Context, v auth.Visibility, assetID string, start, end *time.Time, product *bids.Product) ([]bids.Bid, error)
	Submit(ctx context.Context, v auth.Visibility, assetID string, sub bids.Submission) (bids.SubmitResult, error)
	DeleteInterval(ctx context.Context, v auth.Visibility, assetID string, iv calendar.Interval, product *bids.Product) ([]string, error)
	Update(ctx context.Context, v auth.Visibility, assetID, bidID string, c bids.Change) (bids.Bid, []string, error)
	Delete(ctx context.Context, v auth.Visibility, assetID, bidID string) error
}

// Doc is what the OpenAPI document says of one operation; Register adds
// the rest (id, method, path, tag, errors, scopes).
type Doc struct {
	Summary, Description string
	// Request and Response are example bodies (none for a DELETE of one
	// bid).
	Request, Response string
}

// Market is one bid market on the wire, for Register: where its endpoints
// live, what they say, and how its bodies map to and from the bid engine.
//
// B is the market's bid record; S and U are the bodies of a submission and
// an update; L, UR, V and R the bodies of the list, update, valid-interval
// and results responses (each market keeps its own types, so that each has
// its own name in the OpenAPI document); Q is the query of
// valid_bid_intervals.
type Market[B, S, U, L, UR, Q, V, R any] struct {
	// Tag and TagDescription name the market's tag.
	Tag, TagDescription string
	// Base is the path before /bids; ID names the market in operation ids
	// ("fcr" gives list-fcr-bids).
	Base, ID string
	// Gates ends the description of every bid write.
	Gates string
	// Directional markets take an optional product in the list, delete
	// and results queries.
	Directional bool

	List, Submit, DeleteInterval, Update, Delete, Intervals, Results Doc

	Service Service
	// Records shows the engine's bids as the market's records.
	Records func([]bids.Bid) []B
	// ListBody, Updated, IntervalsBody: the response bodies.
	ListBody      func([]bids.Bid) L
	Updated       func(b bids.Bid, warnings []string) UR
	IntervalsBody func([]ValidInterval) V
	// Submission and Change: the request bodies, in the engine's terms.
	Submission func(S) bids.Submission
	Change     func(U) bids.Change
	// ValidIntervals answers valid_bid_intervals.
	ValidIntervals func(ctx context.Context, v auth.Visibility, q *Q) ([]bids.TenderInterval, error)
	// ResultsOf answers results for the filter.
	ResultsOf func(ctx context.Context, v auth.Visibility, f Filter) (R, error)
}

// Filter is the query of a list, or of results: the asset, the optional
// overlap bounds (UTC) and the optional product.
type Filter struct {
	AssetID    string
	Start, End *time.Time
	Product    *bids.Product
}

type submitInput[S any] struct {
	AssetID string `path:"asset_id" doc:"The asset id."`
	Body    S
}

type updateInput[U any] struct {
	AssetID string `path:"asset_id" doc:"The asset id."`
	BidID   string `path:"bid_id" doc:"The bid id (uuid)."`
	Body    U
}

// query is the query parameters of an input that name an asset's bids:
// a list or results filter, or the interval of a delete.
type query[T any] interface{ query() T }

// deletion is the query of a delete by interval.
type deletion struct {
	assetID  string
	interval calendar.Interval
	product  *bids.Product
}

// feasibilityDoc ends the description of a submission and a change: the
// rule spans every market, so every market says it the same way.
const feasibilityDoc = " Cross-market feasibility (docs/feasibility.md): when the asset records usable_power_capacity_mw or usable_energy_capacity_mwh, " +
	"its committed FCR, aFRR capacity and aFRR energy bids after the change must fit them per 15-minute period and side (power) and per tender block " +
	"(the FCR 15-minute reserve and full aFRR activation over the block in the usable energy); what does not fit is listed in warnings, " +
	"or with strict_validation true is 409 COMMITMENTS_EXCEED_POWER or COMMITMENTS_EXCEED_ENERGY with violations when the change creates or worsens it."

// Register adds the bid endpoints of market m to s: bids (list, submit,
// delete by interval, update, delete one), valid bid intervals and
// results.
func Register[B, S, U, L, UR, Q, V, R any](s *httpapi.Server, m Market[B, S, U, L, UR, Q, V, R]) {
	tags := []string{s.Tag(m.Tag, m.TagDescription)}
	read, write := httpapi.Scopes(auth.MarketRead), httpapi.Scopes(auth.MarketWrite)
	bidsPath, bidPath := m.Base+"/bids", m.Base+"/bids/{bid_id}"
	writeErrors := []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}
	readErrors := []int{http.StatusNotFound, http.StatusUnprocessableEntity}
	svc := m.Service

	list := func(ctx context.Context, f Filter) (*httpapi.Output[L], error) {
		list, err := svc.List(ctx, httpapi.Principal(ctx).Visibility(), f.AssetID, f.Start, f.End, f.Product)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[L]{Body: m.ListBody(list)}, nil
	}
	listOp := huma.Operation{
		OperationID: "list-" + m.ID + "-bids", Method: http.MethodGet, Path: bidsPath, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, m.List.Response),
		Summary:   m.List.Summary, Description: m.List.Description, Errors: readErrors,
	}
	if m.Directional {
		registerQuery[DirectionalListInput](s, listOp, read, list)
	} else {
		registerQuery[ListInput](s, listOp, read, list)
	}

	// A submission carries up to hundreds of bids: validated in one
	// decoding pass, with huma's problem details (httpapi.OneDecodingPass).
	httpapi.Register(s, httpapi.OneDecodingPass(huma.Operation{
		OperationID: "submit-" + m.ID + "-bids", Method: http.MethodPost, Path: bidsPath, Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(m.Submit.Request), Responses: httpapi.ResponseExample(http.StatusCreated, m.Submit.Response),
		Summary: m.Submit.Summary, Description: m.Submit.Description + m.Gates + feasibilityDoc, Errors: writeErrors,
	}), write, func(ctx context.Context, in *submitInput[S]) (*httpapi.Output[SubmitResponse[B]], error) {
		res, err := svc.Submit(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, m.Submission(in.Body))
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[SubmitResponse[B]]{Body: NewSubmitResponse(res, m.Records)}, nil
	})

	deleteInterval := func(ctx context.Context, d deletion) (*httpapi.Output[DeleteResponse], error) {
		ids, err := svc.DeleteInterval(ctx, httpapi.Principal(ctx).Visibility(), d.assetID, d.interval, d.product)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[DeleteResponse]{Body: DeleteResponse{DeletedCount: len(ids), DeletedBidIDs: httpapi.NonNil(ids)}}, nil
	}
	deleteOp := huma.Operation{
		OperationID: "delete-" + m.ID + "-bids", Method: http.MethodDelete, Path: bidsPath, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, m.DeleteInterval.Response),
		Summary:   m.DeleteInterval.Summary, Description: m.DeleteInterval.Description + m.Gates, Errors: writeErrors,
	}
	if m.Directional {
		registerQuery[DirectionalDeleteInput](s, deleteOp, write, deleteInterval)
	} else {
		registerQuery[DeleteInput](s, deleteOp, write, deleteInterval)
	}

	httpapi.Register(s, huma.Operation{
		OperationID: "update-" + m.ID + "-bid", Method: http.MethodPut, Path: bidPath, Tags: tags,
		RequestBody: httpapi.RequestExample(m.Update.Request), Responses: httpapi.ResponseExample(http.StatusOK, m.Update.Response),
		Summary: m.Update.Summary, Description: m.Update.Description + m.Gates + feasibilityDoc, Errors: writeErrors,
	}, write, func(ctx context.Context, in *updateInput[U]) (*httpapi.Output[UR], error) {
		b, warn, err := svc.Update(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.BidID, m.Change(in.Body))
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[UR]{Body: m.Updated(b, httpapi.NonNil(warn))}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-" + m.ID + "-bid", Method: http.MethodDelete, Path: bidPath, Tags: tags, DefaultStatus: http.StatusNoContent,
		Summary: m.Delete.Summary, Description: m.Delete.Description + m.Gates,
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, write, func(ctx context.Context, in *BidPath) (*struct{}, error) {
		return nil, svc.Delete(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.BidID)
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-" + m.ID + "-valid-bid-intervals", Method: http.MethodGet, Path: m.Base + "/valid_bid_intervals", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, m.Intervals.Response),
		Summary:   m.Intervals.Summary, Description: m.Intervals.Description, Errors: readErrors,
	}, read, func(ctx context.Context, in *Q) (*httpapi.Output[V], error) {
		list, err := m.ValidIntervals(ctx, httpapi.Principal(ctx).Visibility(), in)
		if err != nil {
			return nil, err
		}
		out := make([]ValidInterval, len(list))
		for i, t := range list {
			out[i] = NewValidInterval(t.Interval, t.DeliveryDay, t.Window, t.Open)
		}
		return &httpapi.Output[V]{Body: m.IntervalsBody(out)}, nil
	})

	results := func(ctx context.Context, f Filter) (*httpapi.Output[R], error) {
		body, err := m.ResultsOf(ctx, httpapi.Principal(ctx).Visibility(), f)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[R]{Body: body}, nil
	}
	resultsOp := huma.Operation{
		OperationID: "list-" + m.ID + "-results", Method: http.MethodGet, Path: m.Base + "/results", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, m.Results.Response),
		Summary:   m.Results.Summary, Description: m.Results.Description, Errors: readErrors,
	}
	if m.Directional {
		registerQuery[DirectionalListInput](s, resultsOp, read, results)
	} else {
		registerQuery[ListInput](s, resultsOp, read, results)
	}
}

// registerQuery registers op with the parameters of I; handle answers
// their query. It lets a directional market and one without products
// share a handler.
func registerQuery[I query[T], T, O any](s *httpapi.Server, op huma.Operation, access httpapi.Access,
	handle func(context.Context, T) (*O, error)) {
	httpapi.Register(s, op, access, func(ctx context.Context, in *I) (*O, error) { return handle(ctx, (*in).query()) })
}
