package tasks

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/fields"
)

// TaskDocument is a current, not deleted document of one of a role's
// gates' slots, as the task detail lists it.
type TaskDocument struct {
	ID                 string
	OnboardingID       string
	GateDefinitionID   string
	DocumentType       string
	Filename           string
	SizeBytes          int64
	ContentType        string
	UploadedAt         time.Time
	UploadedByUserName string
	Version            int
}

// DocumentLister lists the documents a task sees (the documents group).
type DocumentLister interface {
	ForTask(ctx context.Context, task onboarding.Task) ([]TaskDocument, error)
}

// ContactViewers name a contact of a workflow and give its language, ""
// for the branding's default (the contacts group).
type ContactViewers interface {
	ContactViewer(ctx context.Context, organizationID, onboardingID, contactID string) (name, language string, err error)
}

// UserTask is a workflow on which contacts carry a console user's id, and
// the roles they hold.
type UserTask struct {
	OrganizationID string
	OnboardingID   string
	Roles          []onboarding.TaskRole
}

// UserTasks finds the workflows a console user is a contact on (the
// contacts group).
type UserTasks interface {
	TasksOfUser(ctx context.Context, userID string) ([]UserTask, error)
}

// Brander resolves the branding of an organisation (*branding.Service).
type Brander interface {
	Resolve(ctx context.Context, organizationID string) (branding.Branding, error)
}

// Assets reads the asset of a workflow (*assets.Service).
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, id string) (assets.Asset, error)
}

// Fields reads the RfI values of a workflow's gates (*fields.Service).
type Fields interface {
	Of(ctx context.Context, ob onboarding.Onboarding) (map[string]fields.Values, error)
}

// Deps are the service's collaborators; a nil Branding, Documents,
// Contacts, Users or Tests reads as none (the platform's default branding, no
// documents, no names, no tasks of console users).
type Deps struct {
	Onboarding *onboarding.Service
	Assets     Assets
	Fields     Fields
	Branding   Brander
	Documents  DocumentLister
	Contacts   ContactViewers
	Users      UserTasks
	Tests      CommunicationTests
}

// CommunicationTests gives the latest communication test of a workflow in
// its wire form, nil when none ran (the DPL group); the task detail shows
// it as structured_data.communication_test of the comm-test gate.
type CommunicationTests interface {
	Latest(ctx context.Context, organizationID, onboardingID string) (json.RawMessage, error)
}

// Service composes the task list and the task detail.
type Service struct{ d Deps }

// NewService returns the task service.
func NewService(d Deps) *Service { return &Service{d: d} }

// Item is one entry of the task list: a workflow, the role, and the role's
// current gate.
type Item struct {
	Task     onboarding.Task
	Asset    *assets.Asset // nil when the asset is gone
	Gate     onboarding.Gate
	Branding branding.Branding
}

