package dplsvc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/dpl"
	"atcp/internal/telemetry"
)

const (
	// TestInterval is the least time between two tests of an onboarding,
	// security time (TestLimit).
	TestInterval = time.Minute
	// TestTimeout bounds the telemetry read of a test, in real time; a
	// test still running after twice as long of security time (its
	// instance stopped) is abandoned and no longer holds the next one
	// back.
	TestTimeout = 10 * time.Second
)

// TestLimit counts the tests of an onboarding (subject: the onboarding
// id) in rate marks on the security clock, which every instance reads.
// Their latest mark is also the security-time start of the latest test,
// which tells a running test from an abandoned one; the test rows keep
// their platform-time started_at as records.
var TestLimit = onboarding.RateLimit{Kind: "communication_test", Max: 1, Window: TestInterval}

// TooSoon is the 429 of a test started within TestInterval of the last
// one: RetryAfter says when the next may start.
type TooSoon struct{ RetryAfter time.Duration }

func (e *TooSoon) Error() string {
	return fmt.Sprintf("one communication test a minute per onboarding; retry in %d s", e.Seconds())
}

// Seconds is the Retry-After value: whole seconds, at least 1.
func (e *TooSoon) Seconds() int { return max(1, int(math.Ceil(e.RetryAfter.Seconds()))) }

// Run runs a communication test of the onboarding: it stores the test
// running, reads the asset's latest measurements, evaluates them
// (dpl.Evaluate), stores the outcome and the rows' last_test_result, and
// moves the comm-test gate pending -> in_progress.
func (s *Service) Run(ctx context.Context, actor onboarding.Actor, id string) (Test, error) {
	var t Test
	var ob onboarding.Onboarding
	var a assets.Asset
	var rows []Row
	err := s.d.Onboarding.Mutate(ctx, actor, id, func(ctx context.Context, o onboarding.Onboarding) error {
		ob = o
		var err error
		if rows, err = s.Rows(ctx, ob); err != nil {
			return err
		}
		if len(rows) == 0 {
			return errs.Conflictf(CodeDPLEmpty, "the data-point list is empty: add rows before a communication test")
		}
		if a, err = s.d.Assets.Get(ctx, auth.Visibility{All: true}, ob.AssetID); err != nil {
			return err
		}
		if !slices.Contains(s.d.Adapters, a.Adapter) {
			return errs.Conflictf(CodeAssetNotAttached, "no adapter steers asset %s (its adapter %s is not configured)", a.ID, a.Adapter)
		}
		now, secNow := s.now(), s.d.Security.Now()
		l, ran, err := s.d.Store.LatestTest(ctx, ob.OrganizationID, ob.ID)
		if err != nil {
			return err
		}
		marks, err := s.d.Onboarding.RateMarks(ctx, ob, TestLimit.Kind, ob.ID, max(TestInterval, 2*TestTimeout), secNow)
		if err != nil {
			return err
		}
		if ran && l.Status == TestRunning {
			// Without a mark this recent (or any, for a test started before
			// the marks), the test is abandoned.
			if slices.ContainsFunc(marks, func(m time.Time) bool { return secNow.Sub(m) <= 2*TestTimeout }) {
				return errs.Conflictf(CodeTestRunning, "communication test %s is running", l.ID)
			}
			l.Status, l.FinishedAt = TestFailed, &now
			if err := s.d.Store.FinishTest(ctx, ob.OrganizationID, l); err != nil {
				return err
			}
		}
		if wait := TestLimit.Wait(marks, secNow); wait > 0 {
			return &TooSoon{RetryAfter: wait}
		}
		tid, err := uuid.NewV7()
		if err != nil {
			return err
		}
		t = Test{ID: tid.String(), OnboardingID: ob.ID, Status: TestRunning, StartedAt: now, StartedBy: actor.Name, Points: []dpl.PointResult{}}
		if err := s.d.Store.InsertTest(ctx, ob.OrganizationID, t); err != nil {
			return err
		}
		if err := s.d.Onboarding.MarkRate(ctx, ob, TestLimit.Kind, ob.ID, secNow); err != nil {
			return err
		}
		return s.d.Onboarding.TouchGate(ctx, ob, onboarding.KindCommTest)
	})
	if err != nil {
		return Test{}, err
	}
	snap, measured, readErr := s.read(ctx, ob.AssetID)
	now := s.now()
	t.Status, t.FinishedAt = TestFailed, &now
	var results map[string]dpl.Result
	if readErr == nil {
		outcome := dpl.Evaluate(plain(rows), Points(ob), a.UsablePowerCapacityMW, snap, now)
		t.Connected, t.MeasuredAt, t.Points = snap.Connected, measured, outcome.Points
		if outcome.Passed {
			t.Status = TestPassed
		}
		results = map[string]dpl.Result{}
		for _, r := range rows {
			if i := slices.IndexFunc(outcome.Points, func(p dpl.PointResult) bool { return p.PointName == r.PointName }); i >= 0 {
				results[r.ID] = outcome.Points[i].Result
			}
		}
	}
	err = s.d.Onboarding.Mutate(ctx, actor, id, func(ctx context.Context, ob onboarding.Onboarding) error {
		if err := s.d.Store.FinishTest(ctx, ob.OrganizationID, t); err != nil {
			return err
		}
		// A row changed while the test ran keeps its cleared result.
		current, err := s.d.Store.Rows(ctx, ob.OrganizationID, ob.ID)
		if err != nil {
			return err
		}
		for _, r := range current {
			if r.UpdatedAt.After(t.StartedAt) {
				delete(results, r.ID)
			}
		}
		if err := s.d.Store.SetTestResults(ctx, ob.OrganizationID, ob.ID, results); err != nil {
			return err
		}
		ok, failed := t.Summary()
		return s.d.Onboarding.Audit(ctx, actor, ob, "communication_test.run", onboarding.Target{Type: "communication_test", ID: t.ID},
			map[string][2]any{"status": {nil, string(t.Status)}, "ok": {nil, ok}, "failed": {nil, failed}})
	})
	if e := (*errs.Error)(nil); errors.As(err, &e) && e.Code == onboarding.CodeOnboardingClosed {
		// The workflow closed while the test ran: the outcome is stored
		// all the same, so that no running test holds the next one back.
		err = s.d.Store.FinishTest(ctx, ob.OrganizationID, t)
	}
	if err == nil {
		err = readErr
	}
	return t, err
}

