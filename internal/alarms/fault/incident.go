package fault

import (
	"context"
	"log/slog"
	"time"

	"atcp/internal/alarms"
	"atcp/internal/alarms/incident"
	"atcp/internal/auth"
	"atcp/internal/errs"
)

// Incident returns the incident of the key's current lifecycle. Best
// effort: Found false when the key has no lifecycle, no incident was
// opened or the tool cannot be read; 404 only for a key unknown or
// invisible.
func (s *Service) Incident(ctx context.Context, p auth.Principal, rawKey string) (incident.Status, error) {
	// The key itself must name a rule on a visible physical asset (404);
	// only then is a key without lifecycle "no live state".
	key, err := alarms.ParseKey(rawKey)
	if err != nil {
		return incident.Status{}, err
	}
	if _, ok := alarms.RuleByID(key.RuleID); !ok {
		return incident.Status{}, errs.NotFoundf("alarm %q not found: no rule %s in the catalogue", rawKey, key.RuleID)
	}
	a, err := s.d.Assets.Get(ctx, p.Visibility(), key.AssetID)
	if err != nil {
		return incident.Status{}, err
	}
	if a.IsVirtual() {
		return incident.Status{}, errs.NotFoundf("alarm %q not found: alarms are raised on the physical asset %s", rawKey, a.PhysicalID())
	}
	l, err := s.d.Alarms.Current(ctx, p.Visibility(), rawKey)
	if errs.Is(err, errs.NotFound) {
		return incident.Status{}, nil
	}
	if err != nil {
		return incident.Status{}, err
	}
	if s.d.Incidents == nil {
		return incident.Status{}, nil
	}
	return s.d.Incidents.Status(ctx, l.AlarmID)
}

// Opener opens an incident for each alarm of a paging rule that opens on
// a production-critical asset. It hears of openings on the engine's
// goroutine (alarms.Service.OnOpened) and hands them to one goroutine
// through a bounded queue, so that a slow incident tool never holds the
// engine back; an opening that finds the queue full is dropped and logged.
type Opener struct {
	assets    Assets
	incidents Incidents
	log       *slog.Logger
	timeout   time.Duration
	queue     chan alarms.OpenedAlarm
}

// OpenerQueue bounds the openings waiting for the incident tool.
const OpenerQueue = 256

// NewOpener returns an opener; Run drains its queue.
func NewOpener(as Assets, inc Incidents, log *slog.Logger, timeout time.Duration) *Opener {
	return &Opener{assets: as, incidents: inc, log: log, timeout: timeout, queue: make(chan alarms.OpenedAlarm, OpenerQueue)}
}

// Heard is the alarms.Service.OnOpened listener: it only queues.
func (o *Opener) Heard(ctx context.Context, a alarms.OpenedAlarm) {
	if a.Rule == nil || !a.Rule.Pages {
		return
	}
	select {
	case o.queue <- a:
	default:
		o.log.WarnContext(ctx, "incident queue full: incident not opened", "alarm_id", a.Event.AlarmID, "alarm_key", a.Event.Key.String())
	}
}

// Run opens the queued incidents until ctx ends.
func (o *Opener) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-o.queue:
			o.open(ctx, a)
		}
	}
}

// open pages one alarm when its asset is production-critical, each call
// bounded by the timeout.
func (o *Opener) open(ctx context.Context, a alarms.OpenedAlarm) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	e := a.Event
	asset, err := o.assets.Get(ctx, auth.Visibility{All: true}, e.Key.AssetID)
	if err != nil {
		o.log.WarnContext(ctx, "incident not opened: asset unreadable", "alarm_id", e.AlarmID, "error", err)
		return
	}
	if !asset.ProductionCritical() {
		return
	}
	err = o.incidents.Open(ctx, incident.Incident{
		DedupKey: e.AlarmID, Summary: e.Message, Severity: string(e.Severity), Source: e.Key.AssetID,
		Details: map[string]any{"alarm_key": e.Key.String(), "rule_id": e.Key.RuleID, "facts": e.Evidence.Facts,
			"opened_at": e.OpenedAt.UTC()},
	})
	if err != nil {
		o.log.WarnContext(ctx, "incident not opened", "alarm_id", e.AlarmID, "error", err)
	}
}
