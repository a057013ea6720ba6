package reminders

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
	"atcp/internal/textrule"
	"atcp/internal/worker"
)

// Error codes of reminders.
const (
	// CodeNoRecipients: no contact of the gate's owner role holds an active access link, and the gate has no assignee (422).
	CodeNoRecipients errs.Code = "no_recipients"
	// CodeGateDone: the gate is passed or waived; there is nothing to remind of (409).
	CodeGateDone errs.Code = "gate_done"
	// CodeReminderRateLimited: the gate was reminded by hand less than an hour ago (429).
	CodeReminderRateLimited errs.Code = "reminder_rate_limited"
)

// ManualEvery is the least time between two manual reminders of a gate,
// security time (ManualLimit).
const ManualEvery = time.Hour

// ManualLimit counts the manual reminders of a gate (subject: the gate id)
// in rate marks on the security clock, which every instance reads; the
// reminder rows keep their platform-time enqueued_at as records.
var ManualLimit = onboarding.RateLimit{Kind: "reminder.manual", Max: 1, Window: ManualEvery}

// MaxMessageLength bounds a manual reminder's message in characters.
const MaxMessageLength = 2000

// JobName names the reminder job in leases, logs and metrics.
const JobName = "onboarding.reminders"

// Delivery says what became of a reminder's mail.
type Delivery string

// The deliveries: handed to the mail sender (the outbox), or recorded
// without mail because no sender is configured.
const (
	Enqueued Delivery = "enqueued"
	NotSent  Delivery = "not_sent"
)

// Recipient is someone a reminder goes to: a contact (ContactID) of a
// task role, or the platform's onboarding managers (role
// platform_onboarding, no contact). No e-mail address: the sender looks
// it up.
type Recipient struct {
	Role      onboarding.TaskRole `json:"role"`
	ContactID string              `json:"contact_id,omitempty"`
	Name      string              `json:"name,omitempty"`
}

// Reminder is one reminder of a gate's deadline.
type Reminder struct {
	ID             string // reminder_id, a UUID
	OrganizationID string
	OnboardingID   string
	GateID         string
	Kind           Kind
	DueOn          calendar.Day // the Berlin day the reminder is for
	Recipients     []Recipient
	Message        string // a manual reminder's
	EnqueuedAt     time.Time
	CreatedBy      string
	Delivery       Delivery
}

// Recipients finds whom a gate's reminder goes to: the contacts holding
// one of roles with an active access link, and the gate's assignee. The
// contacts and links groups implement it; nil finds no one.
type Recipients interface {
	ForGate(ctx context.Context, ob onboarding.Onboarding, g onboarding.Gate, roles []onboarding.TaskRole) ([]Recipient, error)
}

// ReminderMail is what the Sender mails.
type ReminderMail struct {
	ReminderID string
	GateID     string
	Kind       Kind
	DueOn      calendar.Day
	Deadline   *calendar.Day
	Message    string
	Recipients []Recipient
}

// Sender mails a reminder; it runs inside the transaction (an outbox
// writer joins it).
type Sender interface {
	Reminder(ctx context.Context, ob onboarding.Onboarding, r ReminderMail) error
}

// Store persists policies and reminders; reads are filtered by
// auth.Visibility in the query, and every method joins the transaction
// ctx carries.
type Store interface {
	// Policy returns a visible workflow's policy, DefaultPolicy when it has
	// not set one.
	Policy(ctx context.Context, v auth.Visibility, onboardingID string) (Policy, error)
	// SetPolicy stores a workflow's policy.
	SetPolicy(ctx context.Context, organizationID, onboardingID string, p Policy) error
	// Insert stores r; false when an automatic reminder of the same (gate,
	// kind, due day) exists (a unique index decides), and nothing changed.
	Insert(ctx context.Context, r Reminder) (bool, error)
	// List returns a visible workflow's reminders, of one gate unless
	// gateID is "", newest first.
	List(ctx context.Context, v auth.Visibility, onboardingID, gateID string) ([]Reminder, error)
}

// RateLimitedError refuses a manual reminder within ManualEvery of the
// last one (429 reminder_rate_limited, Retry-After).
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("the gate was reminded less than an hour ago; retry in %s", e.RetryAfter.Round(time.Second))
}

// Deps are what the Service works with; Recipients, Sender and Logger may
// be nil.
type Deps struct {
	Core       *onboarding.Service
	Store      Store
	Recipients Recipients
	Sender     Sender
	Clock      clock.Clock // platform: due days, the records' instants
	Security   clock.Clock // security: the manual reminders' limit (docs/authentication.md)
	Logger     *slog.Logger
}

// Service keeps the reminders of the onboarding core's workflows.
type Service struct{ d Deps }