// read turns the asset's latest recorded measurements into the snapshot
// the evaluation judges: connected while the asset reported within
// dpl.MaxAge, each finite measurement stamped with the snapshot's instant.
func (s *Service) read(ctx context.Context, assetID string) (dpl.Snapshot, *time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, TestTimeout)
	defer cancel()
	snap, err := s.d.Latest.Latest(ctx, assetID)
	if errs.Is(err, errs.NotFound) {
		return dpl.Snapshot{Values: map[string]dpl.Measurement{}}, nil, nil
	}
	if err != nil {
		return dpl.Snapshot{}, nil, err
	}
	at := snap.Measurements.Timestamp.UTC()
	out := dpl.Snapshot{Connected: s.d.Clock.Now().Sub(at) <= dpl.MaxAge, Values: map[string]dpl.Measurement{}}
	values := snap.Measurements.Values(nil)
	for i, name := range telemetry.PointNames() {
		if i < len(values) && finite(values[i]) {
			out.Values[name] = dpl.Measurement{Value: values[i], MeasuredAt: at}
		}
	}
	return out, &at, nil
}

// Tests returns the onboarding's tests newest first.
func (s *Service) Tests(ctx context.Context, ob onboarding.Onboarding, limit, offset int) ([]Test, int, error) {
	return s.d.Store.Tests(ctx, ob.OrganizationID, ob.ID, limit, offset)
}

// Test returns one test of the onboarding.
func (s *Service) Test(ctx context.Context, ob onboarding.Onboarding, testID string) (Test, error) {
	if !onboarding.ValidID(testID) {
		return Test{}, errs.E(errs.NotFound, CodeTestNotFound, "no communication test %q", testID)
	}
	return s.d.Store.Test(ctx, ob.OrganizationID, ob.ID, testID)
}

// LatestTest returns the newest finished or running test of a workflow
// of organizationID, nil when there is none (the task detail's
// structured_data.communication_test).
func (s *Service) LatestTest(ctx context.Context, organizationID, onboardingID string) (*Test, error) {
	t, ok, err := s.d.Store.LatestTest(ctx, organizationID, onboardingID)
	if err != nil || !ok {
		return nil, err
	}
	return &t, nil
}

// testRequirement is the comm-test gate's "the latest communication test
// passed".
func (s *Service) testRequirement(ctx context.Context, ob onboarding.Onboarding, _ onboarding.Gate, _ onboarding.GateDefinition) ([]onboarding.Unmet, error) {
	t, err := s.LatestTest(ctx, ob.OrganizationID, ob.ID)
	switch {
	case err != nil:
		return nil, err
	case t == nil:
		return []onboarding.Unmet{{Location: "communication_test", Detail: "no communication test has run"}}, nil
	case t.Status != TestPassed:
		return []onboarding.Unmet{{Location: "communication_test", Detail: fmt.Sprintf("the latest communication test is %s", t.Status)}}, nil
	}
	return nil, nil
}
