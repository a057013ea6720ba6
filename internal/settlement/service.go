package settlement

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/calendar"
)

// MaxWindow is the longest window of the settlement reads: 93 days hold
// any three consecutive Berlin months (at most 92 days and an hour).
const MaxWindow = 93 * 24 * time.Hour

// MaxAssetIDs bounds query asset_ids.
const MaxAssetIDs = 500

// Assets lists the assets a caller sees (assets.Service).
type Assets interface {
	List(ctx context.Context, v auth.Visibility) ([]assets.Asset, error)
}

// Organizations finds a registered organisation (identity's directory
// store).
type Organizations interface {
	Organization(ctx context.Context, id string) (identity.Organization, error)
}

// Deps are what the settlement reads need.
type Deps struct {
	Store         Store
	Assets        Assets
	Organizations Organizations
	Clock         clock.Clock // the platform clock: statuses are decided by it
	Rule          Rule
}

// Service answers the settlement reads: the envelope, the quality gates
// and the revenue summary.
type Service struct{ d Deps }

// NewService returns the settlement reads on d.
func NewService(d Deps) *Service { return &Service{d: d} }

// Rule is the status rule in force.
func (s *Service) Rule() Rule { return s.d.Rule }

// scope is the organisation and the assets a read covers.
type scope struct {
	org string
	v   auth.Visibility
	// ids are the assets in scope, sorted; all is true when the caller
	// named none, so that every asset with figures counts too (one
	// deleted since keeps its settlement).
	ids []string
	all bool
}

// target resolves the organisation a read names (query organization_id,
// "" for none) for caller p: by default the caller's own; another only for
// a platform administrator, and only a registered one. Anything else is
// 422 organization_not_accessible, the same for an organisation that
// exists and one that does not.
func (s *Service) target(ctx context.Context, p *auth.Principal, named string) (string, error) {
	return auth.ActingFor(ctx, p, auth.OrganizationTarget{Named: named, Location: "query.organization_id"},
		func(ctx context.Context, id string) error {
			_, err := s.d.Organizations.Organization(ctx, id)
			return err
		})
}

// resolve checks the caller's organisation and the named assets: each
// must be an asset (physical or virtual) of the organisation, else 422 at
// query.asset_ids, the same for an unknown asset and another
// organisation's, so that nothing is learnt about other organisations.
func (s *Service) resolve(ctx context.Context, p *auth.Principal, named string, assetIDs []string) (scope, error) {
	org, err := s.target(ctx, p, named)
	if err != nil {
		return scope{}, err
	}
	v := p.Visibility()
	list, err := s.d.Assets.List(ctx, v)
	if err != nil {
		return scope{}, err
	}
	own := make(map[string]bool, len(list))
	for _, a := range list {
		if a.OrganizationID == org {
			own[a.ID] = true
		}
	}
	sc := scope{org: org, v: v}
	if assetIDs == nil {
		sc.all = true
		for id := range own {
			sc.ids = append(sc.ids, id)
		}
		slices.Sort(sc.ids)
		return sc, nil
	}
	var verr errs.Validation
	if len(assetIDs) > MaxAssetIDs {
		verr.Add("query.asset_ids", fmt.Sprintf("names at most %d assets", MaxAssetIDs), len(assetIDs))
		return scope{}, verr.Err()
	}
	seen := map[string]bool{}
	for _, id := range assetIDs {
		switch {
		case id == "":
			verr.Add("query.asset_ids", "an empty asset id (two commas, or one at an end)", strings.Join(assetIDs, ","))
		case !own[id]:
			verr.Add("query.asset_ids", "is not an asset of the organisation", id)
		case !seen[id]:
			seen[id] = true
			sc.ids = append(sc.ids, id)
		}
	}
	if err := verr.Err(); err != nil {
		return scope{}, err
	}
	slices.Sort(sc.ids)
	return sc, nil
}

// blocks reads the stored blocks of the scope in w; with all, the assets
// that have figures join the scope.
func (s *Service) blocks(ctx context.Context, sc *scope, w calendar.Interval) ([]Block, error) {
	if !w.Start.Before(w.End) {
		return nil, nil
	}
	ids := sc.ids
	if sc.all {
		ids = nil
	}
	out, err := s.d.Store.Blocks(ctx, sc.v, sc.org, ids, w)
	if err != nil || !sc.all {
		return out, err
	}
	found := make([]string, len(out))
	for i, b := range out {
		found[i] = b.AssetID
	}
	sc.join(found)
	return out, nil
}

// alignedWindow checks a settlement window into v: start and end
// required, 15-minute aligned, end after start, at most MaxWindow.
func alignedWindow(v *errs.Validation, start, end time.Time) calendar.Interval {
	ok := true
	for _, p := range []struct {
		name string
		t    time.Time
	}{{"start", start}, {"end", end}} {
		switch {
		case p.t.IsZero():
			v.Add("query."+p.name, "is required", nil)
			ok = false
		case !calendar.AlignedToPeriod(p.t):
			v.Add("query."+p.name, "must be aligned to a UTC quarter-hour (minutes 00, 15, 30 or 45, no seconds)", p.t)
			ok = false
		}
	}
	switch {
	case !ok:
	case !end.After(start):
		v.Add("query.end", "must be after start", end)
	case end.Sub(start) > MaxWindow:
		v.Add("query.end", fmt.Sprintf("the window spans at most %d days", int(MaxWindow/(24*time.Hour))), end)
	}
	return calendar.Interval{Start: start.UTC(), End: end.UTC()}
}

// intersect is the part of a inside b.
func intersect(a, b calendar.Interval) calendar.Interval {
	out := calendar.Interval{Start: a.Start, End: a.End}
	if b.Start.After(out.Start) {
		out.Start = b.Start
	}
	if b.End.Before(out.End) {
		out.End = b.End
	}
	return out
}
