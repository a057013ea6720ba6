package onboarding

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
	"atcp/internal/textrule"
)

// Limits of the texts a manager writes.
const (
	MaxNoteLength   = 4000 // gate notes and workflow notes
	MaxReasonLength = 500  // cancel reason
)

// Assets is the asset registry as onboarding uses it (*assets.Service):
// Update joins the transaction ctx carries, and Forget drops a cached copy
// once that transaction has committed.
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, id string) (assets.Asset, error)
	Update(ctx context.Context, v auth.Visibility, id string, u assets.Update) (assets.Asset, error)
	Forget(id string)
}

var _ Assets = (*assets.Service)(nil)

// Unmet is one unmet requirement of a gate: Location is
// "fields.<key>", "documents.<type>", "dpl.<point>", "communication_test",
// "prequalification.<product>" or "gates.<definition_id>" (go-live).
type Unmet struct {
	Location string
	Detail   string
}

// RequirementCheck reports what of a gate's requirements is unmet. It runs
// inside the submit transaction (ctx carries it).
type RequirementCheck func(ctx context.Context, ob Onboarding, g Gate, def GateDefinition) ([]Unmet, error)

// OnPassHook runs inside the pass or waive transaction of a gate.
type OnPassHook func(ctx context.Context, ob Onboarding, g Gate, def GateDefinition, actor Actor) error

// OnCancelHook runs inside the cancel transaction of a workflow.
type OnCancelHook func(ctx context.Context, ob Onboarding) error

// Notifier tells the people concerned about a gate's move; it runs inside
// the transaction (an outbox writer joins it).
type Notifier interface {
	GateChanged(ctx context.Context, ob Onboarding, g Gate, action string, actor Actor, note string) error
}

// Service runs the onboarding workflows. Its extension points (Mutate,
// Audit, TouchGate, GateForKind, AddRequirement, AddOnPass, AddOnCancel,
// SetNotifier) are how every other onboarding group changes a workflow:
// register hooks before serving.
type Service struct {
	store  Store
	assets Assets
	clk    clock.Clock

	mu            sync.RWMutex
	requirements  map[string]RequirementCheck
	onPass        []OnPassHook
	onCancel      []OnCancelHook
	notifier      Notifier
	contactRoles  ContactRoles
	assigneeCheck AssigneeCheck
}

// NewService returns the onboarding service on store.
func NewService(store Store, registry Assets, clk clock.Clock) *Service {
	return &Service{store: store, assets: registry, clk: clk, requirements: map[string]RequirementCheck{}}
}

// AddRequirement registers the check of one requirement kind (fields,
// documents, dpl, communication_test, prequalification): submit runs it for
// every gate whose definition sets that flag. A kind without a check is not
// checked. A second registration of a kind replaces the first.
func (s *Service) AddRequirement(kind string, check RequirementCheck) {
	if !slices.Contains(RequirementKinds, kind) {
		panic(fmt.Sprintf("onboarding: unknown requirement kind %q", kind))
	}
	s.mu.Lock()
	s.requirements[kind] = check
	s.mu.Unlock()
}

// AddOnPass registers a hook run, in order of registration, inside the
// transaction of every pass and waive, after the gate is stored and before
// the asset status moves.
func (s *Service) AddOnPass(h OnPassHook) {
	s.mu.Lock()
	s.onPass = append(s.onPass, h)
	s.mu.Unlock()
}

// AddOnCancel registers a hook run inside the cancel transaction.
func (s *Service) AddOnCancel(h OnCancelHook) {
	s.mu.Lock()
	s.onCancel = append(s.onCancel, h)
	s.mu.Unlock()
}

// SetNotifier sets who is told about gate moves; nil sends nothing.
func (s *Service) SetNotifier(n Notifier) {
	s.mu.Lock()
	s.notifier = n
	s.mu.Unlock()
}

// now is the platform time to the microsecond, as both stores keep it.
func (s *Service) now() time.Time { return s.clk.Now().UTC().Truncate(time.Microsecond) }

// Now is the platform time the service stamps records with, for the
// other onboarding groups' records of the same transaction.
func (s *Service) Now() time.Time { return s.now() }

