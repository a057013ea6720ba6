package fault

import (
	"context"
	"time"

	"atcp/internal/restrictions"
)

// Record is a fault-notification record: one declaration, what it asked
// to send and how that went.
type Record struct {
	ID                  string // UUIDv7
	OrganizationID      string
	AssetID             string
	AlarmKey            string
	AlarmID             string
	DeclaredBy          string
	Status              Status
	Language            *string // nil without notification
	Subject, Body       *string
	RecipientIDs        []int64
	UnavailabilityStart time.Time
	UnavailabilityEnd   *time.Time
	AlreadyDeclared     bool
	Notes               *string
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// Store persists declarations.
type Store interface {
	// Declare reads the asset's unavailability intervals, calls plan with
	// them and, in one transaction serialised with every other interval
	// write on the asset, applies the change and inserts the record plan
	// returns. plan's error is returned unchanged and nothing is written.
	Declare(ctx context.Context, organizationID, assetID string,
		plan func(unavailability []restrictions.Interval) (restrictions.Change, Record, error)) (Record, error)
	// Finalise sets the record's status.
	Finalise(ctx context.Context, assetID, recordID string, status Status, at time.Time) error
	// Record returns a record (tests, audits); errs.NotFound when absent.
	Record(ctx context.Context, assetID, recordID string) (Record, error)
}
