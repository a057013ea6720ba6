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

// Curtailment is a DSO curtailment as returned.
type Curtailment struct {
	StartTime      time.Time  `json:"start_time"`
	EndTime        *time.Time `json:"end_time" nullable:"true" doc:"null while ongoing."`
	MaxCurtailment float64    `json:"max_curtailment" doc:"MW."`
	MinCurtailment float64    `json:"min_curtailment" doc:"MW."`
}

// CurtailmentList is the body of the curtailment list.
type CurtailmentList struct {
	Curtailments []Curtailment `json:"curtailments" nullable:"false"`
}

type curtailmentInput struct {
	AssetID   string    `path:"asset_id"`
	SortBy    string    `query:"sort_by" enum:"start_time,end_time" default:"start_time" doc:"Sorting by end_time puts ongoing curtailments last."`
	SortOrder string    `query:"sort_order" enum:"asc,desc" default:"asc"`
	StartTime time.Time `query:"start_time" doc:"Overlap filter: curtailments ending strictly after this instant, or ongoing. At most 30 days back (422 otherwise); omitted means 30 days back."`
	EndTime   time.Time `query:"end_time" doc:"Overlap filter: curtailments starting strictly before this instant."`
}

func registerCurtailment(s *httpapi.Server, svc *restrictions.Service) {
	httpapi.Register(s, huma.Operation{
		OperationID: "list-curtailment", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/curtailment",
		Responses: httpapi.ResponseExample(http.StatusOK, exampleCurtailments),
		Tags:      []string{tagLimits(s)}, Summary: "List DSO curtailments",
		Description: "Curtailments recorded from the DSO's signals. start_time and end_time filter by overlap with the half-open " +
			"window [start_time, end_time); ongoing curtailments (end_time null) are included.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, in *curtailmentInput) (*httpapi.Output[CurtailmentList], error) {
		list, err := svc.Curtailments(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID,
			restrictions.Window{From: in.StartTime, To: in.EndTime},
			restrictions.CurtailmentSort(in.SortBy), restrictions.Order(in.SortOrder))
		if err != nil {
			return nil, err
		}
		out := &httpapi.Output[CurtailmentList]{Body: CurtailmentList{Curtailments: make([]Curtailment, len(list))}}
		for i, c := range list {
			out.Body.Curtailments[i] = Curtailment{StartTime: c.Start, EndTime: c.End,
				MaxCurtailment: c.MaxCurtailment, MinCurtailment: c.MinCurtailment}
		}
		return out, nil
	})
}
