package comments

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/textrule"
)

// MaxBodyLength bounds a comment's body in characters.
const MaxBodyLength = 4000

// Visibility says who sees a comment.
type Visibility string

// The visibilities: shared with the task roles, or internal to the asset's
// organisation and the platform.
const (
	Shared   Visibility = "shared"
	Internal Visibility = "internal"
)

// Comment is one immutable message on an onboarding or one of its gates.
type Comment struct {
	ID             string // comment_id, a UUID
	OrganizationID string // the onboarding's
	OnboardingID   string
	GateID         string // "" for the onboarding-level thread
	Body           string
	Visibility     Visibility
	AuthorKind     string // onboarding.ActorUser, ActorIntegration, ActorContact
	AuthorID       string
	AuthorName     string
	AuthorRole     onboarding.TaskRole // "" for an organisation user without a task role
	CreatedAt      time.Time           // platform clock
}

// Filter narrows a comment list.
type Filter struct {
	GateID     string     // "" for every thread
	Visibility Visibility // "" for both
}

// Store persists comments. Every read is filtered by auth.Visibility in the
// query.
type Store interface {
	// Insert stores c; it joins the transaction ctx carries.
	Insert(ctx context.Context, c Comment) error
	// List returns the comments of a visible onboarding matching f, newest
	// first (an onboarding has hundreds, not more: the service pages).
	List(ctx context.Context, v auth.Visibility, onboardingID string, f Filter) ([]Comment, error)
}

// CommentMail is what the Notifier mails: the comment and the task roles
// whose contacts are told (the reviewer is platform_onboarding).
type CommentMail struct {
	CommentID      string
	GateID         string
	AuthorName     string
	Body           string
	Visibility     Visibility
	RecipientRoles []onboarding.TaskRole
}

// Notifier tells the people concerned about a new comment; it runs inside
// the transaction (an outbox writer joins it).
type Notifier interface {
	Comment(ctx context.Context, ob onboarding.Onboarding, c CommentMail) error
}

// Service posts and lists comments on the onboarding core's workflows.
type Service struct {
	core     *onboarding.Service
	store    Store
	clk      clock.Clock
	notifier Notifier
}

// NewService returns the comment service; notifier nil mails nothing.
func NewService(core *onboarding.Service, store Store, clk clock.Clock, notifier Notifier) *Service {
	return &Service{core: core, store: store, clk: clk, notifier: notifier}
}

// Query is a list request.
type Query struct {
	GateID        string
	Visibility    string // "", shared or internal
	Limit, Offset int
}

// List returns the comments of a workflow the actor sees (the manager
// side: both visibilities), newest first, and their total before paging.
func (s *Service) List(ctx context.Context, actor onboarding.Actor, onboardingID string, q Query) ([]Comment, int, error) {
	ob, err := s.core.Get(ctx, actor, onboardingID)
	if err != nil {
		return nil, 0, err
	}
	f, err := filterOf(ob, q)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.store.List(ctx, actor.Visibility(), ob.ID, f)
	if err != nil {
		return nil, 0, err
	}
	return page(list, q)
}

// TaskList returns the shared comments a task role sees: the
// onboarding-level thread and the threads of the gates it works on.
func (s *Service) TaskList(ctx context.Context, t onboarding.Task, q Query) ([]Comment, int, error) {
	q.Visibility = string(Shared)
	f, err := filterOf(t.Onboarding, q)
	if err != nil {
		return nil, 0, err
	}
	if f.GateID != "" && !slices.Contains(RoleGates(t), f.GateID) {
		return nil, 0, errs.Invalidf("query.gate_id", f.GateID, "is not a gate of role %s", t.Role)
	}
	list, err := s.store.List(ctx, t.Actor.Visibility(), t.Onboarding.ID, f)
	if err != nil {
		return nil, 0, err
	}
	gates := RoleGates(t)
	list = slices.DeleteFunc(list, func(c Comment) bool { return c.GateID != "" && !slices.Contains(gates, c.GateID) })
	return page(list, q)
}

// RoleGates returns the ids of the gates the task's role owns or
// contributes to.
func RoleGates(t onboarding.Task) []string {
	var out []string
	for _, g := range t.Onboarding.Gates {
		if d, ok := g.Definition(); ok && t.Works(d) {
			out = append(out, g.ID)
		}
	}
	return out
}

func filterOf(ob onboarding.Onboarding, q Query) (Filter, error) {
	var v errs.Validation
	if q.GateID != "" {
		if _, ok := ob.Gate(q.GateID); !ok {
			v.Add("query.gate_id", "is not a gate of this onboarding", q.GateID)
		}
	}
	switch Visibility(q.Visibility) {
	case "", Shared, Internal:
	default:
		v.Add("query.visibility", "must be shared or internal", q.Visibility)
	}
	return Filter{GateID: q.GateID, Visibility: Visibility(q.Visibility)}, v.Err()
}

