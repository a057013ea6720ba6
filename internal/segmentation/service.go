package segmentation

import (
	"context"
	"fmt"
	"strings"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
)

// Commitments counts an asset's bids in committed statuses ending after t
// (bids.Store implements it); a virtual asset holding any cannot lose its
// segment.
type Commitments interface {
	CommittedAfter(ctx context.Context, assetID string, t time.Time) (map[bids.Market]int, error)
}

// Service manages designs and resolves virtual assets for the registry.
type Service struct {
	store       Store
	registry    *assets.Service
	commitments Commitments
	clk         clock.Clock
}

var (
	_ assets.VirtualResolver = (*Service)(nil)
	_ assets.DeletionGuard   = (*Service)(nil)
	_ Commitments            = bids.Store(nil)
)

// NewService returns the service; registry resolves the physical assets.
func NewService(store Store, registry *assets.Service, commitments Commitments, clk clock.Clock) *Service {
	return &Service{store: store, registry: registry, commitments: commitments, clk: clk}
}

func notFound(assetID string) error {
	return errs.NotFoundf("asset %q has no segmentation", assetID)
}

// physical resolves assetID for a design endpoint: 404 when not visible,
// 409 virtual_asset for a virtual asset (it cannot be segmented itself).
func (s *Service) physical(ctx context.Context, v auth.Visibility, assetID string) error {
	a, err := s.registry.Get(ctx, v, assetID)
	if err != nil {
		return err
	}
	if a.IsVirtual() {
		return errs.Conflictf(assets.CodeVirtualAsset, "asset %q is virtual; segment its parent %q instead", assetID, *a.ParentAssetID)
	}
	return nil
}

// Get returns the design of a visible physical asset.
func (s *Service) Get(ctx context.Context, v auth.Visibility, assetID string) (Segmentation, error) {
	if err := s.physical(ctx, v, assetID); err != nil {
		return Segmentation{}, err
	}
	seg, err := s.store.Get(ctx, v, assetID)
	if errs.Is(err, errs.NotFound) {
		return Segmentation{}, notFound(assetID)
	}
	return seg, err
}

// Put creates the design (status draft, version 1) or replaces it,
// keeping its status and bumping its version. It refuses (409) a segment
// whose virtual id is the id of a physical asset (virtual_asset_id_taken)
// and the removal of a segment whose virtual asset holds committed future
// bids (segment_in_use).
func (s *Service) Put(ctx context.Context, v auth.Visibility, assetID string, mode Mode, segments []Segment) (Segmentation, error) {
	if err := s.physical(ctx, v, assetID); err != nil {
		return Segmentation{}, err
	}
	if err := Validate(assetID, mode, segments); err != nil {
		return Segmentation{}, err
	}
	for _, g := range segments {
		id := VirtualAssetID(assetID, g.ID)
		a, err := s.registry.Get(ctx, auth.Visibility{All: true}, id)
		if err == nil && !a.IsVirtual() {
			return Segmentation{}, errs.Conflictf(CodeVirtualAssetIDTaken, "segment %q would have the virtual asset id %q, which a physical asset has", g.ID, id)
		}
		if err != nil && !errs.Is(err, errs.NotFound) {
			return Segmentation{}, err
		}
	}
	now := s.clk.Now().UTC().Truncate(time.Microsecond)
	return s.store.Change(ctx, v, assetID, func(ctx context.Context, org string, cur *Segmentation) (Segmentation, error) {
		next := Segmentation{AssetID: assetID, OrganizationID: org, Mode: mode, Status: Draft, Version: 1, UpdatedAt: now, Segments: segments}
		if cur != nil {
			next.Status, next.Version = cur.Status, cur.Version+1
			var removed []string
			for _, g := range cur.Segments {
				if _, kept := next.Segment(g.ID); !kept {
					removed = append(removed, g.ID)
				}
			}
			if err := s.checkUnused(ctx, assetID, removed, now, CodeSegmentInUse); err != nil {
				return Segmentation{}, err
			}
		}
		return next, nil
	})
}

// Activate moves a draft to active: its segments become virtual assets.
// 409 segmentation_active when it is active already.
func (s *Service) Activate(ctx context.Context, v auth.Visibility, assetID string) (Segmentation, error) {
	if err := s.physical(ctx, v, assetID); err != nil {
		return Segmentation{}, err
	}
	now := s.clk.Now().UTC().Truncate(time.Microsecond)
	return s.store.Change(ctx, v, assetID, func(ctx context.Context, _ string, cur *Segmentation) (Segmentation, error) {
		if cur == nil {
			return Segmentation{}, notFound(assetID)
		}
		if cur.Status == Active {
			return Segmentation{}, errs.Conflictf(CodeSegmentationActive, "the segmentation of asset %q is active already", assetID)
		}
		// The parent's own future bids would come on top of its segments'
		// and could exceed the battery's prequalified capacity. Read under
		// the parent's lock, which a bid on the parent takes too.
		counts, err := s.commitments.CommittedAfter(ctx, assetID, now)
		if err != nil {
			return Segmentation{}, err
		}
		n := 0
		for _, c := range counts {
			n += c
		}
		if n > 0 {
			return Segmentation{}, errs.Conflictf(CodeAssetHasBids,
				"asset %q holds %d committed future bids; its segments would bid on top of them: cancel them or let them end before activating", assetID, n)
		}
		next := *cur
		next.Status, next.UpdatedAt = Active, now
		return next, nil
	})
}