// Mutate runs fn on the locked, visible, open workflow inside one
// transaction (see Store.Mutate): 404 onboarding_not_found when the actor
// cannot see it, 409 onboarding_closed when it is completed or cancelled.
// Every change of an onboarding goes through it; fn writes its audit
// entries with Audit using the ctx it receives.
func (s *Service) Mutate(ctx context.Context, actor Actor, id string, fn func(ctx context.Context, ob Onboarding) error) error {
	if !ValidID(id) {
		return notFound(id)
	}
	var touched []string
	ctx = context.WithValue(ctx, touchedKey{}, &touched)
	err := s.store.Mutate(ctx, actor.Visibility(), id, func(ctx context.Context, ob Onboarding) error {
		if !actor.CanSee(ob) {
			return notFound(id)
		}
		if ob.Status.Closed() {
			return errs.Conflictf(CodeOnboardingClosed, "onboarding %s is %s and read-only", id, ob.Status)
		}
		return fn(ctx, ob.WithReadiness())
	})
	// The asset cache may have been refilled from the old row while the
	// transaction ran: drop it once committed (or rolled back).
	for _, a := range touched {
		s.assets.Forget(a)
	}
	return err
}

// touchedKey carries the ids of the assets a transaction changed
// (moveAsset), to be forgotten by the asset cache once it has ended.
type touchedKey struct{}

// TouchedAsset records that the transaction of Mutate (or of an on-pass
// hook) that ctx carries changes asset id: the asset cache forgets it once
// the transaction has ended. Call it before the asset's update.
func TouchedAsset(ctx context.Context, id string) {
	if p, ok := ctx.Value(touchedKey{}).(*[]string); ok {
		*p = append(*p, id)
	}
}

// Audit appends an entry about ob by actor to the trail, in the
// transaction ctx carries; the request id comes from ctx (WithRequestID).
func (s *Service) Audit(ctx context.Context, actor Actor, ob Onboarding, action string, target Target, changes map[string][2]any) error {
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	if changes == nil {
		changes = map[string][2]any{}
	}
	return s.store.AppendAudit(ctx, AuditEntry{
		ID: id.String(), OrganizationID: ob.OrganizationID, OnboardingID: ob.ID, At: s.now(), Actor: actor, Action: action, Target: target,
		Changes: changes, RequestID: RequestID(ctx),
	})
}

// GateForKind returns ob's gate whose definition is of kind (rfi, dpl,
// installation, comm_test, prequalification, go_live), or 404
// gate_not_found when its template has none.
func (s *Service) GateForKind(_ context.Context, ob Onboarding, kind string) (Gate, error) {
	for _, g := range ob.Gates {
		if d, ok := g.Definition(); ok && d.Kind == kind {
			return g, nil
		}
	}
	return Gate{}, errs.E(errs.NotFound, CodeGateNotFound, "onboarding %s has no %s gate", ob.ID, kind)
}

// TouchGate moves the gate of kind from pending to in_progress: the first
// write of a group (a field saved, a DPL row, a document, a test). Call it
// inside Mutate; a gate in another status is left as it is.
func (s *Service) TouchGate(ctx context.Context, ob Onboarding, kind string) error {
	g, err := s.GateForKind(ctx, ob, kind)
	if err != nil || g.Status != GatePending {
		return err
	}
	g.Status, g.UpdatedAt = GateInProgress, s.now()
	return s.store.UpdateGate(ctx, ob.OrganizationID, g)
}

// GateLocked refuses a change of a gate's fields, DPL rows or documents
// while it is submitted, passed or waived (409 gate_locked).
func GateLocked(g Gate) error {
	if g.Status.Locked() {
		return errs.Conflictf(CodeGateLocked, "gate %s is %s; its fields, rows and documents cannot change", g.DefinitionID, g.Status)
	}
	return nil
}

// Get returns a workflow the actor sees.
func (s *Service) Get(ctx context.Context, actor Actor, id string) (Onboarding, error) {
	if !ValidID(id) {
		return Onboarding{}, notFound(id)
	}
	ob, err := s.store.Get(ctx, actor.Visibility(), id)
	if err != nil {
		return Onboarding{}, err
	}
	if !actor.CanSee(ob) {
		return Onboarding{}, notFound(id)
	}
	return ob.WithReadiness(), nil
}

// ListQuery is a list request: the store's filter and the derived ones.
type ListQuery struct {
	ListFilter
	IntegrationType assets.IntegrationType // of the workflow's template; "" for any
	Overdue         *bool
	Blocked         *bool
}

