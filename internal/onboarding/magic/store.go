package magic

import (
	"context"
	"time"
)

// Store persists links and sessions, keyed by organisation first. Every
// method joins the transaction ctx carries (Tx, or another area's, such
// as the onboarding core's Mutate), so that the service composes them
// into one; a missing row is errs.NotFound. Callers have checked
// visibility: the organisation is the onboarding's.
type Store interface {
	// Tx runs fn in a transaction, committing when it returns nil; inside
	// a transaction already, fn joins it.
	Tx(ctx context.Context, fn func(ctx context.Context) error) error

	// InsertLink stores l with its token hashes.
	InsertLink(ctx context.Context, l Link) error
	// UpdateLink writes the changeable members of l (language, token
	// hashes, expiry, revocation, use and send counts) over its row.
	UpdateLink(ctx context.Context, l Link) error
	// Link returns a link of the onboarding, locked until the transaction
	// ends when lock is set, with its sessions open at now counted.
	Link(ctx context.Context, org, onboardingID, linkID string, now time.Time, lock bool) (Link, error)
	// LinkByToken returns the link whose current or prior token hashes to
	// h, locked until the transaction ends: the one lookup of an exchange
	// (a unique index on each hash).
	LinkByToken(ctx context.Context, h TokenHash) (Link, error)
	// Links returns the links of an onboarding matching the filter's
	// contact and role (its status is the service's), oldest first, with
	// their sessions open at now counted.
	Links(ctx context.Context, org, onboardingID string, f LinkFilter, now time.Time) ([]Link, error)

	// CountOpenSessions counts the sessions of a link open at now.
	CountOpenSessions(ctx context.Context, org, onboardingID, linkID string, now time.Time) (int, error)
	// InsertSession stores s.
	InsertSession(ctx context.Context, s Session) error
	// Session returns a session of org with its link's expiry, locked
	// until the transaction ends when lock is set: one lookup by primary
	// key, on the path of every request of a session.
	Session(ctx context.Context, org, sessionID string, lock bool) (Session, error)
	// SessionByID returns the session with this id whatever its
	// organisation (a refresh names only the session), locked until the
	// transaction ends.
	SessionByID(ctx context.Context, sessionID string) (Session, error)
	// UpdateSession writes the refresh hash, generation, last_seen_at,
	// expiry and end of s over its row.
	UpdateSession(ctx context.Context, s Session) error
	// EndSessions ends the sessions of the onboarding matching f that are
	// not ended yet (expired ones too, so that nothing of them stays
	// usable), at at with reason, moves their expiry back to now where it
	// is later, and returns their ids.
	EndSessions(ctx context.Context, org, onboardingID string, f SessionFilter, at, now time.Time, reason string) ([]string, error)
	// DeleteSessions deletes the sessions of a link that expired (or
	// ended, which expires them) before cutoff.
	DeleteSessions(ctx context.Context, org, onboardingID, linkID string, cutoff time.Time) error
	// CapSessions moves the expiry of a link's sessions back to expires
	// where it is later.
	CapSessions(ctx context.Context, org, onboardingID, linkID string, expires time.Time) error
}
