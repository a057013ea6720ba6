package identity

import (
	"context"
	"errors"
	"testing"

	"atcp/internal/auth"
)

type fakeTaskSessions struct {
	open  bool
	err   error
	asked int
}

func (f *fakeTaskSessions) TaskSessionInForce(context.Context, *auth.Principal) (bool, error) {
	f.asked++
	return f.open, f.err
}

// TestCredentialCheckTaskSessions: a magic-link session's token is asked
// of TaskSessions on every request, never of the user or integration
// store nor the cache, and is refused when no TaskSessions is set.
func TestCredentialCheckTaskSessions(t *testing.T) {
	store := &fakeCredentialStore{user: activeUser(), grantLive: true}
	check := NewCredentialCheck(store)
	check.cache.setEnabled(true)
	p := &auth.Principal{Subject: "onbc:c-1", OrganizationID: "acme", Credential: "s-1",
		Task: &auth.TaskGrant{OnboardingID: "ob-1", ContactID: "c-1", Role: "epc", SessionID: "s-1"}}
	if ok, err := check.InForce(context.Background(), p); ok || err != nil {
		t.Fatalf("without TaskSessions: %v %v", ok, err)
	}
	sessions := &fakeTaskSessions{open: true}
	check.SetTaskSessions(sessions)
	for range 3 {
		if ok, err := check.InForce(context.Background(), p); !ok || err != nil {
			t.Fatalf("open session: %v %v", ok, err)
		}
	}
	sessions.open = false
	if ok, _ := check.InForce(context.Background(), p); ok {
		t.Fatal("an ended session's token is still in force")
	}
	sessions.err = errors.New("store down")
	if _, err := check.InForce(context.Background(), p); err == nil {
		t.Fatal("a store error was not passed on")
	}
	if sessions.asked != 5 || store.reads.Load() != 0 {
		t.Fatalf("asked %d times, store read %d times", sessions.asked, store.reads.Load())
	}
}