// List returns the workflows the actor sees matching q, ordered by next
// deadline (none last), then created_at, and their total before paging.
func (s *Service) List(ctx context.Context, actor Actor, q ListQuery) ([]Onboarding, int, error) {
	if actor.Task != nil {
		return []Onboarding{}, 0, nil
	}
	if q.OrganizationID != "" && !actor.Platform() && q.OrganizationID != actor.OrganizationID {
		return []Onboarding{}, 0, nil
	}
	all, err := s.store.List(ctx, actor.Visibility(), q.ListFilter)
	if err != nil {
		return nil, 0, err
	}
	now := s.now()
	out := []Onboarding{}
	for _, ob := range all {
		if q.Overdue != nil && (ob.OverdueGateCount(now) > 0) != *q.Overdue {
			continue
		}
		if q.Blocked != nil && (ob.BlockedGateCount() > 0) != *q.Blocked {
			continue
		}
		if t, _ := TemplateByID(ob.TemplateID); q.IntegrationType != "" && t.IntegrationType != q.IntegrationType {
			continue
		}
		out = append(out, ob.WithReadiness())
	}
	slices.SortStableFunc(out, func(a, b Onboarding) int {
		da, db := a.NextDeadline(), b.NextDeadline()
		switch {
		case da != nil && db != nil && *da != *db:
			return strings.Compare(da.String(), db.String())
		case da != nil && db == nil:
			return -1
		case da == nil && db != nil:
			return 1
		}
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	total := len(out)
	from := min(q.Offset, total)
	to := min(from+q.Limit, total)
	return out[from:to], total, nil
}

// GateOverride adjusts one gate at creation.
type GateOverride struct {
	Deadline *calendar.Day
	Waived   bool
	Note     string
}

// CreateRequest is the body of POST /v1/onboardings.
type CreateRequest struct {
	AssetID       string
	TemplateID    string        // "" for the template of the asset's integration type
	StartedOn     *calendar.Day // nil for today in Berlin
	TargetHCDate  *calendar.Day
	Notes         string
	GateOverrides map[string]GateOverride
}

// Create starts a workflow for an asset in status onboarding (platform
// only): its gates start pending with deadlines from started_on, none
// later than target_hc_date; gate_overrides set deadlines
// or waive gates (with the waiver's on-pass effects).
func (s *Service) Create(ctx context.Context, actor Actor, r CreateRequest) (Onboarding, error) {
	if err := actor.RequirePlatform("create onboarding workflows"); err != nil {
		return Onboarding{}, err
	}
	a, err := s.assets.Get(ctx, actor.Visibility(), r.AssetID)
	if errs.Is(err, errs.NotFound) {
		return Onboarding{}, errs.E(errs.NotFound, CodeAssetNotFound, "asset %q not found", r.AssetID)
	}
	if err != nil {
		return Onboarding{}, err
	}
	if a.IsVirtual() {
		return Onboarding{}, errs.Conflictf(assets.CodeVirtualAsset, "asset %q is a virtual asset; onboard its parent %q", a.ID, *a.ParentAssetID)
	}
	now := s.now()
	ob, err := s.newOnboarding(a, r, now, actor)
	if err != nil {
		return Onboarding{}, err
	}
	if a.OperationalStatus != assets.Onboarding {
		return Onboarding{}, errs.Conflictf(CodeAssetNotOnboarding, "asset %q is %s; a workflow starts only for an asset in status onboarding", a.ID, a.OperationalStatus)
	}
	var touched []string
	ctx = context.WithValue(ctx, touchedKey{}, &touched)
	defer func() {
		for _, id := range touched {
			s.assets.Forget(id)
		}
	}()
	err = s.store.Create(ctx, ob, func(ctx context.Context) error {
		if err := s.Audit(ctx, actor, ob, "onboarding.created", Target{"onboarding", ob.ID}, map[string][2]any{
			"asset_id": {nil, ob.AssetID}, "template_id": {nil, ob.TemplateID}, "overall_status": {nil, string(ob.Status)},
		}); err != nil {
			return err
		}
		ready := ob.WithReadiness()
		for _, g := range ready.Gates {
			if g.Status != GateWaived {
				continue
			}
			def, _ := g.Definition()
			if err := s.Audit(ctx, actor, ob, "gate.waived", Target{"gate", g.ID}, map[string][2]any{
				"status": {string(GatePending), string(GateWaived)}, "last_note": {nil, g.LastNote},
			}); err != nil {
				return err
			}
			if _, err := s.passed(ctx, actor, ready, g, def); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Onboarding{}, err
	}
	return s.Get(ctx, actor, ob.ID)
}

// newOnboarding builds the workflow and validates the request.
func (s *Service) newOnboarding(a assets.Asset, r CreateRequest, now time.Time, actor Actor) (Onboarding, error) {
	var v errs.Validation
	var t Template
	if r.TemplateID == "" {
		if a.IntegrationType == nil {
			v.Add("template_id", "is required: the asset has no asset_integration_type to choose its template by", nil)
		} else {
			t, _ = TemplateFor(*a.IntegrationType)
		}
	} else {
		var ok bool
		t, ok = TemplateByID(r.TemplateID)
		switch {
		case !ok:
			v.Add("template_id", "is not a template (fc_v1, mon_v1)", r.TemplateID)
		case a.IntegrationType != nil && t.IntegrationType != *a.IntegrationType:
			v.Add("template_id", fmt.Sprintf("is for %s assets; asset %q is %s", t.IntegrationType, a.ID, *a.IntegrationType), r.TemplateID)
		}
	}
	started := calendar.DayOf(now) // Europe/Berlin
	if r.StartedOn != nil {
		started = *r.StartedOn
	}
	if r.TargetHCDate != nil && r.TargetHCDate.String() < started.String() {
		v.Add("target_hc_date", "must not be before started_on "+started.String(), r.TargetHCDate.String())
	}
	checkText(&v, "notes", r.Notes, MaxNoteLength)
	for _, id := range sortedKeys(r.GateOverrides) {
		o := r.GateOverrides[id]
		loc := "gate_overrides." + id
		d, ok := t.Definition(id)
		switch {
		case t.TemplateID == "":
		case !ok:
			v.Add(loc, fmt.Sprintf("is not a gate definition of template %s (%s)", t.TemplateID, strings.Join(t.GateDefinitionIDs(), ", ")), id)
		case o.Waived && d.Kind == KindGoLive:
			v.Add(loc+".waived", "the go-live gate cannot be waived", true)
		case o.Waived && strings.TrimSpace(o.Note) == "":
			v.Add(loc+".note", "is required to waive a gate", o.Note)
		}
		checkText(&v, loc+".note", o.Note, MaxNoteLength)
		if o.Deadline != nil && o.Deadline.String() < started.String() {
			v.Add(loc+".deadline", "must not be before started_on "+started.String(), o.Deadline.String())
		}
	}
	if err := v.Err(); err != nil {
		return Onboarding{}, err
	}
	ob := Onboarding{
		ID: uuid.NewString(), OrganizationID: a.OrganizationID, AssetID: a.ID, TemplateID: t.TemplateID, Status: InProgress,
		StartedOn: started, TargetHCDate: r.TargetHCDate, Notes: r.Notes, CreatedAt: now, CreatedBy: actor.Name, UpdatedAt: now,
	}
	for _, d := range t.Gates {
		deadline := started.AddDays(d.DeadlineOffsetDays)
		// The workflow ends by the target date: no gate (each one before
		// go-live) is due after it.
		if r.TargetHCDate != nil && r.TargetHCDate.String() < deadline.String() {
			deadline = *r.TargetHCDate
		}
		g := Gate{ID: uuid.NewString(), OnboardingID: ob.ID, DefinitionID: d.DefinitionID, Order: d.Order, Status: GatePending,
			Deadline: &deadline, UpdatedAt: now}
		if o, ok := r.GateOverrides[d.DefinitionID]; ok {
			if o.Deadline != nil {
				dl := *o.Deadline
				g.Deadline = &dl
			}
			if o.Waived {
				at := now
				g.Status, g.LastNote, g.PassedAt, g.PassedBy = GateWaived, o.Note, &at, actor.Name
			}
		}
		ob.Gates = append(ob.Gates, g)
	}
	return ob, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkText refuses a text longer than limit characters or not valid UTF-8.
func checkText(v *errs.Validation, loc, s string, limit int) {
	switch {
	case !textrule.Text(s):
		v.Add(loc, textrule.TextMessage, nil)
	case utf8.RuneCountInString(s) > limit:
		v.Add(loc, fmt.Sprintf("must be at most %d characters", limit), nil)
	}
}

// Patch changes a workflow's own members; nil leaves one as it is.
type Patch struct {
	TargetHCDate *assets.Nullable[calendar.Day]
	Notes        *string
}

// Update applies p to an open workflow the actor sees. A target date
// earlier than the go-live gate's deadline moves that deadline to it.
func (s *Service) Update(ctx context.Context, actor Actor, id string, p Patch) (Onboarding, error) {
	err := s.Mutate(ctx, actor, id, func(ctx context.Context, ob Onboarding) error {
		var v errs.Validation
		changes := map[string][2]any{}
		if p.Notes != nil {
			checkText(&v, "notes", *p.Notes, MaxNoteLength)
			if *p.Notes != ob.Notes {
				changes["notes"] = [2]any{ob.Notes, *p.Notes}
				ob.Notes = *p.Notes
			}
		}
		if p.TargetHCDate != nil {
			old := dayValue(ob.TargetHCDate)
			ob.TargetHCDate = nil
			if !p.TargetHCDate.Null {
				d := p.TargetHCDate.Value
				if d.String() < ob.StartedOn.String() {
					v.Add("target_hc_date", "must not be before started_on "+ob.StartedOn.String(), d.String())
				}
				ob.TargetHCDate = &d
			}
			if nv := dayValue(ob.TargetHCDate); nv != old {
				changes["target_hc_date"] = [2]any{old, nv}
			}
		}
		if err := v.Err(); err != nil {
			return err
		}
		if len(changes) == 0 {
			return nil
		}
		ob.UpdatedAt = s.now()
		if err := s.store.Update(ctx, ob); err != nil {
			return err
		}
		if err := s.Audit(ctx, actor, ob, "onboarding.updated", Target{"onboarding", ob.ID}, changes); err != nil {
			return err
		}
		if ob.TargetHCDate == nil {
			return nil
		}
		for _, g := range ob.Gates {
			if g.Status.Done() || g.Deadline == nil || g.Deadline.String() <= ob.TargetHCDate.String() {
				continue
			}
			if err := s.setDeadline(ctx, actor, ob, g, *ob.TargetHCDate); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Onboarding{}, err
	}
	return s.Get(ctx, actor, id)
}

func dayValue(d *calendar.Day) any {
	if d == nil {
		return nil
	}
	return d.String()
}

func (s *Service) setDeadline(ctx context.Context, actor Actor, ob Onboarding, g Gate, d calendar.Day) error {
	old := dayValue(g.Deadline)
	g.Deadline, g.UpdatedAt = &d, s.now()
	if err := s.store.UpdateGate(ctx, ob.OrganizationID, g); err != nil {
		return err
	}
	return s.Audit(ctx, actor, ob, "gate.updated", Target{"gate", g.ID}, map[string][2]any{"deadline": {old, d.String()}})
}

// Cancel ends an in_progress workflow (platform only): the asset keeps its
// status; the cancel hooks (links, sessions, uploads) run in the same
// transaction.
func (s *Service) Cancel(ctx context.Context, actor Actor, id, reason string) (Onboarding, error) {
	err := s.Mutate(ctx, actor, id, func(ctx context.Context, ob Onboarding) error {
		if err := actor.RequirePlatform("cancel onboarding workflows"); err != nil {
			return err
		}
		var v errs.Validation
		if strings.TrimSpace(reason) == "" {
			v.Add("reason", "is required", reason)
		}
		checkText(&v, "reason", reason, MaxReasonLength)
		if err := v.Err(); err != nil {
			return err
		}
		now := s.now()
		ob.Status, ob.CancelledAt, ob.CancelReason, ob.UpdatedAt = Cancelled, &now, reason, now
		if err := s.store.Update(ctx, ob); err != nil {
			return err
		}
		s.mu.RLock()
		hooks := slices.Clone(s.onCancel)
		s.mu.RUnlock()
		for _, h := range hooks {
			if err := h(ctx, ob); err != nil {
				return err
			}
		}
		return s.Audit(ctx, actor, ob, "onboarding.cancelled", Target{"onboarding", ob.ID}, map[string][2]any{
			"overall_status": {string(InProgress), string(Cancelled)}, "cancel_reason": {nil, reason},
		})
	})
	if err != nil {
		return Onboarding{}, err
	}
	return s.Get(ctx, actor, id)
}

// gate returns the workflow's gate id, 404 gate_not_found when it has none.
func gateOf(ob Onboarding, id string) (Gate, error) {
	if g, ok := ob.Gate(id); ok {
		return g, nil
	}
	return Gate{}, errs.E(errs.NotFound, CodeGateNotFound, "onboarding %s has no gate %q", ob.ID, id)
}

// GetGate returns one gate of a workflow the actor sees.
func (s *Service) GetGate(ctx context.Context, actor Actor, onboardingID, gateID string) (Onboarding, Gate, error) {
	ob, err := s.Get(ctx, actor, onboardingID)
	if err != nil {
		return Onboarding{}, Gate{}, err
	}
	g, err := gateOf(ob, gateID)
	return ob, g, err
}

// UpdateGate sets a gate's deadline (audited with the old value).
func (s *Service) UpdateGate(ctx context.Context, actor Actor, onboardingID, gateID string, deadline *calendar.Day) (Gate, error) {
	return s.PatchGate(ctx, actor, onboardingID, gateID, GatePatch{Deadline: deadline})
}

// AssigneeCheck refuses a gate assignee that is not a contact of ob
// holding def's owner or a contributor role (422
// body.assignee_contact_id); the contacts group provides it.
type AssigneeCheck func(ctx context.Context, ob Onboarding, def GateDefinition, contactID string) error

// SetAssigneeCheck installs the check of PatchGate's assignee; without
// one every assignee is refused.
func (s *Service) SetAssigneeCheck(c AssigneeCheck) {
	s.mu.Lock()
	s.assigneeCheck = c
	s.mu.Unlock()
}

// GatePatch changes a gate; nil leaves a member as it is.
type GatePatch struct {
	Deadline *calendar.Day
	// Assignee sets assignee_contact_id; Null clears it.
	Assignee *assets.Nullable[string]
}

// PatchGate applies p to a gate, each change audited with its old value
// (gate.updated).
func (s *Service) PatchGate(ctx context.Context, actor Actor, onboardingID, gateID string, p GatePatch) (Gate, error) {
	err := s.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob Onboarding) error {
		g, err := gateOf(ob, gateID)
		if err != nil {
			return err
		}
		if d := p.Deadline; d != nil && (g.Deadline == nil || *g.Deadline != *d) {
			if d.String() < ob.StartedOn.String() {
				return errs.Invalidf("deadline", d.String(), "must not be before the workflow's started_on %s", ob.StartedOn)
			}
			if err := s.setDeadline(ctx, actor, ob, g, *d); err != nil {
				return err
			}
			g.Deadline = d
		}
		if a := p.Assignee; a != nil {
			next := ""
			if !a.Null {
				next = a.Value
				def, _ := g.Definition()
				s.mu.RLock()
				check := s.assigneeCheck
				s.mu.RUnlock()
				if check == nil {
					return errs.Invalidf("assignee_contact_id", next, "must be a contact of the onboarding")
				}
				if err := check(ctx, ob, def, next); err != nil {
					return err
				}
			}
			if next != g.AssigneeContactID {
				old := g.AssigneeContactID
				g.AssigneeContactID, g.UpdatedAt = next, s.now()
				if err := s.store.UpdateGate(ctx, ob.OrganizationID, g); err != nil {
					return err
				}
				if err := s.Audit(ctx, actor, ob, "gate.updated", Target{"gate", g.ID}, map[string][2]any{
					"assignee_contact_id": {optString(old), optString(next)}}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return Gate{}, err
	}
	_, g, err := s.GetGate(ctx, actor, onboardingID, gateID)
	return g, err
}

func optString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// The audit actions of the gate moves, by action.
var gateAuditActions = map[Action]string{
	ActionSubmit: "gate.submitted", ActionRequestChanges: "gate.changes_requested", ActionPass: "gate.passed",
	ActionWaive: "gate.waived", ActionBlock: "gate.blocked", ActionUnblock: "gate.unblocked", ActionReopen: "gate.reopened",
}

// Act moves a gate (submit, request_changes, pass, waive, block, unblock,
// reopen) as section 3 of docs/onboarding.md says: who may, the note it
// needs, readiness and requirements on submit, the on-pass effects on pass
// and waive, the audit entry and the notification, in one transaction.
func (s *Service) Act(ctx context.Context, actor Actor, onboardingID, gateID string, action Action, note string) (Gate, error) {
	if _, ok := gateAuditActions[action]; !ok {
		return Gate{}, fmt.Errorf("onboarding: %q is not a gate action of the API", action)
	}
	err := s.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob Onboarding) error {
		g, err := gateOf(ob, gateID)
		if err != nil {
			return err
		}
		def, ok := g.Definition()
		if !ok {
			return fmt.Errorf("gate %s has unknown definition %q", g.ID, g.DefinitionID)
		}
		if err := s.mayAct(actor, g, def, action); err != nil {
			return err
		}
		if err := checkNote(action, note); err != nil {
			return err
		}
		next, err := Transition(g.Status, action, g.BlockedFrom)
		if err != nil {
			return err
		}
		switch {
		case action == ActionWaive && def.Kind == KindGoLive:
			return errs.E(errs.Invalid, CodeGateNotWaivable, "the go-live gate cannot be waived")
		case action == ActionReopen && def.Kind == KindGoLive:
			return errs.Conflictf(CodeGateNotReopenable, "the go-live gate cannot be reopened")
		case action == ActionSubmit && !g.Ready:
			return errs.Conflictf(CodeGateNotReady, "gate %s depends on %s, not yet passed or waived", def.DefinitionID, strings.Join(def.DependsOn, ", "))
		}
		if action == ActionSubmit || (action == ActionPass && def.Kind == KindGoLive) {
			if err := s.checkRequirements(ctx, ob, g, def); err != nil {
				return err
			}
		}
		prev := g
		now := s.now()
		g.Status, g.UpdatedAt = next, now
		switch action {
		case ActionSubmit:
			g.SubmittedAt, g.SubmittedBy = &now, actor.Name
		case ActionRequestChanges, ActionWaive, ActionReopen:
			g.LastNote = note
		case ActionBlock:
			g.BlockedFrom, g.BlockedBy, g.LastNote = prev.Status, actor.ID, note
		case ActionUnblock:
			g.BlockedFrom, g.BlockedBy = "", ""
		}
		if action == ActionPass || action == ActionWaive {
			g.PassedAt, g.PassedBy = &now, actor.Name
			if note != "" {
				g.LastNote = note
			}
		}
		if err := s.store.UpdateGate(ctx, ob.OrganizationID, g); err != nil {
			return err
		}
		changes := map[string][2]any{"status": {string(prev.Status), string(next)}}
		if g.LastNote != prev.LastNote {
			changes["last_note"] = [2]any{prev.LastNote, g.LastNote}
		}
		if err := s.Audit(ctx, actor, ob, gateAuditActions[action], Target{"gate", g.ID}, changes); err != nil {
			return err
		}
		for i := range ob.Gates {
			if ob.Gates[i].ID == g.ID {
				ob.Gates[i] = g
			}
		}
		ob = ob.WithReadiness()
		if action == ActionPass || action == ActionWaive {
			if ob, err = s.passed(ctx, actor, ob, g, def); err != nil {
				return err
			}
		}
		s.mu.RLock()
		n := s.notifier
		s.mu.RUnlock()
		if n != nil {
			return n.GateChanged(ctx, ob, g, string(action), actor, note)
		}
		return nil
	})
	if err != nil {
		return Gate{}, err
	}
	_, g, err := s.GetGate(ctx, actor, onboardingID, gateID)
	return g, err
}

// mayAct says whether actor may take action on g: 403 platform_only for
// the reviewer's actions, 403 not_gate_owner for an organisation user
// submitting a gate not owned by asset_owner, 404 for a task session on a
// gate its role does not own.
func (s *Service) mayAct(actor Actor, g Gate, def GateDefinition, action Action) error {
	if actor.Platform() {
		return nil
	}
	switch action {
	case ActionSubmit:
		// A user holding the owner role through a contact (resolved by
		// ResolveTask, not a preview) submits the gates that role owns.
		if actor.Task == nil && actor.PreviewAs == "" && actor.Role != "" && actor.Role == def.OwnerRole {
			return nil
		}
		if actor.Task != nil {
			if actor.Role != def.OwnerRole {
				return errs.E(errs.NotFound, CodeGateNotFound, "gate %q is not among the gates of role %s", g.ID, actor.Role)
			}
			return nil
		}
		if def.OwnerRole != RoleAssetOwner {
			return errs.Forbiddenf(CodeNotGateOwner, "gate %s is owned by %s; only its owners or the platform may submit it", def.DefinitionID, def.OwnerRole)
		}
		return nil
	case ActionBlock:
		if actor.Task == nil {
			return nil
		}
	case ActionUnblock:
		if actor.Task == nil && g.BlockedBy == actor.ID {
			return nil
		}
		if actor.Task == nil {
			return errs.Forbiddenf(CodePlatformOnly, "only the platform or the user who blocked gate %s may unblock it", def.DefinitionID)
		}
	}
	if actor.Task != nil {
		return errs.E(errs.NotFound, CodeGateNotFound, "gate %q is not among the gates of role %s", g.ID, actor.Role)
	}
	return actor.RequirePlatform(strings.ReplaceAll(string(action), "_", " ") + " gates")
}

// checkNote requires the note where section 3 does.
func checkNote(action Action, note string) error {
	var v errs.Validation
	field := "note"
	if action == ActionBlock {
		field = "reason"
	}
	switch action {
	case ActionRequestChanges, ActionWaive, ActionReopen, ActionBlock:
		if strings.TrimSpace(note) == "" {
			v.Add(field, "is required to "+strings.ReplaceAll(string(action), "_", " "), note)
		}
	}
	checkText(&v, field, note, MaxNoteLength)
	return v.Err()
}

// checkRequirements refuses a submit (or the go-live pass) while
// something of Unmet is unmet: 422 gate_requirements_unmet listing each.
func (s *Service) checkRequirements(ctx context.Context, ob Onboarding, g Gate, def GateDefinition) error {
	unmet, err := s.Unmet(ctx, ob, g, def)
	if err != nil || len(unmet) == 0 {
		return err
	}
	e := errs.E(errs.Invalid, CodeGateRequirementsUnmet, "gate %s has %d unmet requirements", def.DefinitionID, len(unmet))
	for _, u := range unmet {
		e.Fields = append(e.Fields, errs.FieldError{Location: u.Location, Message: u.Detail})
	}
	return e
}

// Unmet runs the registered checks of the requirement flags def sets and,
// for the go-live gate, requires every other gate passed or waived; it
// lists what is unmet (the gate reads show it as requirements_unmet).
func (s *Service) Unmet(ctx context.Context, ob Onboarding, g Gate, def GateDefinition) ([]Unmet, error) {
	flags := map[string]bool{
		RequireFields: def.Requirements.Fields, RequireDocuments: def.Requirements.Documents, RequireDPL: def.Requirements.DPLComplete,
		RequireCommunicationTest: def.Requirements.CommunicationTest, RequirePrequalification: def.Requirements.Prequalification,
	}
	s.mu.RLock()
	checks := maps.Clone(s.requirements)
	s.mu.RUnlock()
	unmet := []Unmet{}
	for _, kind := range RequirementKinds {
		check := checks[kind]
		if !flags[kind] || check == nil {
			continue
		}
		u, err := check(ctx, ob, g, def)
		if err != nil {
			return nil, err
		}
		unmet = append(unmet, u...)
	}
	if def.Kind == KindGoLive {
		for _, o := range ob.Gates {
			if o.ID != g.ID && !o.Status.Done() {
				unmet = append(unmet, Unmet{Location: "gates." + o.DefinitionID, Detail: fmt.Sprintf("is %s, not passed or waived", o.Status)})
			}
		}
	}
	return unmet, nil
}

// passed applies the on-pass effects of g (passed or waived): the hooks,
// the asset's operational status, the workflow's completion.
func (s *Service) passed(ctx context.Context, actor Actor, ob Onboarding, g Gate, def GateDefinition) (Onboarding, error) {
	s.mu.RLock()
	hooks := slices.Clone(s.onPass)
	s.mu.RUnlock()
	for _, h := range hooks {
		if err := h(ctx, ob, g, def, actor); err != nil {
			return ob, err
		}
	}
	if to := def.OnPass.AssetOperationalStatus; to != "" {
		if err := s.moveAsset(ctx, actor, ob, def, to); err != nil {
			return ob, err
		}
	}
	if def.OnPass.CompleteWorkflow && g.Status == GatePassed {
		now := s.now()
		ob.Status, ob.CompletedAt, ob.UpdatedAt = Completed, &now, now
		if err := s.store.Update(ctx, ob); err != nil {
			return ob, err
		}
		if err := s.Audit(ctx, actor, ob, "onboarding.completed", Target{"onboarding", ob.ID}, map[string][2]any{
			"overall_status": {string(InProgress), string(Completed)},
		}); err != nil {
			return ob, err
		}
	}
	return ob, nil
}

// moveAsset moves the asset's operational status forward to to (never
// back: a gate passed again after a reopen leaves a later status as it
// is), with the reason "onboarding <id>: <gate title>", through the asset
// registry inside the transaction.
func (s *Service) moveAsset(ctx context.Context, actor Actor, ob Onboarding, def GateDefinition, to assets.OperationalStatus) error {
	a, err := s.assets.Get(ctx, auth.Visibility{All: true}, ob.AssetID)
	if err != nil {
		return err
	}
	from := a.OperationalStatus
	forward := (to == assets.OnboardingTesting && from == assets.Onboarding) ||
		(to == assets.Live && (from == assets.Onboarding || from == assets.OnboardingTesting))
	if !forward {
		return nil
	}
	TouchedAsset(ctx, ob.AssetID)
	reason := fmt.Sprintf("onboarding %s: %s", ob.ID, def.Title.EN)
	_, err = s.assets.Update(context.WithValue(ctx, movingKey{}, ob.ID), auth.Visibility{All: true}, ob.AssetID, assets.Update{
		OperationalStatus: assets.Some(to), OperationalStatusReason: assets.Set(reason),
	})
	if errs.Is(err, errs.Invalid) {
		var e *errs.Error
		errors.As(err, &e)
		out := errs.Conflictf(CodeAssetUpdateRefused, "the asset refused the change of gate %s: %s", def.DefinitionID, e.Message)
		out.Fields = e.Fields
		return out
	}
	if err != nil {
		return err
	}
	return s.Audit(ctx, actor, ob, "asset.status_changed", Target{"asset", ob.AssetID}, map[string][2]any{
		"asset_operational_status": {string(from), string(to)}, "operational_status_reason": {nil, reason},
	})
}

// AuditTrail returns a visible workflow's audit entries, newest first.
func (s *Service) AuditTrail(ctx context.Context, actor Actor, onboardingID string, f AuditFilter) ([]AuditEntry, int, error) {
	if _, err := s.Get(ctx, actor, onboardingID); err != nil {
		return nil, 0, err
	}
	return s.store.Audit(ctx, actor.Visibility(), onboardingID, f)
}

// movingKey marks the context of a workflow moving its own asset's status,
// which OnboardingInProgress lets through.
type movingKey struct{}

// OnboardingInProgress implements assets.StatusOwner: while a workflow is
// in progress it alone moves the asset's operational status (docs/onboarding.md,
// section 3); the asset API's change is 409 onboarding_in_progress.
func (s *Service) OnboardingInProgress(ctx context.Context, assetID string) (string, bool, error) {
	id, ok, err := s.store.InProgressFor(ctx, assetID)
	if err != nil || !ok {
		return "", false, err
	}
	if moving, _ := ctx.Value(movingKey{}).(string); moving == id {
		return "", false, nil
	}
	return id, true, nil
}

var _ assets.StatusOwner = (*Service)(nil)