// Delete removes the design and with it the virtual assets; 409
// segmentation_in_use while a virtual asset holds committed future bids.
func (s *Service) Delete(ctx context.Context, v auth.Visibility, assetID string) error {
	if err := s.physical(ctx, v, assetID); err != nil {
		return err
	}
	now := s.clk.Now()
	err := s.store.Delete(ctx, v, assetID, func(ctx context.Context, cur Segmentation) error {
		ids := make([]string, len(cur.Segments))
		for i, g := range cur.Segments {
			ids[i] = g.ID
		}
		return s.checkUnused(ctx, assetID, ids, now, CodeSegmentationInUse)
	})
	if errs.Is(err, errs.NotFound) {
		return notFound(assetID)
	}
	return err
}

// checkUnused refuses (409 code) when a virtual asset of segmentIDs holds
// committed bids ending after now.
func (s *Service) checkUnused(ctx context.Context, parentID string, segmentIDs []string, now time.Time, code errs.Code) error {
	var busy []string
	for _, id := range segmentIDs {
		vid := VirtualAssetID(parentID, id)
		counts, err := s.commitments.CommittedAfter(ctx, vid, now)
		if err != nil {
			return err
		}
		n := 0
		for _, c := range counts {
			n += c
		}
		if n > 0 {
			busy = append(busy, fmt.Sprintf("%s (%d committed bids)", vid, n))
		}
	}
	if len(busy) > 0 {
		return errs.Conflictf(code, "virtual assets hold committed future bids: %s; cancel them or let them end first", strings.Join(busy, ", "))
	}
	return nil
}

// VirtualParent implements assets.VirtualResolver.
func (s *Service) VirtualParent(id string) (string, bool) {
	parent, _, ok := SplitVirtualAssetID(id)
	return parent, ok
}

// VirtualAsset implements assets.VirtualResolver: the virtual asset id of
// parent's active design, if it has that segment.
func (s *Service) VirtualAsset(ctx context.Context, parent assets.Asset, id string) (assets.Asset, bool, error) {
	parentID, segmentID, ok := SplitVirtualAssetID(id)
	if !ok || parentID != parent.ID {
		return assets.Asset{}, false, nil
	}
	// parent is visible to the caller already.
	seg, err := s.store.Get(ctx, auth.Visibility{All: true}, parent.ID)
	if errs.Is(err, errs.NotFound) {
		return assets.Asset{}, false, nil
	}
	if err != nil || seg.Status != Active {
		return assets.Asset{}, false, err
	}
	g, ok := seg.Segment(segmentID)
	if !ok {
		return assets.Asset{}, false, nil
	}
	return VirtualAsset(parent, g), true, nil
}

// VirtualAssets implements assets.VirtualResolver: the virtual assets of
// the active designs of parents, keyed by parent id, in ranking order.
func (s *Service) VirtualAssets(ctx context.Context, v auth.Visibility, parents []assets.Asset) (map[string][]assets.Asset, error) {
	active, err := s.activeOf(ctx, v, parents)
	if err != nil || len(active) == 0 {
		return nil, err
	}
	index := make(map[string]int, len(parents))
	for i, a := range parents {
		index[a.ID] = i
	}
	out := map[string][]assets.Asset{}
	for _, seg := range active {
		i, ok := index[seg.AssetID]
		if !ok {
			continue
		}
		for _, g := range seg.Segments {
			out[seg.AssetID] = append(out[seg.AssetID], VirtualAsset(parents[i], g))
		}
	}
	return out, nil
}

// activeOf returns the active designs among parents'. One parent, as
// every bid write asks, is one keyed read; a list reads the organisation's
// active designs at once.
func (s *Service) activeOf(ctx context.Context, v auth.Visibility, parents []assets.Asset) ([]Segmentation, error) {
	if len(parents) != 1 {
		return s.store.ListActive(ctx, v)
	}
	seg, err := s.store.Get(ctx, v, parents[0].ID)
	if errs.Is(err, errs.NotFound) || (err == nil && seg.Status != Active) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []Segmentation{seg}, nil
}

// AssetDeletionBlockers implements assets.DeletionGuard: an asset with an
// active segmentation is not deleted (delete or keep the design first).
func (s *Service) AssetDeletionBlockers(ctx context.Context, assetID string, _ time.Time) ([]string, error) {
	seg, err := s.store.Get(ctx, auth.Visibility{All: true}, assetID)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	if err != nil || seg.Status != Active {
		return nil, err
	}
	return []string{"an active segmentation"}, nil
}
