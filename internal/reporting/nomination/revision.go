package nomination

import (
	"context"
	"fmt"
	"time"

	"atcp/internal/assets"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// Status is the state of a revision's exchange with the TSO:
// pending -> sent -> acknowledged | rejected, or held when it cannot be
// sent (no EIC configuration for its zone).
type Status string

const (
	Pending      Status = "pending"
	Held         Status = "held"
	Sent         Status = "sent"
	Acknowledged Status = "acknowledged"
	Rejected     Status = "rejected"
)

// Statuses in lifecycle order, for enum documentation.
var Statuses = []Status{Pending, Held, Sent, Acknowledged, Rejected}

// HeldDetail is the detail of a held revision.
const HeldDetail = "no balancing-group EICs are configured for the zone; configure them and the next run nominates a new revision"

// Revision is one version of a nomination and its exchange record.
type Revision struct {
	Key
	Number int
	Content
	Reason    string // what changed against the previous revision
	Reference string // data_exchange_reference
	Status    Status
	Detail    string // the TSO's answer or why it is held
	CreatedAt time.Time
	SentAt    *time.Time
	AnswerAt  *time.Time
}

// Reference is the data-exchange reference of revision n of k: unique per
// revision and readable by an operator.
func Reference(k Key, n int) string {
	return fmt.Sprintf("ATCP-%04d%02d%02d-%s-%s-R%03d", k.Day.Year, k.Day.Month, k.Day.Day, k.TSO, k.OrganizationID, n)
}

// NewRevision is revision n of k with content c, created at at: pending,
// or held without EICs.
func NewRevision(k Key, n int, c Content, reason string, at time.Time) Revision {
	r := Revision{Key: k, Number: n, Content: c, Reason: reason, Reference: Reference(k, n), Status: Pending, CreatedAt: at}
	if c.EICs == nil {
		r.Status, r.Detail = Held, HeldDetail
	}
	return r
}

// File is the nomination file of the revision in direction d.
func (r Revision) File(d Direction) File {
	f := File{Day: r.Day, Direction: d, Reference: r.Reference, Periods: r.Periods}
	if r.EICs != nil {
		f.Header = r.EICs.Header(d)
	}
	return f
}

// Store keeps configurations and revisions. Writes of revisions are
// transactions: AddRevision adds at most one revision per content change
// however many runs race, and ClaimUnsent hands each revision to one
// sender.
type Store interface {
	// EnergyBids returns the aFRR energy bids delivered in span, any status.
	EnergyBids(ctx context.Context, span calendar.Interval) ([]bids.Bid, error)
	// AssetZones returns every physical asset with a TSO zone, deleted
	// ones included (they may have delivered on the day).
	AssetZones(ctx context.Context) ([]AssetZone, error)
	// Configs returns every organisation's configurations.
	Configs(ctx context.Context) ([]Config, error)
	// AddRevision stores c as the next revision of k (NewRevision, reason
	// Diff against the latest) unless Diff finds nothing changed; it
	// reports whether it added one.
	AddRevision(ctx context.Context, k Key, c Content, at time.Time) (Revision, bool, error)
	// ClaimUnsent marks sent, at at, every pending revision and every one
	// sent before resendBefore without an answer, and returns them.
	ClaimUnsent(ctx context.Context, at, resendBefore time.Time) ([]Revision, error)
	// Answer records the TSO's answer to revision n of k.
	Answer(ctx context.Context, k Key, n int, status Status, detail string, at time.Time) error

	// Revisions returns the revisions of org's nominations of day (in zone
	// tso unless empty), by zone and number.
	Revisions(ctx context.Context, org string, day calendar.Day, tso assets.TSO) ([]Revision, error)
	// Zones returns the zones of day in which org has nominations (any
	// revision), in zone order.
	Zones(ctx context.Context, org string, day calendar.Day) ([]assets.TSO, error)
	// Acknowledged returns the latest acknowledged revision of each zone
	// of org's nominations of day (in zone tso unless empty).
	Acknowledged(ctx context.Context, org string, day calendar.Day, tso assets.TSO) ([]Revision, error)
	// OwnedElsewhere returns the latest acknowledged revision of each
	// nomination of day (in zone tso unless empty) of another
	// organisation holding asset rows of org, with only those rows.
	OwnedElsewhere(ctx context.Context, org string, day calendar.Day, tso assets.TSO) ([]Revision, error)

	// Config returns org's configuration of zone tso, errs.NotFound
	// without one.
	Config(ctx context.Context, org string, tso assets.TSO) (Config, error)
	// PutConfig creates or replaces a configuration.
	PutConfig(ctx context.Context, c Config) error
	// EnsureConfig creates c unless org has a configuration of the zone.
	EnsureConfig(ctx context.Context, c Config) error
}
