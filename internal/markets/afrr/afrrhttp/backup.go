// Package afrrhttp serves the aFRR endpoints: capacity and energy bids
// under /v1/assets/{asset_id}/markets/afrr and the backup market's
// overrides and defaults under /v1/assets/{asset_id}/backup_markets/afrr.
package afrrhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/markets/afrr"
)

// PriceValue is a price sent as a JSON number or string, kept as text so
// that the domain parses it exactly (no float) and names the field when it
// is refused.
type PriceValue struct{ text string }

// UnmarshalJSON keeps a number's text, or a string's content.
func (p *PriceValue) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(b, []byte(`"`)) {
		return json.Unmarshal(b, &p.text)
	}
	p.text = string(b)
	return nil
}

// Schema admits a number or a string.
func (PriceValue) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{
		OneOf:       []*huma.Schema{{Type: huma.TypeNumber}, {Type: huma.TypeString}},
		Description: "EUR/MWh, a number or a decimal string, at most 2 decimals, between -15000 and 15000.",
		Examples:    []any{"85.50"},
	}
}

func (p *PriceValue) textPtr() *string {
	if p == nil {
		return nil
	}
	t := p.text
	return &t
}

// BackupOverride is a backup-market override as returned.
type BackupOverride struct {
	ID            string       `json:"id" format:"uuid"`
	AssetID       string       `json:"asset_id"`
	Product       afrr.Product `json:"product" enum:"pos,neg,na"`
	StartTime     time.Time    `json:"start_time"`
	EndTime       time.Time    `json:"end_time" doc:"Exclusive."`
	Price         *string      `json:"price" nullable:"true" doc:"EUR/MWh as a decimal string with two decimals; null falls back to the default price."`
	MaxCapacityMW *float64     `json:"max_capacity_mw" nullable:"true" doc:"Absolute magnitude in MW; 0 marks the asset unavailable for backup dispatch in the window; null falls back to the default cap."`
	Note          *string      `json:"note" nullable:"true"`
	CreatedAt     time.Time    `json:"created_at"`
}

func toOverride(o afrr.Override) BackupOverride {
	out := BackupOverride{
		ID: o.ID, AssetID: o.AssetID, Product: o.Product, StartTime: o.Start, EndTime: o.End,
		MaxCapacityMW: o.MaxCapacityMW, Note: o.Note, CreatedAt: o.CreatedAt,
	}
	if o.Price != nil {
		p := afrr.FormatPrice(*o.Price)
		out.Price = &p
	}
	return out
}

// BackupDefault is a backup-market default as returned.
type BackupDefault struct {
	AssetID              string       `json:"asset_id"`
	Product              afrr.Product `json:"product" enum:"pos,neg,na"`
	DefaultPrice         string       `json:"default_price" doc:"EUR/MWh as a decimal string with two decimals."`
	DefaultMaxCapacityMW *float64     `json:"default_max_capacity_mw" nullable:"true" doc:"Absolute magnitude in MW; null means no cap."`
	EffectiveFrom        time.Time    `json:"effective_from" doc:"Start of the first delivery block this default applies to: the first block whose 10-second gate was open when it was set."`
	UpdatedAt            time.Time    `json:"updated_at"`
}

func toDefault(d afrr.Default) BackupDefault {
	return BackupDefault{
		AssetID: d.AssetID, Product: d.Product, DefaultPrice: afrr.FormatPrice(d.Price),
		DefaultMaxCapacityMW: d.MaxCapacityMW, EffectiveFrom: d.EffectiveFrom, UpdatedAt: d.UpdatedAt,
	}
}

// OverrideList is the body of the override list.
type OverrideList struct {
	Bids []BackupOverride `json:"bids" nullable:"false"`
}

// OverrideCreateRequest is the body of an override creation.
type OverrideCreateRequest struct {
	Product       string      `json:"product" enum:"pos,neg,na" doc:"pos or neg (aFRR), or na: the symmetric offer to cover a pool member's FCR obligation."`
	StartTime     time.Time   `json:"start_time" doc:"UTC, on a quarter-hour."`
	EndTime       time.Time   `json:"end_time" doc:"Exclusive, UTC, on a quarter-hour; at least one block after start_time."`
	Price         *PriceValue `json:"price,omitempty" doc:"EUR/MWh; null or absent falls back to the default price."`
	MaxCapacityMW *float64    `json:"max_capacity_mw,omitempty" minimum:"0" doc:"Absolute magnitude in MW, at most the asset's prequalified aFRR capacity of the product; 0 marks the asset unavailable in the window; null or absent falls back to the default cap."`
	Note          *string     `json:"note,omitempty" maxLength:"1000"`
}

// DefaultPutRequest is the body of a default update.
type DefaultPutRequest struct {
	Product              string     `json:"product" enum:"pos,neg,na" doc:"pos, neg or na (FCR cover)."`
	DefaultPrice         PriceValue `json:"default_price" doc:"EUR/MWh."`
	DefaultMaxCapacityMW *float64   `json:"default_max_capacity_mw,omitempty" minimum:"0" doc:"Absolute magnitude in MW, at most the asset's prequalified aFRR capacity of the product; null or absent means no cap."`
}

