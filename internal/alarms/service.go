package alarms

import (
	"context"
	"fmt"
	"sync"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
)

// Paging of the lists (document 1, Limits: alarm list page).
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Assets resolves an asset for a caller (*assets.Service).
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error)
}

// OpenedAlarm is an alarm that opened unmuted: what an incident opener
// needs to decide (the rule pages, the asset is production-critical).
type OpenedAlarm struct {
	Event Event
	Rule  *Rule
}

// Service reads the alarm history and acts on alarms for callers, and
// hears of the alarms the engine opens.
type Service struct {
	store  Store
	assets Assets
	clock  clock.Clock

	mu     sync.RWMutex
	opened []func(context.Context, OpenedAlarm)
}

// NewService returns the service on store.
func NewService(store Store, as Assets, clk clock.Clock) *Service {
	return &Service{store: store, assets: as, clock: clk}
}

// OnOpened makes fn hear of every alarm the engine opens unmuted, after
// its event is committed, on the engine's goroutine: fn must return
// quickly (hand slow work, such as opening an incident, to a goroutine or
// an outbox). A muted key's opening is not announced: muting stops
// paging and incidents.
func (s *Service) OnOpened(fn func(context.Context, OpenedAlarm)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opened = append(s.opened, fn)
}

// announce tells the OnOpened listeners of the unmuted openings among
// events.
func (s *Service) announce(ctx context.Context, events []Event) {
	s.mu.RLock()
	listeners := s.opened
	s.mu.RUnlock()
	if len(listeners) == 0 {
		return
	}
	for _, e := range events {
		if e.Type != Opened || e.Muted {
			continue
		}
		r, _ := RuleByID(e.Key.RuleID)
		for _, fn := range listeners {
			fn(ctx, OpenedAlarm{Event: e, Rule: r})
		}
	}
}

// Catalog is the rule catalogue as served.
type Catalog struct {
	Version     string
	GeneratedAt time.Time
	Rules       []*Rule
}

// Catalog returns the rule catalogue, generated now.
func (s *Service) Catalog() Catalog {
	return Catalog{Version: CatalogVersion, GeneratedAt: s.clock.Now().UTC(), Rules: Rules()}
}

// Query selects a page of events (or of active alarms, which ignore the
// window and the event types).
type Query struct {
	// OrganizationID is the organisation the caller names; see
	// Service.Events for who must name one.
	OrganizationID string
	From, To       time.Time
	Severities     []Severity
	Types          []EventType
	Limit, Offset  int
}

// Page is one page of a list and how many items match in all.
type Page[T any] struct {
	Items                []T
	Total, Limit, Offset int
}

func (q *Query) check(window bool) error {
	var v errs.Validation
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.Limit < 1 || q.Limit > MaxLimit {
		v.Add("query.limit", "must be 1 to 1000", q.Limit)
	}
	if q.Offset < 0 {
		v.Add("query.offset", "must not be negative", q.Offset)
	}
	if window {
		switch {
		case q.From.IsZero():
			v.Add("query.start_time", "required", nil)
		case q.To.IsZero():
			v.Add("query.end_time", "required", nil)
		case !q.To.After(q.From):
			v.Add("query.end_time", "must be after start_time", q.To)
		}
	}
	for _, sv := range q.Severities {
		if !sv.Valid() {
			v.Add("query.severity", "must be INFO, WARNING, MAJOR or CRITICAL", string(sv))
		}
	}
	for _, t := range q.Types {
		if !t.Valid() {
			v.Add("query.event_type", "must be an alarm event type", string(t))
		}
	}
	return v.Err()
}

// organization is the organisation an organisation-wide list reads:
// optional for a caller of one organisation (its own; another is 403
// organization_not_permitted), required for a platform administrator,
// who sees every organisation (422 without it).
func organization(p auth.Principal, named string) (string, error) {
	switch {
	case named == "" && p.IsPlatformAdmin():
		return "", errs.Invalidf("query.organization_id", nil,
			"required for callers who see several organisations (platform administrators): name the organisation")
	case named == "":
		return p.OrganizationID, nil
	case !p.CanSeeOrganization(named):
		return "", errs.Forbiddenf(CodeOrganizationNotPermitted, "you may list only your own organisation's alarms")
	}
	return named, nil
}

