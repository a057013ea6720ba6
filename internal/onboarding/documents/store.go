package documents

import (
	"context"
	"time"
)

// Store persists document rows. The service reaches a workflow's documents
// only after it has resolved the workflow for the caller (Mutate, Get,
// ResolveTask), so reads are keyed by the workflow's organisation and id.
// Inside onboarding.Service.Mutate, ctx carries the transaction.
type Store interface {
	// Insert adds a row.
	Insert(ctx context.Context, d Document) error
	// Update stores a row's mutable members (content, status, sha256,
	// uploaded_at, superseded_by, deletion, object removal).
	Update(ctx context.Context, d Document) error
	// Get returns a document of the workflow; errs.NotFound
	// document_not_found when it has none with that id.
	Get(ctx context.Context, organizationID, onboardingID, documentID string) (Document, error)
	// List returns every row of the workflow (a workflow has tens), by
	// created_at then id; the service filters and pages.
	List(ctx context.Context, organizationID, onboardingID string) ([]Document, error)
	// Removable returns up to limit rows of any organisation whose object
	// is still stored and is due for removal: deleted before deletedBefore
	// (platform time), or pending or discarded, created before
	// pendingBefore (platform time) and with an upload URL expired at
	// expiredAt (security time).
	Removable(ctx context.Context, deletedBefore, pendingBefore, expiredAt time.Time, limit int) ([]Document, error)
}
