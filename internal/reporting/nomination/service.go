package nomination

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/calendar"
)

// Organizations finds a registered organisation, errs.NotFound when there
// is none (identity.DirectoryStore).
type Organizations interface {
	Organization(ctx context.Context, id string) (identity.Organization, error)
}

var _ Organizations = identity.DirectoryStore(nil)

// Service serves the schedules, files, revisions and configurations.
type Service struct {
	store Store
	orgs  Organizations
	clock clock.Clock // the platform clock: which days are completed
}

// NewService returns the service over the store, the organisation
// directory and the platform clock.
func NewService(s Store, orgs Organizations, clk clock.Clock) *Service {
	return &Service{store: s, orgs: orgs, clock: clk}
}

// Scope is a zone's aggregate_scope.
type Scope string

const (
	// BalancingGroup: the organisation is responsible for the balancing
	// group; the zone carries headers and the nominated periods.
	BalancingGroup Scope = "balancing_group"
	// AssetOnly: the organisation owns assets in another organisation's
	// balancing group; only its asset rows are shown.
	AssetOnly Scope = "asset_only"
)

// Organization resolves the organisation a request names (query
// organization_id, "" for none): the caller's own by default; a platform
// administrator, who may act for every organisation, must name a
// registered one. Anything else is 422 organization_not_accessible, the
// same for an organisation that exists and one that does not.
func (s *Service) Organization(ctx context.Context, p *auth.Principal, named string) (string, error) {
	return auth.ActingFor(ctx, p, auth.OrganizationTarget{Named: named, Location: "query.organization_id", Required: true},
		func(ctx context.Context, id string) error {
			_, err := s.orgs.Organization(ctx, id)
			return err
		})
}

// CompletedDay parses delivery_day: 422 when it is not a date, 400 when
// it is today or later in Berlin (platform clock).
func (s *Service) CompletedDay(raw string) (calendar.Day, error) {
	d, err := calendar.ParseDay(raw)
	if err != nil {
		return calendar.Day{}, errs.Invalidf("query.delivery_day", raw, "must be a date (YYYY-MM-DD)")
	}
	if today := calendar.DayOf(s.clock.Now()); !d.Span().End.After(today.Span().Start) {
		return d, nil
	}
	return calendar.Day{}, errs.E(errs.Malformed, CodeDeliveryDayNotCompleted,
		"delivery_day %s is not a completed Berlin day (today is %s): schedules exist from the day after delivery", d, calendar.DayOf(s.clock.Now()))
}

// ParseTSO parses a tso parameter ("" allowed unless required).
func ParseTSO(raw string, required bool) (assets.TSO, error) {
	if raw == "" && !required {
		return "", nil
	}
	t := assets.TSO(raw)
	if !t.Valid() {
		return "", errs.Invalidf("query.tso", raw, "must be one of 50HZ, TNNT, AMP, TNBW")
	}
	return t, nil
}

// ParseDirection parses the direction parameter.
func ParseDirection(raw string) (Direction, error) {
	if d := Direction(raw); slices.Contains(Directions, d) {
		return d, nil
	}
	return "", errs.Invalidf("query.direction", raw, "must be pos or neg")
}

// MaxAssetIDs bounds the asset_ids filter.
const MaxAssetIDs = 100

// ParseAssetIDs parses the comma-separated asset_ids filter; nil when
// absent.
func ParseAssetIDs(raw string) ([]string, error) {
	if raw == "" {
		return nil, nil
	}
	ids := strings.Split(raw, ",")
	var v errs.Validation
	if len(ids) > MaxAssetIDs {
		v.Add("query.asset_ids", fmt.Sprintf("names at most %d assets", MaxAssetIDs), raw)
	}
	for _, id := range ids {
		if !assets.ValidID(id) {
			v.Add("query.asset_ids", "is a comma-separated list of asset ids", id)
			break
		}
	}
	return ids, v.Err()
}

// Schedule is the balancing-group schedule of an organisation and day.
type Schedule struct {
	Day   calendar.Day
	Zones []Zone
}

// Zone is one zone of a schedule. Revision is the latest acknowledged
// revision (nil when none is); for an AssetOnly zone its header and zone
// periods are not shown. Assets are the rows shown.
type Zone struct {
	TSO      assets.TSO
	Scope    Scope
	Revision *Revision
	Assets   []AssetRow
}

// ScheduleQuery selects a schedule.
type ScheduleQuery struct {
	OrganizationID string
	Day            calendar.Day
	TSO            assets.TSO // "" for every zone
	AssetIDs       []string   // nil for every asset
}

