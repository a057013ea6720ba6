// Package store selects and opens the storage backend named by the
// database URL: PostgreSQL for production and scale-out, embedded SQLite as
// the zero-setup default. Each domain area declares its own store
// interface; both backends implement all of them.
package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"atcp/internal/adapters/simulated"
	"atcp/internal/alarms"
	"atcp/internal/alarms/fault"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/contacts"
	"atcp/internal/dispatch"
	"atcp/internal/events"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/comments"
	obcontacts "atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/documents"
	"atcp/internal/onboarding/dplsvc"
	"atcp/internal/onboarding/fields"
	"atcp/internal/onboarding/magic"
	"atcp/internal/onboarding/prequal"
	"atcp/internal/onboarding/reminders"
	"atcp/internal/pools"
	"atcp/internal/portfolio"
	"atcp/internal/reporting/afrrreport"
	"atcp/internal/reporting/nomination"
	"atcp/internal/restrictions"
	"atcp/internal/segmentation"
	"atcp/internal/settlement"
	"atcp/internal/store/postgres"
	"atcp/internal/store/sqlite"
	"atcp/internal/telemetry"
	"atcp/internal/worker"
)

// Backend is an open store.
type Backend interface {
	Name() string
	Ping(ctx context.Context) error
	Close() error
	Migrate(ctx context.Context) error
	auth.KeyStore
	// ClockAnchor returns the persisted clock anchor, replacing it with
	// desired when it was made by another configuration.
	ClockAnchor(ctx context.Context, config string, desired clock.Anchor) (clock.Anchor, error)

	Directory() identity.DirectoryStore
	Clients() identity.ClientStore
	Credentials() identity.CredentialStore
	Assets() assets.Store
	Bids() bids.Store
	BackupMarket() afrr.BackupStore
	Leases() worker.LeaseStore
	Segmentations() segmentation.Store
	Restrictions() restrictions.Store
	Telemetry() telemetry.Store
	Dispatch() dispatch.Store
	Contacts() contacts.Store
	Events() events.Store
	SimulatorFaults() simulated.FaultStore
	Alarms() alarms.Store
	Faults() fault.Store
	Settlements() settlement.Store
	CoverSteps() portfolio.Store
	Pools() pools.Store
	Nominations() nomination.Store
	AFRRDispatchEvents() afrrreport.Store
	Onboardings() onboarding.Store
	OnboardingMagic() magic.Store
	OnboardingBranding() branding.Store
	OnboardingDPL() dplsvc.Store
	OnboardingDocuments() documents.Store
	OnboardingComments() comments.Store
	OnboardingPrequalifications() prequal.Store
	OnboardingReminders() reminders.Store
	OnboardingFields() fields.Store
	OnboardingContacts() obcontacts.Store
}

var (
	_ Backend = (*postgres.DB)(nil)
	_ Backend = (*sqlite.DB)(nil)
)

// Open opens the backend for databaseURL: postgres:// or postgresql://
// for PostgreSQL, sqlite:///path/file.db for a SQLite file, sqlite::memory:
// for a throw-away in-memory database, and empty for dataDir/atcp.db.
// It does not migrate.
func Open(ctx context.Context, databaseURL, dataDir string) (Backend, error) {
	b, err := open(ctx, databaseURL, dataDir)
	if err != nil {
		// Never a typed nil inside a non-nil interface.
		return nil, err
	}
	return b, nil
}

func open(ctx context.Context, databaseURL, dataDir string) (Backend, error) {
	switch {
	case databaseURL == "":
		return sqliteBackend(sqlite.Open(ctx, filepath.Join(dataDir, "atcp.db")))
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		db, err := postgres.Open(ctx, databaseURL)
		if err != nil {
			return nil, err
		}
		return db, nil
	case databaseURL == "sqlite::memory:" || databaseURL == "sqlite://:memory:":
		return sqliteBackend(sqlite.Open(ctx, ":memory:"))
	case strings.HasPrefix(databaseURL, "sqlite://"):
		path := strings.TrimPrefix(databaseURL, "sqlite://")
		if path == "" {
			return nil, fmt.Errorf("database url %q names no file", databaseURL)
		}
		return sqliteBackend(sqlite.Open(ctx, path))
	case strings.HasPrefix(databaseURL, "sqlite:"):
		return sqliteBackend(sqlite.Open(ctx, strings.TrimPrefix(databaseURL, "sqlite:")))
	}
	return nil, fmt.Errorf("database url %q: want postgres://..., sqlite:///path/file.db, or sqlite::memory: for a throw-away store", databaseURL)
}

func sqliteBackend(db *sqlite.DB, err error) (Backend, error) {
	if err != nil {
		return nil, err
	}
	return db, nil
}
