package contacts

import (
	"context"
	"time"
)

// Store persists the contacts of onboardings, keyed by the onboarding's
// organisation first. Callers have checked visibility (the core's Get or
// Mutate): org is the onboarding's. Every method joins the transaction ctx
// carries (the core's Mutate). A contact unknown or deleted is
// errs.NotFound contact_not_found.
type Store interface {
	// Contacts returns an onboarding's contacts not deleted, oldest first.
	Contacts(ctx context.Context, org, onboardingID string) ([]Contact, error)
	// Contact returns one contact not deleted.
	Contact(ctx context.Context, org, onboardingID, contactID string) (Contact, error)
	// InsertContact stores c: 409 contact_exists when another contact of
	// the onboarding not deleted has its address, case-insensitively (a
	// unique index decides under concurrency).
	InsertContact(ctx context.Context, c Contact) error
	// UpdateContact writes c's members over its row, 409 contact_exists as
	// InsertContact.
	UpdateContact(ctx context.Context, c Contact) error
	// ContactsOfUser returns the contacts not deleted that carry userID,
	// of every organisation and onboarding (the user's task list), by
	// onboarding.
	ContactsOfUser(ctx context.Context, userID string) ([]Contact, error)
	// DeleteContact marks a contact deleted at at; its row stays for the
	// audit trail's names.
	DeleteContact(ctx context.Context, org, onboardingID, contactID string, at time.Time) error
}
