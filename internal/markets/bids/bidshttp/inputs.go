package bidshttp

import (
	"context"
	"time"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// The request parameters every market's endpoints share. Huma reads
// parameters only from a struct's own fields, so each shape is one type.

// BidPath names one bid of an asset.
type BidPath struct {
	AssetID string `path:"asset_id" doc:"The asset id."`
	BidID   string `path:"bid_id" doc:"The bid id (uuid)."`
}

// ListInput is the overlap filter of a list of a market without
// products.
type ListInput struct {
	AssetID   string    `path:"asset_id" doc:"The asset id."`
	StartTime time.Time `query:"start_time" required:"false" doc:"Overlap filter: items ending after it."`
	EndTime   time.Time `query:"end_time" required:"false" doc:"Overlap filter: items starting before it."`
}

func (in ListInput) query() Filter {
	start, end := Bounds(in.StartTime, in.EndTime)
	return Filter{AssetID: in.AssetID, Start: start, End: end}
}

// DeleteInput is the bulk delete of a market without products: an exact
// interval.
type DeleteInput struct {
	AssetID   string    `path:"asset_id" doc:"The asset id."`
	StartTime time.Time `query:"start_time" required:"true" doc:"Exact start of the bids to delete."`
	EndTime   time.Time `query:"end_time" required:"true" doc:"Exact end of the bids to delete."`
}

func (in DeleteInput) query() deletion {
	return deletion{assetID: in.AssetID, interval: calendar.Interval{Start: in.StartTime, End: in.EndTime}}
}

// DirectionalListInput is the overlap filter of an aFRR list, with an
// optional direction.
type DirectionalListInput struct {
	AssetID   string    `path:"asset_id" doc:"The asset id."`
	StartTime time.Time `query:"start_time" required:"false" doc:"Overlap filter: bids ending after it."`
	EndTime   time.Time `query:"end_time" required:"false" doc:"Overlap filter: bids starting before it."`
	Product   string    `query:"product" required:"false" enum:"pos,neg" doc:"One direction; omitted: both."`
}

func (in DirectionalListInput) query() Filter {
	start, end := Bounds(in.StartTime, in.EndTime)
	return Filter{AssetID: in.AssetID, Start: start, End: end, Product: OptionalProduct(in.Product)}
}

// DirectionalDeleteInput is an aFRR bulk delete: an exact interval and an
// optional direction.
type DirectionalDeleteInput struct {
	AssetID   string    `path:"asset_id" doc:"The asset id."`
	StartTime time.Time `query:"start_time" required:"true" doc:"Exact start of the bids to delete."`
	EndTime   time.Time `query:"end_time" required:"true" doc:"Exact end of the bids to delete."`
	Product   string    `query:"product" required:"false" enum:"pos,neg" doc:"One direction; omitted: both."`
}

func (in DirectionalDeleteInput) query() deletion {
	return deletion{assetID: in.AssetID, interval: calendar.Interval{Start: in.StartTime, End: in.EndTime},
		product: OptionalProduct(in.Product)}
}

// OptionalProduct is the optional product filter of a query.
func OptionalProduct(s string) *bids.Product {
	if s == "" {
		return nil
	}
	p := bids.Product(s)
	return &p
}

// TenderIntervalsInput asks a capacity market for its tender intervals.
type TenderIntervalsInput struct {
	AssetID     string    `path:"asset_id" doc:"The asset id."`
	DeliveryDay string    `query:"delivery_day" required:"false" doc:"A delivery day (YYYY-MM-DD, Europe/Berlin)."`
	StartTime   time.Time `query:"start_time" required:"false" doc:"With end_time: the tender intervals overlapping [start_time, end_time)."`
	EndTime     time.Time `query:"end_time" required:"false"`
}

// Query is the engine's form of the request.
func (in TenderIntervalsInput) Query() (bids.IntervalQuery, error) {
	var q bids.IntervalQuery
	if in.DeliveryDay != "" {
		d, err := calendar.ParseDay(in.DeliveryDay)
		if err != nil {
			return q, errs.Invalidf("query.delivery_day", in.DeliveryDay, "%s", err.Error())
		}
		q.Day = &d
	}
	q.Start, q.End = Bounds(in.StartTime, in.EndTime)
	return q, nil
}

// TenderIntervals answers valid_bid_intervals of a capacity market with
// its service's ValidIntervals.
func TenderIntervals(valid func(context.Context, auth.Visibility, string, bids.IntervalQuery) ([]bids.TenderInterval, error),
) func(context.Context, auth.Visibility, *TenderIntervalsInput) ([]bids.TenderInterval, error) {
	return func(ctx context.Context, v auth.Visibility, in *TenderIntervalsInput) ([]bids.TenderInterval, error) {
		q, err := in.Query()
		if err != nil {
			return nil, err
		}
		return valid(ctx, v, in.AssetID, q)
	}
}
