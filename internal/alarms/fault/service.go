package fault

import (
	"context"
	"math"
	"net/url"
	"slices"
	"time"

	"atcp/internal/alarms"
	"atcp/internal/alarms/incident"
	"atcp/internal/alarms/narrator"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/contacts"
	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/restrictions"
)

// Alarms reads alarms for a caller (*alarms.Service).
type Alarms interface {
	Current(ctx context.Context, v auth.Visibility, rawKey string) (alarms.Lifecycle, error)
	AssetActive(ctx context.Context, v auth.Visibility, assetID string, q alarms.Query) (alarms.Page[alarms.Lifecycle], error)
}

// Assets resolves an asset for a caller (*assets.Service).
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error)
}

// Directory lists an asset's contacts (*contacts.Service).
type Directory interface {
	List(ctx context.Context, p *auth.Principal, assetID string) ([]contacts.Contact, error)
}

// Holds reads the intervals in force (*restrictions.Service).
type Holds interface {
	Active(ctx context.Context, v auth.Visibility, assetID string, kind restrictions.Kind) ([]restrictions.Interval, error)
}

// Narrator drafts a fault message (*narrator.Narrator).
type Narrator interface {
	Draft(ctx context.Context, req narrator.Request) (narrator.Draft, error)
}

// Incidents opens and reads incidents (*incident.Client).
type Incidents interface {
	Open(ctx context.Context, inc incident.Incident) error
	Status(ctx context.Context, dedupKey string) (incident.Status, error)
}

// Outbox takes events for delivery, all or none (*events.Outbox).
type Outbox interface {
	Enqueue(ctx context.Context, list []events.Event) error
}

// Deps are what the Service works with.
type Deps struct {
	Alarms    Alarms
	Assets    Assets
	Directory Directory
	Holds     Holds
	Narrator  Narrator
	Incidents Incidents
	Outbox    Outbox
	Store     Store
	Clock     clock.Clock // the platform clock
	// BaseURL is the public base URL the evidence's deep link starts with.
	BaseURL string
}

// Service assembles evidence, drafts, declares and reads incidents.
type Service struct{ d Deps }

// NewService returns the service on d.
func NewService(d Deps) *Service { return &Service{d: d} }

// Recipient is a contact of the evidence.
type Recipient struct {
	Contact contacts.Contact
	HasChat bool
}

// Evidence is document 1's fault evidence.
type Evidence struct {
	AlarmKey           string
	AlarmID            string
	AssetID, AssetName string
	TSO                string
	RuleID, RuleName   string
	Severity           alarms.Severity
	Facts              []string
	DeepLink           string
	SustainedSeconds   int64
	ConcurrentRuleIDs  []string
	// UnavailabilityEnd is the applicable hold's deadline (zero when the
	// active hold is open-ended); UnavailabilityHours its distance from
	// now (0 then).
	UnavailabilityEnd   time.Time
	UnavailabilityHours float64
	ActiveHold          *Window
	Recipients          []contacts.Contact
}

// DeepLink is the evidence's link to the alarm: its fault evidence on the
// API, which names the alarm exactly for whoever holds alarm.write.
func DeepLink(baseURL, alarmKey string) string {
	return baseURL + "/v1/alarms/" + url.PathEscape(alarmKey) + "/fault-evidence"
}

// open returns the key's lifecycle, 404 unless an alarm of it is open.
func (s *Service) open(ctx context.Context, v auth.Visibility, rawKey string) (alarms.Lifecycle, error) {
	l, err := s.d.Alarms.Current(ctx, v, rawKey)
	if err != nil {
		return alarms.Lifecycle{}, err
	}
	if !l.Open {
		return alarms.Lifecycle{}, errs.NotFoundf("alarm %s has no open alarm: evidence is assembled for open alarms only", rawKey)
	}
	return l, nil
}

// Evidence assembles the fault evidence of the key's open alarm without
// acting. 404 when the key is unknown, invisible or has no open alarm.
func (s *Service) Evidence(ctx context.Context, p auth.Principal, rawKey string) (Evidence, error) {
	v := p.Visibility()
	l, err := s.open(ctx, v, rawKey)
	if err != nil {
		return Evidence{}, err
	}
	return s.evidence(ctx, p, l)
}

func (s *Service) evidence(ctx context.Context, p auth.Principal, l alarms.Lifecycle) (Evidence, error) {
	v := p.Visibility()
	a, err := s.d.Assets.Get(ctx, v, l.Key.AssetID)
	if err != nil {
		return Evidence{}, err
	}
	active, err := s.d.Alarms.AssetActive(ctx, v, a.ID, alarms.Query{Limit: alarms.MaxLimit})
	if err != nil {
		return Evidence{}, err
	}
	concurrent := []string{}
	for _, o := range active.Items {
		if o.Key.RuleID != l.Key.RuleID && !slices.Contains(concurrent, o.Key.RuleID) {
			concurrent = append(concurrent, o.Key.RuleID)
		}
	}
	slices.Sort(concurrent)
	holds, err := s.d.Holds.Active(ctx, v, a.ID, restrictions.Unavailability)
	if err != nil {
		return Evidence{}, err
	}
	now := s.d.Clock.Now().UTC()
	e := Evidence{
		AlarmKey: l.Key.String(), AlarmID: l.AlarmID, AssetID: a.ID, AssetName: a.Name,
		RuleID: l.Key.RuleID, Severity: l.Severity, Facts: slices.Clone(l.Evidence.Facts),
		DeepLink: DeepLink(s.d.BaseURL, l.Key.String()), SustainedSeconds: l.Evidence.SustainedSeconds,
		ConcurrentRuleIDs: concurrent,
	}
	if e.Facts == nil {
		e.Facts = []string{}
	}
	if a.TSO != nil {
		e.TSO = string(*a.TSO)
	}
	if r, ok := alarms.RuleByID(l.Key.RuleID); ok {
		e.RuleName = r.Name
	}
	if h := ActiveHold(holds, now); h != nil {
		e.ActiveHold = &Window{Start: h.Start, End: h.End}
	}
	// An open-ended hold leaves the deadline zero: the draft refuses it.
	if end, err := Deadline(e.ActiveHold, now); err == nil {
		e.UnavailabilityEnd = end
		e.UnavailabilityHours = math.Round(e.UnavailabilityEnd.Sub(now).Hours()*100) / 100
	}
	if e.Recipients, err = s.d.Directory.List(ctx, &p, a.ID); err != nil {
		return Evidence{}, err
	}
	return e, nil
}
