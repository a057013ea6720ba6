package onboarding

import (
	"context"
	"slices"
	"time"
)

// RateWindow is the longest window of the onboarding rate limits: a mark
// older than it counts for none of them and is pruned.
const RateWindow = time.Hour

// RateLimit is one of the onboarding area's abuse limits (access-link
// sends, manual reminders, communication tests): at most Max actions of
// Kind per subject within Window (at most RateWindow) of the security
// clock. It runs on security time, not platform time, because a demo
// platform clock at 600x speed would turn "5 an hour" into 5 every six
// real seconds; and its evidence is rate marks in the database, so that
// every instance sharing it agrees.
type RateLimit struct {
	Kind   string
	Max    int
	Window time.Duration
}

// Wait returns how long after now (security time) one more action fits
// under l, given the instants of the subject's earlier actions in any
// order: 0 when it fits now. A mark counts while it is less than Window
// old; the wait ends when enough of them have left the window.
func (l RateLimit) Wait(marks []time.Time, now time.Time) time.Duration {
	var in []time.Time
	for _, m := range marks {
		if now.Sub(m) < l.Window {
			in = append(in, m)
		}
	}
	if len(in) < l.Max {
		return 0
	}
	slices.SortFunc(in, time.Time.Compare)
	return in[len(in)-l.Max].Add(l.Window).Sub(now)
}

// RateMark is one counted action of a rate limit: At is security time.
type RateMark struct {
	OrganizationID string
	OnboardingID   string
	Kind           string
	Subject        string // what the limit counts per: a link, a gate, the workflow
	At             time.Time
}

// RateMarks returns the instants of ob's marks of kind on subject less than
// window before now (security time). Call it inside Mutate with its ctx:
// the workflow's row lock orders the read after the mark of any concurrent
// action on the workflow, on every instance.
func (s *Service) RateMarks(ctx context.Context, ob Onboarding, kind, subject string, window time.Duration, now time.Time) ([]time.Time, error) {
	return s.store.RateMarks(ctx, ob.OrganizationID, ob.ID, kind, subject, now.Add(-window))
}

// RateWait returns how long after now (security time) one more action of
// l on subject fits, 0 when it fits now (RateMarks and RateLimit.Wait).
func (s *Service) RateWait(ctx context.Context, ob Onboarding, l RateLimit, subject string, now time.Time) (time.Duration, error) {
	marks, err := s.RateMarks(ctx, ob, l.Kind, subject, l.Window, now)
	if err != nil {
		return 0, err
	}
	return l.Wait(marks, now), nil
}

// MarkRate records an action of kind on subject at now (security time) in
// the transaction of Mutate that ctx carries, so that it stands or falls
// with the action, and prunes ob's marks older than RateWindow: a
// workflow keeps at most an hour of them.
func (s *Service) MarkRate(ctx context.Context, ob Onboarding, kind, subject string, now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	return s.store.AddRateMark(ctx, RateMark{OrganizationID: ob.OrganizationID, OnboardingID: ob.ID, Kind: kind, Subject: subject, At: now},
		now.Add(-RateWindow))
}