// Events returns a page of the organisation's alarm events with a
// timestamp in [From, To), newest first.
func (s *Service) Events(ctx context.Context, p auth.Principal, q Query) (Page[Event], error) {
	if err := q.check(true); err != nil {
		return Page[Event]{}, err
	}
	org, err := organization(p, q.OrganizationID)
	if err != nil {
		return Page[Event]{}, err
	}
	return s.events(ctx, p.Visibility(), EventFilter{OrganizationID: org}, q)
}

// AssetEvents returns a page of a visible asset's alarm events, as
// Events.
func (s *Service) AssetEvents(ctx context.Context, v auth.Visibility, assetID string, q Query) (Page[Event], error) {
	if err := q.check(true); err != nil {
		return Page[Event]{}, err
	}
	if _, err := s.physical(ctx, v, assetID); err != nil {
		return Page[Event]{}, err
	}
	return s.events(ctx, v, EventFilter{AssetID: assetID}, q)
}

func (s *Service) events(ctx context.Context, v auth.Visibility, f EventFilter, q Query) (Page[Event], error) {
	f.From, f.To, f.Severities, f.Types, f.Limit, f.Offset = q.From, q.To, q.Severities, q.Types, q.Limit, q.Offset
	list, total, err := s.store.Events(ctx, v, f)
	return Page[Event]{Items: list, Total: total, Limit: q.Limit, Offset: q.Offset}, err
}

// OrganizationEvents returns a page of a visible organisation's alarm
// events, as Events; an organisation the caller may not see is 404, as
// every resource named in a path.
func (s *Service) OrganizationEvents(ctx context.Context, v auth.Visibility, org string, q Query) (Page[Event], error) {
	if err := q.check(true); err != nil {
		return Page[Event]{}, err
	}
	if err := visibleOrganization(v, org); err != nil {
		return Page[Event]{}, err
	}
	return s.events(ctx, v, EventFilter{OrganizationID: org}, q)
}

// OrganizationActive returns a page of a visible organisation's open
// alarms, most recently opened first.
func (s *Service) OrganizationActive(ctx context.Context, v auth.Visibility, org string, q Query) (Page[Lifecycle], error) {
	if err := q.check(false); err != nil {
		return Page[Lifecycle]{}, err
	}
	if err := visibleOrganization(v, org); err != nil {
		return Page[Lifecycle]{}, err
	}
	return s.active(ctx, v, ActiveFilter{OrganizationID: org}, q)
}

func visibleOrganization(v auth.Visibility, org string) error {
	if !v.Allows(org) {
		return errs.NotFoundf("organisation %q not found", org)
	}
	return nil
}

// AssetActive returns a page of a visible asset's open alarms.
func (s *Service) AssetActive(ctx context.Context, v auth.Visibility, assetID string, q Query) (Page[Lifecycle], error) {
	if err := q.check(false); err != nil {
		return Page[Lifecycle]{}, err
	}
	if _, err := s.physical(ctx, v, assetID); err != nil {
		return Page[Lifecycle]{}, err
	}
	return s.active(ctx, v, ActiveFilter{AssetID: assetID}, q)
}

func (s *Service) active(ctx context.Context, v auth.Visibility, f ActiveFilter, q Query) (Page[Lifecycle], error) {
	f.Severities, f.Limit, f.Offset = q.Severities, q.Limit, q.Offset
	list, total, err := s.store.Active(ctx, v, f)
	now := s.clock.Now()
	for i := range list {
		list[i] = list[i].At(now)
	}
	return Page[Lifecycle]{Items: list, Total: total, Limit: q.Limit, Offset: q.Offset}, err
}

// physical resolves a visible asset that alarms are raised on: a virtual
// asset has none of its own (its parent's are the ones), so it is
// unknown here.
func (s *Service) physical(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error) {
	a, err := s.assets.Get(ctx, v, assetID)
	if err == nil && a.IsVirtual() {
		err = errs.NotFoundf("asset %q not found: alarms are raised on the physical asset %s", assetID, a.PhysicalID())
	}
	return a, err
}

