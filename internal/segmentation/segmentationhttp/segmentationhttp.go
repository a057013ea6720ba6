// Package segmentationhttp serves the virtual segmentation of an asset:
// read, create or replace, activate and delete under
// /v1/assets/{asset_id}/segmentation.
package segmentationhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/segmentation"
)

// Segment is one segment of a response.
type Segment struct {
	SegmentID      string  `json:"segment_id"`
	VirtualAssetID string  `json:"virtual_asset_id" readOnly:"true" doc:"<asset_id>.<segment_id>; resolves while the segmentation is active (response only)."`
	Name           string  `json:"name"`
	Share          float64 `json:"share" doc:"Fraction of the physical asset; the shares add up to 1."`
	Counterparty   *string `json:"counterparty"`
	Color          *string `json:"color"`
}

// Segmentation is the response of every segmentation endpoint.
type Segmentation struct {
	AssetID   string            `json:"asset_id"`
	Mode      segmentation.Mode `json:"mode" enum:"proportional,priority"`
	Status    string            `json:"status" enum:"draft,active"`
	Version   int64             `json:"version" doc:"1 on creation, bumped by every replace."`
	UpdatedAt time.Time         `json:"updated_at"`
	Segments  []Segment         `json:"segments" nullable:"false"`
}

// SegmentRequest is one segment of a PUT body.
type SegmentRequest struct {
	SegmentID    string  `json:"segment_id" pattern:"^[a-z0-9][a-z0-9-]{0,31}$" doc:"Unique within the segmentation; the virtual asset id is <asset_id>.<segment_id>."`
	Name         string  `json:"name" minLength:"1" maxLength:"200"`
	Share        float64 `json:"share" exclusiveMinimum:"0" maximum:"1" doc:"Fraction of the physical asset in (0, 1]; the shares add up to 1 (tolerance 1e-6)."`
	Counterparty *string `json:"counterparty,omitempty" maxLength:"200" required:"false"`
	Color        *string `json:"color,omitempty" pattern:"^#[0-9a-fA-F]{6}$" required:"false" doc:"Hex colour #rrggbb."`
}

// SegmentationRequest is the body of PUT.
type SegmentationRequest struct {
	Mode     segmentation.Mode `json:"mode" enum:"proportional,priority" doc:"proportional: a shortfall is shared pro rata to the shares; priority: segments are filled in the order given and the last absorb a shortfall first."`
	Segments []SegmentRequest  `json:"segments" minItems:"2" maxItems:"16" nullable:"false"`
}

func toSegmentation(s segmentation.Segmentation) Segmentation {
	out := Segmentation{AssetID: s.AssetID, Mode: s.Mode, Status: string(s.Status), Version: s.Version, UpdatedAt: s.UpdatedAt,
		Segments: make([]Segment, len(s.Segments))}
	for i, g := range s.Segments {
		out.Segments[i] = Segment{SegmentID: g.ID, VirtualAssetID: segmentation.VirtualAssetID(s.AssetID, g.ID), Name: g.Name,
			Share: g.Share, Counterparty: g.Counterparty, Color: g.Color}
	}
	return out
}

type assetPath struct {
	AssetID string `path:"asset_id" doc:"The physical asset id."`
}

type putInput struct {
	AssetID string `path:"asset_id" doc:"The physical asset id."`
	Body    SegmentationRequest
}

type output struct{ Body Segmentation }

// Register adds the segmentation endpoints to s.
func Register(s *httpapi.Server, svc *segmentation.Service) {
	tags := []string{s.Tag("Virtual segmentation", "Split one physical asset into virtual assets that are bid, dispatched and read on their own; a design is stored, then activated.")}
	const path = "/v1/assets/{asset_id}/segmentation"

	httpapi.Register(s, huma.Operation{
		OperationID: "get-segmentation", Method: http.MethodGet, Path: path, Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleActive),
		Summary:     "Read the segmentation of an asset",
		Description: "404 when the asset is not visible or has no segmentation; 409 virtual_asset for a virtual asset id.",
		Errors:      []int{http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, in *assetPath) (*output, error) {
		seg, err := svc.Get(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID)
		if err != nil {
			return nil, err
		}
		return &output{Body: toSegmentation(seg)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "put-segmentation", Method: http.MethodPut, Path: path, Tags: tags,
		RequestBody: httpapi.RequestExample(examplePut), Responses: httpapi.ResponseExample(http.StatusOK, exampleDraft),
		Summary: "Create or replace the segmentation of an asset",
		Description: "Creates the design as draft with version 1, or replaces it keeping its status and bumping its version; " +
			"an active design's virtual assets follow the new segments at once. " +
			"422 for invalid segments (2 to 16, unique segment ids, shares in (0, 1] adding up to 1, colours #rrggbb); " +
			"409 segment_in_use when a removed segment's virtual asset holds committed future bids, " +
			"409 virtual_asset_id_taken when a virtual asset id is a physical asset's id, 409 virtual_asset for a virtual asset id.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *putInput) (*output, error) {
		segments := make([]segmentation.Segment, len(in.Body.Segments))
		for i, g := range in.Body.Segments {
			segments[i] = segmentation.Segment{ID: g.SegmentID, Name: g.Name, Share: g.Share, Counterparty: g.Counterparty, Color: g.Color}
		}
		seg, err := svc.Put(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.Body.Mode, segments)
		if err != nil {
			return nil, err
		}
		return &output{Body: toSegmentation(seg)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-segmentation", Method: http.MethodDelete, Path: path, Tags: tags, DefaultStatus: http.StatusNoContent,
		Summary: "Delete the segmentation of an asset",
		Description: "Removes the design and its virtual assets. 404 when there is none; " +
			"409 segmentation_in_use while a virtual asset holds committed future bids; 409 virtual_asset for a virtual asset id.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *assetPath) (*struct{}, error) {
		return nil, svc.Delete(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID)
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "activate-segmentation", Method: http.MethodPost, Path: path + "/activate", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleActive),
		Summary:   "Activate the segmentation of an asset",
		Description: "Moves a draft to active: its segments appear as virtual assets. " +
			"404 when there is no segmentation; 409 segmentation_active when it is active already; 409 virtual_asset for a virtual asset id.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *assetPath) (*output, error) {
		seg, err := svc.Activate(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID)
		if err != nil {
			return nil, err
		}
		return &output{Body: toSegmentation(seg)}, nil
	})
}