// NewService returns the reminder service.
func NewService(d Deps) *Service {
	if d.Core == nil || d.Store == nil || d.Clock == nil || d.Security == nil {
		panic("reminders: NewService needs Core, Store, Clock and Security")
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

func (s *Service) now() time.Time { return s.d.Clock.Now().UTC().Truncate(time.Microsecond) }

// List returns a visible workflow's policy and reminders (of gateID when
// not ""), newest first, paged, and their total.
func (s *Service) List(ctx context.Context, actor onboarding.Actor, onboardingID, gateID string, limit, offset int) (Policy, []Reminder, int, error) {
	ob, err := s.d.Core.Get(ctx, actor, onboardingID)
	if err != nil {
		return Policy{}, nil, 0, err
	}
	if _, ok := ob.Gate(gateID); gateID != "" && !ok {
		return Policy{}, nil, 0, errs.Invalidf("query.gate_id", gateID, "is not a gate of this onboarding")
	}
	p, err := s.d.Store.Policy(ctx, actor.Visibility(), ob.ID)
	if err != nil {
		return Policy{}, nil, 0, err
	}
	list, err := s.d.Store.List(ctx, actor.Visibility(), ob.ID, gateID)
	if err != nil {
		return Policy{}, nil, 0, err
	}
	total := len(list)
	lo := min(offset, total)
	hi := min(lo+limit, total)
	return p, list[lo:hi], total, nil
}

// SetPolicy replaces a workflow's reminder policy (audited with the old
// one); the next run of the job applies it.
func (s *Service) SetPolicy(ctx context.Context, actor onboarding.Actor, onboardingID string, p Policy) (Policy, error) {
	if p.DaysBefore == nil {
		p.DaysBefore = []int{}
	}
	err := s.d.Core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		if err := p.Validate(); err != nil {
			return err
		}
		old, err := s.d.Store.Policy(ctx, auth.Visibility{All: true}, ob.ID)
		if err != nil {
			return err
		}
		changes := map[string][2]any{}
		if !slices.Equal(old.DaysBefore, p.DaysBefore) {
			changes["days_before"] = [2]any{old.DaysBefore, p.DaysBefore}
		}
		if old.OverdueEveryDays != p.OverdueEveryDays {
			changes["overdue_every_days"] = [2]any{old.OverdueEveryDays, p.OverdueEveryDays}
		}
		if old.MaxOverdueReminders != p.MaxOverdueReminders {
			changes["max_overdue_reminders"] = [2]any{old.MaxOverdueReminders, p.MaxOverdueReminders}
		}
		if old.Enabled != p.Enabled {
			changes["enabled"] = [2]any{old.Enabled, p.Enabled}
		}
		if len(changes) == 0 {
			return nil
		}
		if err := s.d.Store.SetPolicy(ctx, ob.OrganizationID, ob.ID, p); err != nil {
			return err
		}
		return s.d.Core.Audit(ctx, actor, ob, "reminder_policy.updated", onboarding.Target{Type: "onboarding", ID: ob.ID}, changes)
	})
	return p, err
}

// Remind sends a manual reminder of a gate now to its owner role's
// contacts (and assignee): 409 gate_done for a passed or waived gate, 422
// no_recipients when there is no one, 429 (RateLimitedError) within an
// hour of the gate's last manual reminder.
func (s *Service) Remind(ctx context.Context, actor onboarding.Actor, onboardingID, gateID, message string) (Reminder, error) {
	var r Reminder
	err := s.d.Core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		g, ok := ob.Gate(gateID)
		if !ok {
			return errs.E(errs.NotFound, onboarding.CodeGateNotFound, "onboarding %s has no gate %q", ob.ID, gateID)
		}
		if g.Status.Done() {
			return errs.Conflictf(CodeGateDone, "gate %s is %s; there is nothing to remind of", g.DefinitionID, g.Status)
		}
		if n := utf8.RuneCountInString(message); n > MaxMessageLength {
			return errs.Invalidf("message", n, "must be at most %d characters", MaxMessageLength)
		}
		if !textrule.Text(message) {
			return errs.Invalidf("message", nil, "%s", textrule.TextMessage)
		}
		secNow := s.d.Security.Now()
		wait, err := s.d.Core.RateWait(ctx, ob, ManualLimit, g.ID, secNow)
		if err != nil {
			return err
		}
		if wait > 0 {
			return &RateLimitedError{RetryAfter: wait}
		}
		def, _ := g.Definition()
		to, err := s.recipients(ctx, ob, g, []onboarding.TaskRole{def.OwnerRole})
		if err != nil {
			return err
		}
		if len(to) == 0 {
			return errs.E(errs.Invalid, CodeNoRecipients, "no contact of role %s holds an active access link, and gate %s has no assignee",
				def.OwnerRole, g.DefinitionID)
		}
		if r, err = s.record(ctx, actor, ob, g, Manual, calendar.DayOf(s.now()), message, to); err != nil {
			return err
		}
		return s.d.Core.MarkRate(ctx, ob, ManualLimit.Kind, g.ID, secNow)
	})
	return r, err
}

func (s *Service) recipients(ctx context.Context, ob onboarding.Onboarding, g onboarding.Gate, roles []onboarding.TaskRole) ([]Recipient, error) {
	if s.d.Recipients == nil {
		return nil, nil
	}
	return s.d.Recipients.ForGate(ctx, ob, g, roles)
}