// List returns the caller's tasks: a magic-link session its one (workflow,
// role); a console user one per (workflow, role) a contact carrying their
// user id holds and ResolveTask grants; anyone else none. Ordered by the
// current gate's deadline (none last), then the asset's name.
func (s *Service) List(ctx context.Context, actor onboarding.Actor) ([]Item, error) {
	var resolved []onboarding.Task
	add := func(id string, role onboarding.TaskRole) error {
		t, err := s.d.Onboarding.ResolveTask(ctx, actor, id, string(role))
		if errs.Is(err, errs.NotFound) {
			return nil
		}
		if err == nil {
			resolved = append(resolved, t)
		}
		return err
	}
	switch {
	case actor.Task != nil:
		if err := add(actor.Task.OnboardingID, ""); err != nil {
			return nil, err
		}
	case actor.Kind == onboarding.ActorUser && actor.PreviewAs == "" && s.d.Users != nil:
		uts, err := s.d.Users.TasksOfUser(ctx, actor.ID)
		if err != nil {
			return nil, err
		}
		for _, ut := range uts {
			for _, r := range onboarding.ExternalRoles {
				if !slices.Contains(ut.Roles, r) {
					continue
				}
				if err := add(ut.OnboardingID, r); err != nil {
					return nil, err
				}
			}
		}
	}
	out := make([]Item, 0, len(resolved))
	for _, t := range resolved {
		a, err := s.asset(ctx, t.Onboarding)
		if err != nil {
			return nil, err
		}
		b, err := s.branding(ctx, t.Onboarding)
		if err != nil {
			return nil, err
		}
		out = append(out, Item{Task: t, Asset: a, Gate: CurrentGate(t), Branding: b})
	}
	slices.SortStableFunc(out, func(a, b Item) int {
		da, db := a.Gate.Deadline, b.Gate.Deadline
		switch {
		case da != nil && db == nil:
			return -1
		case da == nil && db != nil:
			return 1
		case da != nil && db != nil && *da != *db:
			return strings.Compare(da.String(), db.String())
		}
		return cmp.Or(strings.Compare(assetName(a.Asset), assetName(b.Asset)), strings.Compare(a.Task.Onboarding.ID, b.Task.Onboarding.ID),
			strings.Compare(string(a.Task.Role), string(b.Task.Role)))
	})
	return out, nil
}

func assetName(a *assets.Asset) string {
	if a == nil {
		return ""
	}
	return a.Name
}

// CurrentGate is the role's current gate: the first by order the role owns
// that is not passed or waived, the last it owns when all are. A role
// owning no gate (tso) is judged by the gates it contributes to, and one
// working on none by every gate.
func CurrentGate(t onboarding.Task) onboarding.Gate {
	var owned, worked []onboarding.Gate
	for _, g := range t.Onboarding.Gates {
		def, ok := g.Definition()
		if !ok {
			continue
		}
		if t.Owns(def) {
			owned = append(owned, g)
		}
		if t.Works(def) {
			worked = append(worked, g)
		}
	}
	gates := owned
	if len(gates) == 0 {
		gates = worked
	}
	if len(gates) == 0 {
		gates = t.Onboarding.Gates
	}
	if len(gates) == 0 {
		return onboarding.Gate{}
	}
	for _, g := range gates {
		if !g.Status.Done() {
			return g
		}
	}
	return gates[len(gates)-1]
}

func (s *Service) asset(ctx context.Context, ob onboarding.Onboarding) (*assets.Asset, error) {
	// The caller sees the workflow, so its asset is read unfiltered.
	a, err := s.d.Assets.Get(ctx, auth.Visibility{All: true}, ob.AssetID)
	switch {
	case err == nil:
		return &a, nil
	case errs.Is(err, errs.NotFound):
		return nil, nil
	}
	return nil, err
}

func (s *Service) branding(ctx context.Context, ob onboarding.Onboarding) (branding.Branding, error) {
	if s.d.Branding == nil {
		return branding.Branding{OrganizationID: auth.PlatformOrganization}, nil
	}
	return s.d.Branding.Resolve(ctx, ob.OrganizationID)
}

// Slot is a document slot of one of the role's gates.
type Slot struct {
	GateDefinitionID string
	onboarding.DocumentSlot
}

// Detail is what a role sees of a workflow (document 3, task detail).
type Detail struct {
	Task  onboarding.Task
	Asset *assets.Asset // nil when the asset is gone
	// TaskGateIDs are the gates the role owns or contributes to, in order.
	TaskGateIDs []string
	// StructuredData holds the RfI values of the role's gates, by gate id;
	// the other gates have none.
	StructuredData map[string]map[string]json.RawMessage
	Slots          []Slot
	Documents      []TaskDocument
	Branding       branding.Branding
	// ViewerContactName is the contact of a magic-link session; "" for a
	// user (in preview or holding a role).
	ViewerContactName string
	// Language is the one the task pages open in: a session's contact's,
	// else the branding's default.
	Language string
}