// Schedule returns the organisation's schedule of the day: a
// balancing_group zone for every zone it nominates (periods and asset
// rows of its latest acknowledged revision, none while none is), and an
// asset_only zone for every zone where another organisation nominates
// its assets. AssetIDs narrows the asset rows and the zones to those with
// a row of them, never the zone periods.
func (s *Service) Schedule(ctx context.Context, q ScheduleQuery) (Schedule, error) {
	out := Schedule{Day: q.Day, Zones: []Zone{}}
	zones, err := s.store.Zones(ctx, q.OrganizationID, q.Day)
	if err != nil {
		return out, err
	}
	acked, err := s.store.Acknowledged(ctx, q.OrganizationID, q.Day, q.TSO)
	if err != nil {
		return out, err
	}
	elsewhere, err := s.store.OwnedElsewhere(ctx, q.OrganizationID, q.Day, q.TSO)
	if err != nil {
		return out, err
	}
	own := map[assets.TSO]bool{}
	for _, z := range zones {
		if q.TSO != "" && z != q.TSO {
			continue
		}
		own[z] = true
		zone := Zone{TSO: z, Scope: BalancingGroup, Assets: []AssetRow{}}
		for i := range acked {
			if acked[i].TSO == z {
				zone.Revision = &acked[i]
				zone.Assets = acked[i].Assets
			}
		}
		out.Zones = append(out.Zones, zone)
	}
	for i := range elsewhere {
		r := &elsewhere[i]
		if own[r.TSO] {
			continue // its own nomination of the zone is the authoritative one
		}
		out.Zones = append(out.Zones, Zone{TSO: r.TSO, Scope: AssetOnly, Revision: r, Assets: r.Assets})
	}
	if q.AssetIDs != nil {
		kept := out.Zones[:0]
		for _, z := range out.Zones {
			rows := []AssetRow{}
			for _, a := range z.Assets {
				if slices.Contains(q.AssetIDs, a.AssetID) {
					rows = append(rows, a)
				}
			}
			if len(rows) > 0 {
				z.Assets = rows
				kept = append(kept, z)
			}
		}
		out.Zones = kept
	}
	slices.SortStableFunc(out.Zones, func(a, b Zone) int {
		return slices.Index(assets.TSOs, a.TSO) - slices.Index(assets.TSOs, b.TSO)
	})
	return out, nil
}

// File returns the nomination file of the organisation's zone and
// direction: that of the latest acknowledged revision, or the file
// without values while none is acknowledged; 404 when the organisation
// has no nomination of the zone and day.
func (s *Service) File(ctx context.Context, org string, day calendar.Day, tso assets.TSO, d Direction) (File, Key, error) {
	k := Key{OrganizationID: org, TSO: tso, Day: day}
	zones, err := s.store.Zones(ctx, org, day)
	if err != nil {
		return File{}, k, err
	}
	if !slices.Contains(zones, tso) {
		return File{}, k, errs.NotFoundf("organisation %q manages no nominations in zone %s on %s", org, tso, day)
	}
	acked, err := s.store.Acknowledged(ctx, org, day, tso)
	if err != nil {
		return File{}, k, err
	}
	if len(acked) == 0 {
		return File{Day: day, Direction: d}, k, nil
	}
	return acked[0].File(d), k, nil
}

// Revisions returns every revision of the organisation's nominations of
// the day (in zone tso unless empty) with its exchange record.
func (s *Service) Revisions(ctx context.Context, org string, day calendar.Day, tso assets.TSO) ([]Revision, error) {
	return s.store.Revisions(ctx, org, day, tso)
}

// ConfigOf returns the configuration of organisation org in zone tso for
// caller p: 404 when p cannot see org or org has none.
func (s *Service) ConfigOf(ctx context.Context, p *auth.Principal, org string, tso assets.TSO) (Config, error) {
	if p == nil || !p.CanSeeOrganization(org) {
		return Config{}, errs.NotFoundf("no balancing-group configuration of organisation %q in zone %s", org, tso)
	}
	return s.store.Config(ctx, org, tso)
}

// PutConfig creates or replaces a configuration: platform administrators
// only (403), for a registered organisation (404) naming a registered
// responsible organisation and valid EICs (422).
func (s *Service) PutConfig(ctx context.Context, p *auth.Principal, c Config) (Config, error) {
	if p == nil || !p.IsPlatformAdmin() {
		return Config{}, errs.Forbiddenf(identity.CodePlatformAdminRequired, "only platform administrators configure balancing groups")
	}
	if _, err := s.orgs.Organization(ctx, c.OrganizationID); errs.Is(err, errs.NotFound) {
		return Config{}, errs.NotFoundf("no organisation %q", c.OrganizationID)
	} else if err != nil {
		return Config{}, err
	}
	if c.ResponsibleOrganizationID == "" {
		c.ResponsibleOrganizationID = c.OrganizationID
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	if c.ResponsibleOrganizationID != c.OrganizationID {
		if _, err := s.orgs.Organization(ctx, c.ResponsibleOrganizationID); errs.Is(err, errs.NotFound) {
			return Config{}, errs.Invalidf("body.balancing_group_responsible_org_id", c.ResponsibleOrganizationID, "is not a registered organisation")
		} else if err != nil {
			return Config{}, err
		}
	}
	c.UpdatedAt = s.clock.Now()
	if err := s.store.PutConfig(ctx, c); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Validate checks the EICs (422 invalid_eic naming each).
func (c Config) Validate() error {
	fields := []struct {
		name, value string
	}{
		{"control_area_eic", c.EICs.ControlArea},
		{"source_control_area_eic", c.EICs.SourceControlArea},
		{"target_control_area_eic", c.EICs.TargetControlArea},
		{"source_balancing_group_eic", c.EICs.SourceBalancingGroup},
		{"target_balancing_group_eic", c.EICs.TargetBalancingGroup},
	}
	e := &errs.Error{Kind: errs.Invalid, Code: CodeInvalidEIC, Message: "invalid EIC"}
	for _, f := range fields {
		if !ValidEIC(f.value) {
			e.Fields = append(e.Fields, errs.FieldError{Location: "body." + f.name,
				Message: "must be an EIC: 16 characters of 0-9, A-Z and '-', the last the check character", Value: f.value})
		}
	}
	if len(e.Fields) > 0 {
		return e
	}
	return nil
}