func page(list []Comment, q Query) ([]Comment, int, error) {
	total := len(list)
	from := min(q.Offset, total)
	to := min(from+q.Limit, total)
	return list[from:to], total, nil
}

// PostRequest is a new comment.
type PostRequest struct {
	Body       string
	GateID     string // "" for the onboarding-level thread
	Visibility string // "" for shared
}

// Post adds a comment on the manager side: an organisation or platform
// caller may post internal comments.
func (s *Service) Post(ctx context.Context, actor onboarding.Actor, onboardingID string, r PostRequest) (Comment, error) {
	var c Comment
	err := s.core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		var err error
		c, err = s.post(ctx, actor, ob, r, false)
		return err
	})
	return c, err
}

// TaskPost adds a shared comment as the task's role, on the
// onboarding-level thread or a gate the role works on.
func (s *Service) TaskPost(ctx context.Context, t onboarding.Task, r PostRequest) (Comment, error) {
	var c Comment
	err := s.core.Mutate(ctx, t.Actor, t.Onboarding.ID, func(ctx context.Context, ob onboarding.Onboarding) error {
		t.Onboarding = ob
		if r.GateID != "" && !slices.Contains(RoleGates(t), r.GateID) {
			return errs.Invalidf("gate_id", r.GateID, "is not a gate of role %s", t.Role)
		}
		var err error
		c, err = s.post(ctx, t.Actor, ob, r, true)
		return err
	})
	return c, err
}

func (s *Service) post(ctx context.Context, actor onboarding.Actor, ob onboarding.Onboarding, r PostRequest, task bool) (Comment, error) {
	var v errs.Validation
	switch {
	case strings.TrimSpace(r.Body) == "":
		v.Add("body", "is required", r.Body)
	case utf8.RuneCountInString(r.Body) > MaxBodyLength:
		v.Add("body", fmt.Sprintf("must be at most %d characters", MaxBodyLength), utf8.RuneCountInString(r.Body))
	default:
		textrule.CheckText(&v, "body", r.Body)
	}
	vis := Visibility(r.Visibility)
	switch {
	case vis == "":
		vis = Shared
	case vis != Shared && vis != Internal:
		v.Add("visibility", "must be shared or internal", r.Visibility)
	case vis == Internal && task:
		v.Add("visibility", "a task posts shared comments only", r.Visibility)
	}
	var gate onboarding.Gate
	if r.GateID != "" {
		var ok bool
		if gate, ok = ob.Gate(r.GateID); !ok {
			v.Add("gate_id", "is not a gate of this onboarding", r.GateID)
		}
	}
	if err := v.Err(); err != nil {
		return Comment{}, err
	}
	// A version 7 id orders the comments of one platform instant as posted.
	id, err := uuid.NewV7()
	if err != nil {
		return Comment{}, err
	}
	c := Comment{
		ID: id.String(), OrganizationID: ob.OrganizationID, OnboardingID: ob.ID, GateID: r.GateID, Body: r.Body, Visibility: vis,
		AuthorKind: actor.Kind, AuthorID: actor.ID, AuthorName: actor.Name, AuthorRole: actor.Role,
		CreatedAt: s.clk.Now().UTC().Truncate(time.Microsecond),
	}
	if err := s.store.Insert(ctx, c); err != nil {
		return Comment{}, err
	}
	changes := map[string][2]any{"visibility": {nil, string(vis)}}
	if c.GateID != "" {
		changes["gate_id"] = [2]any{nil, c.GateID}
	}
	if err := s.core.Audit(ctx, actor, ob, "comment.created", onboarding.Target{Type: "comment", ID: c.ID}, changes); err != nil {
		return Comment{}, err
	}
	if s.notifier == nil {
		return c, nil
	}
	roles := Recipients(c, gate, task)
	if len(roles) == 0 {
		return c, nil
	}
	return c, s.notifier.Comment(ctx, ob, CommentMail{CommentID: c.ID, GateID: c.GateID, AuthorName: c.AuthorName, Body: c.Body,
		Visibility: c.Visibility, RecipientRoles: roles})
}

// Recipients are the task roles told about c: a shared comment from a task
// role goes to the reviewer; one from the manager side goes to the gate's
// owner role, or on the onboarding-level thread to the asset owner.
// Internal comments are mailed to no one: their readers work in the
// console.
func Recipients(c Comment, gate onboarding.Gate, fromTask bool) []onboarding.TaskRole {
	switch {
	case c.Visibility != Shared:
		return nil
	case fromTask:
		return []onboarding.TaskRole{onboarding.RolePlatformOnboarding}
	case c.GateID != "":
		if d, ok := gate.Definition(); ok && d.OwnerRole != onboarding.RolePlatformOnboarding {
			return []onboarding.TaskRole{d.OwnerRole}
		}
		return nil
	default:
		return []onboarding.TaskRole{onboarding.RoleAssetOwner}
	}
}