// Detail composes the task detail of a resolved task. Its reads (asset,
// RfI values, communication test, documents, branding, the contact's
// name) are independent, so they run at once: the page waits for its
// slowest read, not for their sum. It must therefore not run inside a
// store transaction, whose one connection serves one statement at a time.
func (s *Service) Detail(ctx context.Context, t onboarding.Task) (Detail, error) {
	d := Detail{Task: t, TaskGateIDs: []string{}, StructuredData: map[string]map[string]json.RawMessage{}, Slots: []Slot{},
		Documents: []TaskDocument{}}
	worksCommTest := false
	for _, g := range t.Onboarding.Gates {
		if def, ok := g.Definition(); ok && t.Works(def) && def.Kind == "comm_test" {
			worksCommTest = true
		}
	}
	var values map[string]fields.Values
	var latestTest json.RawMessage
	var docs []TaskDocument
	var contactLanguage string
	group, gctx := errgroup.WithContext(ctx)
	group.Go(func() (err error) {
		d.Asset, err = s.asset(gctx, t.Onboarding)
		return err
	})
	group.Go(func() (err error) {
		values, err = s.d.Fields.Of(gctx, t.Onboarding)
		return err
	})
	if worksCommTest && s.d.Tests != nil {
		group.Go(func() (err error) {
			latestTest, err = s.d.Tests.Latest(gctx, t.Onboarding.OrganizationID, t.Onboarding.ID)
			return err
		})
	}
	if s.d.Documents != nil {
		group.Go(func() (err error) {
			docs, err = s.d.Documents.ForTask(gctx, t)
			return err
		})
	}
	group.Go(func() (err error) {
		d.Branding, err = s.branding(gctx, t.Onboarding)
		return err
	})
	if s.d.Contacts != nil && t.Actor.Task != nil {
		group.Go(func() (err error) {
			d.ViewerContactName, contactLanguage, err = s.d.Contacts.ContactViewer(gctx, t.Onboarding.OrganizationID, t.Onboarding.ID,
				t.Actor.Task.ContactID)
			return err
		})
	}
	if err := group.Wait(); err != nil {
		return Detail{}, err
	}
	for _, g := range t.Onboarding.Gates {
		def, ok := g.Definition()
		if !ok || !t.Works(def) {
			continue
		}
		d.TaskGateIDs = append(d.TaskGateIDs, g.ID)
		v := values[g.ID].Fields
		if v == nil {
			v = map[string]json.RawMessage{}
		}
		if def.Kind == "comm_test" && latestTest != nil {
			v = maps.Clone(v)
			v["communication_test"] = latestTest
		}
		d.StructuredData[g.ID] = v
		for _, sl := range def.DocumentSlots {
			d.Slots = append(d.Slots, Slot{GateDefinitionID: def.DefinitionID, DocumentSlot: sl})
		}
	}
	if docs != nil {
		d.Documents = docs
	}
	d.Language = cmp.Or(contactLanguage, d.Branding.Language())
	return d, nil
}

// Submit submits a gate the task's role owns (endpoint 31) with the rules
// of onboarding.Service.Act; a gate it does not own is 404 gate_not_found.
// It returns the task with the workflow as it is after the submit.
func (s *Service) Submit(ctx context.Context, t onboarding.Task, gateID, note string) (onboarding.Task, error) {
	g, ok := t.Onboarding.Gate(gateID)
	def, known := g.Definition()
	if !ok || !known || !t.Owns(def) {
		return onboarding.Task{}, errs.E(errs.NotFound, onboarding.CodeGateNotFound, "gate %q is not among the gates of role %s", gateID, t.Role)
	}
	if _, err := s.d.Onboarding.Act(ctx, t.Actor, t.Onboarding.ID, gateID, onboarding.ActionSubmit, note); err != nil {
		return onboarding.Task{}, err
	}
	ob, err := s.d.Onboarding.Get(ctx, t.Actor, t.Onboarding.ID)
	if err != nil {
		return onboarding.Task{}, err
	}
	t.Onboarding = ob
	return t, nil
}