// resolve parses a key the caller names and checks that it names a rule
// of the catalogue on a visible physical asset (404 otherwise).
func (s *Service) resolve(ctx context.Context, v auth.Visibility, raw string) (Key, error) {
	key, err := ParseKey(raw)
	if err != nil {
		return Key{}, err
	}
	if _, ok := RuleByID(key.RuleID); !ok {
		return Key{}, errs.NotFoundf("alarm %q not found: no rule %s in the catalogue", raw, key.RuleID)
	}
	if _, err := s.physical(ctx, v, key.AssetID); err != nil {
		return Key{}, err
	}
	return key, nil
}

// Current returns the current (or last) lifecycle of a visible key:
// what fault declaration checks an alarm_id against. errs.NotFound when
// the key is unknown or invisible, or never had an alarm.
func (s *Service) Current(ctx context.Context, v auth.Visibility, rawKey string) (Lifecycle, error) {
	key, err := s.resolve(ctx, v, rawKey)
	if err != nil {
		return Lifecycle{}, err
	}
	l, err := s.store.Lifecycle(ctx, v, key)
	if err != nil {
		return Lifecycle{}, err
	}
	return l.At(s.clock.Now()), nil
}

// Acknowledge acknowledges the key's open alarm and returns its
// lifecycle. A repeated acknowledgement changes nothing and returns the
// first one; alarmID, when given, must be the key's current alarm_id
// (409 alarm_id_mismatch); without an open alarm it is 409
// alarm_not_open.
func (s *Service) Acknowledge(ctx context.Context, p auth.Principal, rawKey string, notes, alarmID *string) (Lifecycle, error) {
	if err := CheckAcknowledge(notes); err != nil {
		return Lifecycle{}, err
	}
	key, err := s.resolve(ctx, p.Visibility(), rawKey)
	if err != nil {
		return Lifecycle{}, err
	}
	l, _, err := s.store.Act(ctx, Update{Key: key, Visibility: p.Visibility(),
		Decide: DecideAcknowledge(key, ActorOf(p), notes, alarmID, s.clock.Now().UTC().Truncate(time.Microsecond))})
	return l, err
}

// Mute mutes the key (see DecideMute) and returns its lifecycle and the
// alarm.muted event.
func (s *Service) Mute(ctx context.Context, p auth.Principal, rawKey string, r MuteRequest) (Lifecycle, Event, error) {
	now := s.clock.Now().UTC().Truncate(time.Microsecond)
	expires, err := r.Expiry(now)
	if err != nil {
		return Lifecycle{}, Event{}, err
	}
	key, err := s.resolve(ctx, p.Visibility(), rawKey)
	if err != nil {
		return Lifecycle{}, Event{}, err
	}
	return s.act(ctx, p, key, DecideMute(key, ActorOf(p), r.Reason, expires, r.AlarmID, now))
}

// Unmute lifts the key's mute (see DecideUnmute) and returns its
// lifecycle and the alarm.unmuted event.
func (s *Service) Unmute(ctx context.Context, p auth.Principal, rawKey string, notes, alarmID *string) (Lifecycle, Event, error) {
	if err := CheckAcknowledge(notes); err != nil {
		return Lifecycle{}, Event{}, err
	}
	key, err := s.resolve(ctx, p.Visibility(), rawKey)
	if err != nil {
		return Lifecycle{}, Event{}, err
	}
	return s.act(ctx, p, key, DecideUnmute(key, ActorOf(p), notes, alarmID, s.clock.Now().UTC().Truncate(time.Microsecond)))
}

func (s *Service) act(ctx context.Context, p auth.Principal, key Key, d Decide) (Lifecycle, Event, error) {
	l, e, err := s.store.Act(ctx, Update{Key: key, Visibility: p.Visibility(), Decide: d})
	if err != nil {
		return Lifecycle{}, Event{}, err
	}
	if e == nil {
		return Lifecycle{}, Event{}, fmt.Errorf("alarms: %s recorded no event", key)
	}
	return l, *e, nil
}
