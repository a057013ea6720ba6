package onboarding

import (
	"context"
	"time"

	"atcp/internal/auth"
)

// ListFilter narrows GET /v1/onboardings.
type ListFilter struct {
	Status         OverallStatus // "" for any
	AssetID        string
	OrganizationID string // platform callers only
	Limit, Offset  int
}

// AuditFilter narrows an audit trail read.
type AuditFilter struct {
	ActionPrefix       string
	TargetType         string
	TargetID           string
	ActorKind          string
	StartTime, EndTime *time.Time // [start, end)
	Limit, Offset      int
}

// Store persists workflows, gates and the audit trail. Every read and
// write is filtered by auth.Visibility in the query; what v does not see is
// errs.NotFound onboarding_not_found.
type Store interface {
	// InProgressFor returns the workflow in progress of an asset, of any
	// organisation (the asset registry asks; assets.StatusOwner).
	InProgressFor(ctx context.Context, assetID string) (onboardingID string, ok bool, err error)
	// Create checks, in its transaction and under the asset's row lock,
	// that the asset is in status onboarding (404 asset_not_found, 409
	// asset_not_onboarding), then inserts ob with its gates and runs fn in the same transaction
	// (ctx carries it); 409 onboarding_exists when the asset already has an
	// in_progress workflow (a unique partial index decides under
	// concurrency).
	Create(ctx context.Context, ob Onboarding, fn func(ctx context.Context) error) error
	// Get returns a visible workflow with its gates in order.
	Get(ctx context.Context, v auth.Visibility, id string) (Onboarding, error)
	// List returns every visible workflow matching f's status, asset,
	// and organisation, with its gates; the
	// service derives overdue, blocked and the next deadline from the
	// gates, orders and pages (an organisation has tens of workflows, not
	// thousands). f's Limit and Offset are not applied.
	List(ctx context.Context, v auth.Visibility, f ListFilter) ([]Onboarding, error)
	// Mutate locks the visible workflow's row until the transaction ends
	// (SELECT ... FOR UPDATE on PostgreSQL; the single SQLite writer
	// serialises) and runs fn with it inside the transaction: ctx carries
	// it, so every store method called with that ctx joins it. fn's error
	// rolls everything back.
	Mutate(ctx context.Context, v auth.Visibility, id string, fn func(ctx context.Context, ob Onboarding) error) error
	// Update stores the workflow's own members (status, target date,
	// notes, cancel and completion, updated_at); call it inside Mutate.
	Update(ctx context.Context, ob Onboarding) error
	// UpdateGate stores a gate's members; call it inside Mutate.
	UpdateGate(ctx context.Context, organizationID string, g Gate) error
	// AppendAudit appends an entry (keyed by its OrganizationID); it joins
	// the transaction in ctx.
	AppendAudit(ctx context.Context, e AuditEntry) error
	// Audit returns a visible workflow's entries matching f, newest first,
	// and their total before paging.
	Audit(ctx context.Context, v auth.Visibility, onboardingID string, f AuditFilter) ([]AuditEntry, int, error)
	// RateMarks returns the instants of a workflow's rate marks of kind on
	// subject after since, in no particular order; it joins the
	// transaction in ctx.
	RateMarks(ctx context.Context, organizationID, onboardingID, kind, subject string, since time.Time) ([]time.Time, error)
	// AddRateMark stores m and deletes its workflow's marks (of every kind
	// and subject) at or before prune; it joins the transaction in ctx.
	AddRateMark(ctx context.Context, m RateMark, prune time.Time) error
}