type listInput struct {
	AssetID   string    `path:"asset_id"`
	Product   string    `query:"product" enum:"pos,neg,na" doc:"pos, neg or na (FCR cover); omitted returns every product."`
	StartTime time.Time `query:"start_time" doc:"Overlap filter: overrides ending strictly after this instant."`
	EndTime   time.Time `query:"end_time" doc:"Overlap filter: overrides starting strictly before this instant."`
}

type listOutput struct{ Body OverrideList }

type createInput struct {
	AssetID string `path:"asset_id"`
	Body    OverrideCreateRequest
}

type overrideOutput struct{ Body BackupOverride }

type deleteInput struct {
	AssetID string `path:"asset_id"`
	BidID   string `path:"bid_id" doc:"The override id (a UUID)."`
}

type defaultInput struct {
	AssetID string `path:"asset_id"`
	Product string `query:"product" required:"true" enum:"pos,neg,na" doc:"pos, neg or na (FCR cover)."`
}

type putDefaultInput struct {
	AssetID string `path:"asset_id"`
	Body    DefaultPutRequest
}

type defaultOutput struct{ Body BackupDefault }

// RegisterBackup adds the backup-market endpoints to s.
func RegisterBackup(s *httpapi.Server, svc *afrr.BackupService) {
	tags := []string{s.Tag("aFRR backup market", "The aFRR backup market: a default price (EUR/MWh) and capacity cap per product, and overrides of them for a window.")}
	const base = "/v1/assets/{asset_id}/backup_markets/afrr"

	httpapi.Register(s, huma.Operation{
		OperationID: "list-afrr-backup-overrides", Method: http.MethodGet, Path: base + "/bids", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleOverrides),
		Summary:   "List backup-market overrides",
		Description: "Overrides of the asset ordered by start_time. start_time and end_time filter by overlap with the half-open " +
			"window [start_time, end_time): an override ending exactly at start_time or starting exactly at end_time is excluded. " +
			"Overrides that ended more than 30 days ago are not returned.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, in *listInput) (*listOutput, error) {
		list, err := svc.ListOverrides(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID,
			afrr.OverrideQuery{Product: in.Product, Start: in.StartTime, End: in.EndTime})
		if err != nil {
			return nil, err
		}
		out := &listOutput{Body: OverrideList{Bids: make([]BackupOverride, len(list))}}
		for i, o := range list {
			out.Body.Bids[i] = toOverride(o)
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "create-afrr-backup-override", Method: http.MethodPost, Path: base + "/bids", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleOverrideCreate), Responses: httpapi.ResponseExample(http.StatusCreated, exampleOverride),
		DefaultStatus: http.StatusCreated,
		Summary:       "Override the backup-market default for a window",
		Description: "Replaces the default price and/or capacity cap of one product for [start_time, end_time). " +
			"409 asset_not_live when asset_operational_status is not live (before the other checks; not in the demonstration environment); " +
			"409 gate_closed when the 10-second gate before the first block has passed; " +
			"409 override_overlaps when another override of the product overlaps the window.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *createInput) (*overrideOutput, error) {
		b := in.Body
		o, err := svc.CreateOverride(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, afrr.OverrideRequest{
			Product: b.Product, Start: b.StartTime, End: b.EndTime, Price: b.Price.textPtr(), MaxCapacityMW: b.MaxCapacityMW, Note: b.Note,
		})
		if err != nil {
			return nil, err
		}
		return &overrideOutput{Body: toOverride(o)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-afrr-backup-override", Method: http.MethodDelete, Path: base + "/bids/{bid_id}", Tags: tags,
		DefaultStatus: http.StatusNoContent,
		Summary:       "Cancel a future backup-market override",
		Description:   "400 when bid_id is not a UUID; 409 gate_closed once the 10-second gate before the override's first block has passed.",
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *deleteInput) (*struct{}, error) {
		return nil, svc.DeleteOverride(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.BidID)
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-afrr-backup-default", Method: http.MethodGet, Path: base + "/default", Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleDefault),
		Summary:     "Read the backup-market default of a product",
		Description: "The latest default of the product, with the block it applies from. 404 no_default when none was ever set.",
		Errors:      []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, in *defaultInput) (*defaultOutput, error) {
		d, err := svc.Default(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.Product)
		if err != nil {
			return nil, err
		}
		return &defaultOutput{Body: toDefault(d)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "put-afrr-backup-default", Method: http.MethodPut, Path: base + "/default", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleDefaultPut), Responses: httpapi.ResponseExample(http.StatusOK, exampleDefault),
		Summary: "Set the backup-market default of a product",
		Description: "Applies from the first delivery block whose 10-second gate is still open (effective_from); blocks already " +
			"gated keep the default they had. Overrides keep their explicit values; those that left a value unset use the new default. " +
			"409 asset_not_live when asset_operational_status is not live (before the other checks; not in the demonstration environment).",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *putDefaultInput) (*defaultOutput, error) {
		b := in.Body
		d, err := svc.PutDefault(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, afrr.DefaultRequest{
			Product: b.Product, Price: b.DefaultPrice.text, MaxCapacityMW: b.DefaultMaxCapacityMW,
		})
		if err != nil {
			return nil, err
		}
		return &defaultOutput{Body: toDefault(d)}, nil
	})
}
