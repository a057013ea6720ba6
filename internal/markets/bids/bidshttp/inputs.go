package bidshttp

import (
	"time"

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

// DirectionalListInput is the overlap filter of an aFRR list, with an
// optional direction.
type DirectionalListInput struct {
	AssetID   string    `path:"asset_id" doc:"The asset id."`
	StartTime time.Time `query:"start_time" required:"false" doc:"Overlap filter: bids ending after it."`
	EndTime   time.Time `query:"end_time" required:"false" doc:"Overlap filter: bids starting before it."`
	Product   string    `query:"product" required:"false" enum:"pos,neg" doc:"One direction; omitted: both."`
}

// DirectionalDeleteInput is an aFRR bulk delete: an exact interval and an
// optional direction.
type DirectionalDeleteInput struct {
	AssetID   string    `path:"asset_id" doc:"The asset id."`
	StartTime time.Time `query:"start_time" required:"true" doc:"Exact start of the bids to delete."`
	EndTime   time.Time `query:"end_time" required:"true" doc:"Exact end of the bids to delete."`
	Product   string    `query:"product" required:"false" enum:"pos,neg" doc:"One direction; omitted: both."`
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