// record stores a reminder, audits it and hands it to the sender; a zero
// Reminder and no error when an automatic one of the same point exists.
func (s *Service) record(ctx context.Context, actor onboarding.Actor, ob onboarding.Onboarding, g onboarding.Gate, kind Kind,
	due calendar.Day, message string, to []Recipient) (Reminder, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Reminder{}, err
	}
	r := Reminder{ID: id.String(), OrganizationID: ob.OrganizationID, OnboardingID: ob.ID, GateID: g.ID, Kind: kind, DueOn: due,
		Recipients: to, Message: message, EnqueuedAt: s.now(), CreatedBy: actor.Name, Delivery: NotSent}
	if s.d.Sender != nil {
		r.Delivery = Enqueued
	}
	inserted, err := s.d.Store.Insert(ctx, r)
	if err != nil || !inserted {
		return Reminder{}, err
	}
	roles := make([]string, 0, len(to))
	for _, t := range to {
		if !slices.Contains(roles, string(t.Role)) {
			roles = append(roles, string(t.Role))
		}
	}
	if err := s.d.Core.Audit(ctx, actor, ob, "reminder.sent", onboarding.Target{Type: "gate", ID: g.ID}, map[string][2]any{
		"kind": {nil, string(kind)}, "due_on": {nil, due.String()}, "recipient_roles": {nil, roles},
	}); err != nil {
		return Reminder{}, err
	}
	if s.d.Sender == nil {
		return r, nil
	}
	return r, s.d.Sender.Reminder(ctx, ob, ReminderMail{ReminderID: r.ID, GateID: g.ID, Kind: kind, DueOn: due, Deadline: g.Deadline,
		Message: message, Recipients: to})
}

// Jobs returns the hourly reminder job.
func (s *Service) Jobs() []worker.Job {
	return []worker.Job{{Name: JobName, Every: time.Hour, Run: s.Run}}
}

// remindable reports whether g's owner has something to do by its
// deadline: not submitted (awaiting review), blocked (held) or done.
func remindable(g onboarding.Gate) bool {
	return g.Deadline != nil && g.Status != onboarding.GateSubmitted && g.Status != onboarding.GateBlocked && !g.Status.Done()
}

// Run records the automatic reminders due on the Berlin day of due, each
// (gate, kind, due day) once: for every in_progress workflow and every
// remindable gate, Due under the workflow's policy, to the owner role's
// contacts (an overdue one to the managers as well). A before-deadline
// reminder nobody can receive is left for a later run. A workflow that
// fails is logged and the others go on.
func (s *Service) Run(ctx context.Context, due time.Time) error {
	today := calendar.DayOf(due)
	obs, _, err := s.d.Core.List(ctx, onboarding.SystemActor, onboarding.ListQuery{
		ListFilter: onboarding.ListFilter{Status: onboarding.InProgress, Limit: 1 << 30}})
	if err != nil {
		return err
	}
	var failed []error
	for _, ob := range obs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := s.runOne(ctx, ob, today); err != nil && errs.KindOf(err) != errs.Conflict && errs.KindOf(err) != errs.NotFound {
			s.d.Logger.Error("onboarding reminders", "onboarding_id", ob.ID, "error", err)
			failed = append(failed, err)
		}
	}
	return errors.Join(failed...)
}

func (s *Service) runOne(ctx context.Context, listed onboarding.Onboarding, today calendar.Day) error {
	p, err := s.d.Store.Policy(ctx, auth.Visibility{All: true}, listed.ID)
	if err != nil || !anyDue(p, listed, today) {
		return err
	}
	return s.d.Core.Mutate(ctx, onboarding.SystemActor, listed.ID, func(ctx context.Context, ob onboarding.Onboarding) error {
		p, err := s.d.Store.Policy(ctx, auth.Visibility{All: true}, ob.ID)
		if err != nil {
			return err
		}
		for _, g := range ob.Gates {
			if !remindable(g) {
				continue
			}
			kind, on, ok := Due(p, *g.Deadline, today)
			if !ok {
				continue
			}
			def, _ := g.Definition()
			to, err := s.recipients(ctx, ob, g, []onboarding.TaskRole{def.OwnerRole})
			if err != nil {
				return err
			}
			if kind == Overdue {
				to = append(to, Recipient{Role: onboarding.RolePlatformOnboarding})
			}
			if len(to) == 0 {
				continue
			}
			if _, err := s.record(ctx, onboarding.SystemActor, ob, g, kind, on, "", to); err != nil {
				return err
			}
		}
		return nil
	})
}

// anyDue reports whether a gate of ob has a reminder due today, so that
// the job locks only the workflows with something to do.
func anyDue(p Policy, ob onboarding.Onboarding, today calendar.Day) bool {
	for _, g := range ob.Gates {
		if remindable(g) {
			if _, _, ok := Due(p, *g.Deadline, today); ok {
				return true
			}
		}
	}
	return false
}
