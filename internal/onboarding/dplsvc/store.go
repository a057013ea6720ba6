package dplsvc

import (
	"context"
	"time"

	"atcp/internal/onboarding/dpl"
)

// Row is a stored DPL row of an onboarding.
type Row struct {
	dpl.Row
	OnboardingID   string
	LastTestResult dpl.Result // "" until a communication test judged it, and after a change
	UpdatedAt      time.Time
	UpdatedBy      string // the actor's name
}

// TestStatus is a communication test's state.
type TestStatus string

// The test states: a test is stored running before the telemetry is read.
const (
	TestRunning TestStatus = "running"
	TestPassed  TestStatus = "passed"
	TestFailed  TestStatus = "failed"
)

// Test is a communication test of an onboarding.
type Test struct {
	ID           string
	OnboardingID string
	Status       TestStatus
	StartedAt    time.Time
	StartedBy    string
	FinishedAt   *time.Time
	Connected    bool
	MeasuredAt   *time.Time // the instant of the measurements read, nil when there were none
	Points       []dpl.PointResult
}

// Summary counts the test's points ok and failed (missing, stale, out of
// range); not_mapped counts as neither.
func (t Test) Summary() (ok, failed int) {
	for _, p := range t.Points {
		switch p.Result {
		case dpl.OK:
			ok++
		case dpl.Missing, dpl.Stale, dpl.OutOfRange:
			failed++
		}
	}
	return ok, failed
}

// Store persists DPL rows and communication tests. Callers pass the
// organisation of an onboarding they resolved for the caller (through
// onboarding.Service's Get, Mutate or ResolveTask): every statement is
// keyed by that organisation and onboarding. Writes join the transaction
// ctx carries (onboarding.Service.Mutate).
type Store interface {
	// Rows returns the onboarding's rows in no particular order.
	Rows(ctx context.Context, organizationID, onboardingID string) ([]Row, error)
	// InsertRow stores a new row: 409 dpl_point_exists or
	// dpl_address_in_use when a unique index refuses it.
	InsertRow(ctx context.Context, organizationID string, r Row) error
	// UpdateRow replaces a row's members (the same 409s); 404
	// dpl_row_not_found when there is no such row.
	UpdateRow(ctx context.Context, organizationID string, r Row) error
	// DeleteRow deletes a row; 404 dpl_row_not_found when there is none.
	DeleteRow(ctx context.Context, organizationID, onboardingID, rowID string) error
	// SetTestResults sets last_test_result of the rows named by id.
	SetTestResults(ctx context.Context, organizationID, onboardingID string, results map[string]dpl.Result) error
	// InsertTest stores a running test: 409 test_running when another is
	// running (a unique partial index decides across instances).
	InsertTest(ctx context.Context, organizationID string, t Test) error
	// FinishTest stores a test's outcome (status, finished_at, connected,
	// measured_at, points).
	FinishTest(ctx context.Context, organizationID string, t Test) error
	// Tests returns the onboarding's tests newest first, paged, and their
	// total.
	Tests(ctx context.Context, organizationID, onboardingID string, limit, offset int) ([]Test, int, error)
	// LatestTest returns the onboarding's newest test, false when none
	// ran: one read, without the total Tests counts.
	LatestTest(ctx context.Context, organizationID, onboardingID string) (Test, bool, error)
	// Test returns one test; 404 communication_test_not_found.
	Test(ctx context.Context, organizationID, onboardingID, testID string) (Test, error)
}
