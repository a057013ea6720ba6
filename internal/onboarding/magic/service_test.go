package magic_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/onboarding/magic"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// targets is a fake LinkTargets: a target stands unless gone names it
// (contact id or onboarding id).
type targets struct {
	mu   sync.Mutex
	gone map[string]bool
}

func (f *targets) Check(_ context.Context, _, onboardingID, contactID, _ string) (magic.Target, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gone[onboardingID] || f.gone[contactID] {
		return magic.Target{}, false, nil
	}
	return magic.Target{ContactName: "Erik Epc", ContactEmail: "erik@epc.example", Language: "en",
		Branding: map[string]any{"display_name": "Acme"}}, true, nil
}

func (f *targets) remove(id string) {
	f.mu.Lock()
	f.gone[id] = true
	f.mu.Unlock()
}

// auditLog records the audit events.
type auditLog struct {
	mu     sync.Mutex
	events []magic.AuditEvent
}

func (a *auditLog) MagicLinkEvent(_ context.Context, e magic.AuditEvent) error {
	a.mu.Lock()
	a.events = append(a.events, e)
	a.mu.Unlock()
	return nil
}

func (a *auditLog) actions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []string{}
	for _, e := range a.events {
		out = append(out, e.Action)
	}
	return out
}

type fixture struct {
	svc      *magic.Service
	store    magic.Store
	targets  *targets
	audit    *auditLog
	tokens   *auth.Tokens
	platform *clock.Manual
	security *clock.Manual
}

func newFixture(t *testing.T, b store.Backend) *fixture {
	t.Helper()
	ctx := context.Background()
	for _, org := range []string{"acme", "other"} {
		if err := b.Directory().EnsureOrganization(ctx, identity.Organization{ID: org, Name: org, CreatedAt: testkit.Start}); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{store: b.OnboardingMagic(), targets: &targets{gone: map[string]bool{}}, audit: &auditLog{},
		platform: clock.NewManual(testkit.Start), security: clock.NewManual(testkit.SecurityStart)}
	var err error
	if f.tokens, err = auth.NewTokens(ctx, b, "http://atcp.test", f.security); err != nil {
		t.Fatal(err)
	}
	f.svc = magic.NewService(f.store, f.targets, f.tokens, f.platform, f.security)
	f.svc.SetAuditor(f.audit)
	return f
}

func spec(contact, role string) magic.LinkSpec {
	return magic.LinkSpec{OrganizationID: "acme", OnboardingID: "ob-1", ContactID: contact, Role: role, CreatedBy: "Petra"}
}

func code(err error) errs.Code {
	var de *errs.Error
	if errors.As(err, &de) {
		return de.Code
	}
	return ""
}

func (f *fixture) inForce(t *testing.T, access string) bool {
	t.Helper()
	p, err := f.tokens.Verify(access)
	if err != nil {
		return false
	}
	ok, err := magic.NewSessionCheck(f.store, f.security).TaskSessionInForce(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestExchangeAndRefresh(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		f := newFixture(t, b)
		raw, link, err := f.svc.IssueLink(ctx, spec("c-1", "epc"))
		if err != nil {
			t.Fatal(err)
		}
		if !link.ExpiresAt.Equal(testkit.SecurityStart.Add(30*24*time.Hour)) || !link.CreatedAt.Equal(testkit.Start) || link.SendCount != 1 {
			t.Fatalf("link %+v", link)
		}
		ex, err := f.svc.Exchange(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		s := ex.Session
		if s.Language != "en" || s.LinkID != link.ID || s.Role != "epc" || !s.ExpiresAt.Equal(testkit.SecurityStart.Add(magic.SessionIdle)) ||
			ex.Target.ContactName != "Erik Epc" || !ex.ExpiresAt.Equal(testkit.SecurityStart.Add(time.Hour)) || ex.RefreshToken == "" || ex.IDToken == "" {
			t.Fatalf("exchange %+v", ex)
		}
		p, err := f.tokens.Verify(ex.AccessToken)
		if err != nil || p.Task == nil || p.Task.SessionID != s.ID || p.Task.OnboardingID != "ob-1" || p.Email != "erik@epc.example" {
			t.Fatalf("access token: %+v %v", p, err)
		}
		if !f.inForce(t, ex.AccessToken) {
			t.Fatal("a new session's token is not in force")
		}

		// Refresh rotates; the session lives SessionIdle from the refresh.
		f.security.Advance(10 * 24 * time.Hour)
		r1, err := f.svc.Refresh(ctx, s.ID, ex.RefreshToken)
		if err != nil || r1.RefreshToken == ex.RefreshToken || r1.Session.Generation != 1 ||
			!r1.Session.ExpiresAt.Equal(testkit.SecurityStart.Add(10*24*time.Hour+magic.SessionIdle)) {
			t.Fatalf("refresh: %+v %v", r1, err)
		}
		// ... but never beyond the link's expiry.
		f.security.Advance(10 * 24 * time.Hour)
		r2, err := f.svc.Refresh(ctx, s.ID, r1.RefreshToken)
		if err != nil || !r2.Session.ExpiresAt.Equal(link.ExpiresAt) {
			t.Fatalf("refresh near the link's end: %+v %v", r2.Session, err)
		}
		// The rotated token presented again ends the session.
		if _, err := f.svc.Refresh(ctx, s.ID, r1.RefreshToken); code(err) != magic.CodeSessionEnded {
			t.Fatalf("reuse: %v", err)
		}
		if _, err := f.svc.Refresh(ctx, s.ID, r2.RefreshToken); code(err) != magic.CodeSessionEnded {
			t.Fatalf("the current token after reuse: %v", err)
		}
		if f.inForce(t, r2.AccessToken) {
			t.Fatal("the access token of an ended session is in force")
		}
		for _, bad := range [][2]string{{"not-a-uuid", r2.RefreshToken}, {s.ID, "garbage"}, {"00000000-0000-4000-8000-000000000000", r2.RefreshToken}} {
			if _, err := f.svc.Refresh(ctx, bad[0], bad[1]); code(err) != magic.CodeSessionEnded {
				t.Fatalf("refresh %v: %v", bad, err)
			}
		}
		want := []string{magic.ActionLinkIssued, magic.ActionLinkExchanged, magic.ActionSessionEnded}
		if got := f.audit.actions(); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Fatalf("audit %v", got)
		}
	})
}

func TestSessionExpiresWhenIdle(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		f := newFixture(t, b)
		raw, _, _ := f.svc.IssueLink(ctx, spec("c-1", "epc"))
		ex, err := f.svc.Exchange(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		f.security.Advance(magic.SessionIdle)
		if _, err := f.svc.Refresh(ctx, ex.Session.ID, ex.RefreshToken); code(err) != magic.CodeSessionEnded {
			t.Fatalf("idle session refreshed: %v", err)
		}
		// An expired session no longer counts against the link's cap.
		if _, err := f.svc.Exchange(ctx, raw); err != nil {
			t.Fatal(err)
		}
	})
}

// TestExchangeRefusals: unknown, expired, revoked and target-gone links
// are one 404 link_not_found with the same message; malformed is 400.
func TestExchangeRefusals(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		f := newFixture(t, b)
		if _, err := f.svc.Exchange(ctx, "aml_short"); code(err) != magic.CodeMalformedToken || errs.KindOf(err) != errs.Malformed {
			t.Fatalf("malformed: %v", err)
		}
		unknown, _ := magic.NewLinkToken()
		_, want := f.svc.Exchange(ctx, unknown)
		if code(want) != magic.CodeLinkNotFound || errs.KindOf(want) != errs.NotFound {
			t.Fatalf("unknown: %v", want)
		}
		s := spec("c-expires", "epc")
		s.ExpiresInDays = 1
		expiring, _, _ := f.svc.IssueLink(ctx, s)
		revoked, rl, _ := f.svc.IssueLink(ctx, spec("c-revoked", "tso"))
		if _, err := f.svc.RevokeLink(ctx, "acme", "ob-1", rl.ID, "left the project"); err != nil {
			t.Fatal(err)
		}
		gone, _, _ := f.svc.IssueLink(ctx, spec("c-gone", "epc"))
		f.targets.remove("c-gone")
		f.security.Advance(24 * time.Hour)
		for name, raw := range map[string]string{"expired": expiring, "revoked": revoked, "target gone": gone} {
			if _, err := f.svc.Exchange(ctx, raw); err == nil || err.Error() != want.Error() || code(err) != magic.CodeLinkNotFound {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
}

func TestReissueRevokeAndEnd(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		f := newFixture(t, b)
		first, l1, _ := f.svc.IssueLink(ctx, spec("c-1", "epc"))
		ex1, err := f.svc.Exchange(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		// Issuing again for the same contact and role revokes the first
		// link and ends its session; another role's link is kept.
		_, _, _ = f.svc.IssueLink(ctx, spec("c-1", "asset_owner"))
		second, l2, err := f.svc.IssueLink(ctx, spec("c-1", "epc"))
		if err != nil {
			t.Fatal(err)
		}
		if f.inForce(t, ex1.AccessToken) {
			t.Fatal("the session of a reissued link is in force")
		}
		links, _ := f.svc.ListLinks(ctx, "acme", "ob-1", magic.LinkFilter{Status: magic.LinkActive})
		if len(links) != 2 || (links[0].ID != l2.ID && links[1].ID != l2.ID) {
			t.Fatalf("active links %+v", links)
		}
		if got, _ := f.svc.GetLink(ctx, "acme", "ob-1", l1.ID); got.RevokeReason != magic.RevokeReissued || got.RevokedAt == nil {
			t.Fatalf("first link %+v", got)
		}
		ex2, err := f.svc.Exchange(ctx, second)
		if err != nil {
			t.Fatal(err)
		}
		// Revoking is idempotent and ends the sessions at once.
		r, err := f.svc.RevokeLink(ctx, "acme", "ob-1", l2.ID, "")
		if err != nil || r.RevokedAt == nil || f.inForce(t, ex2.AccessToken) {
			t.Fatalf("revoke: %+v %v", r, err)
		}
		again, err := f.svc.RevokeLink(ctx, "acme", "ob-1", l2.ID, "other")
		if err != nil || !again.RevokedAt.Equal(*r.RevokedAt) {
			t.Fatalf("revoke again: %+v %v", again, err)
		}
		if _, err := f.svc.RevokeLink(ctx, "other", "ob-1", l2.ID, ""); !errs.Is(err, errs.NotFound) {
			t.Fatalf("revoke in another organisation: %v", err)
		}

		// RevokeLinks of a contact; EndSessions of a role.
		owner, _, _ := f.svc.IssueLink(ctx, spec("c-2", "asset_owner"))
		exOwner, _ := f.svc.Exchange(ctx, owner)
		if err := f.svc.EndSessions(ctx, "acme", "ob-1", magic.SessionFilter{Role: "asset_owner"}, "role_removed"); err != nil {
			t.Fatal(err)
		}
		if f.inForce(t, exOwner.AccessToken) {
			t.Fatal("an ended role's session is in force")
		}
		if _, err := f.svc.Exchange(ctx, owner); err != nil {
			t.Fatalf("the link stays usable after its sessions end: %v", err)
		}
		n, err := f.svc.RevokeLinks(ctx, "acme", "ob-1", magic.LinkFilter{ContactID: "c-2"}, "contact_deleted")
		if err != nil || n != 1 {
			t.Fatalf("revoke links: %d %v", n, err)
		}
		if _, err := f.svc.Exchange(ctx, owner); code(err) != magic.CodeLinkNotFound {
			t.Fatalf("exchange of a deleted contact's link: %v", err)
		}
	})
}

func TestResendLink(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		f := newFixture(t, b)
		old, l, _ := f.svc.IssueLink(ctx, spec("c-1", "epc"))
		f.platform.Advance(time.Hour)
		kept, resent, err := f.svc.ResendLink(ctx, "acme", "ob-1", l.ID, magic.ResendSpec{Language: "de"})
		if err != nil || resent.SendCount != 2 || resent.Language != "de" || !resent.ExpiresAt.Equal(l.ExpiresAt) ||
			!resent.LastSentAt.Equal(testkit.Start.Add(time.Hour)) {
			t.Fatalf("resend: %+v %v", resent, err)
		}
		for _, raw := range []string{old, kept} {
			if _, err := f.svc.Exchange(ctx, raw); err != nil {
				t.Fatalf("without rotate both tokens work: %v", err)
			}
		}
		rotated, resent, err := f.svc.ResendLink(ctx, "acme", "ob-1", l.ID, magic.ResendSpec{Rotate: true, ExpiresInDays: 2})
		if err != nil || !resent.ExpiresAt.Equal(testkit.SecurityStart.Add(48*time.Hour)) {
			t.Fatalf("rotate: %+v %v", resent, err)
		}
		for _, raw := range []string{old, kept} {
			if _, err := f.svc.Exchange(ctx, raw); code(err) != magic.CodeLinkNotFound {
				t.Fatalf("a rotated-out token works: %v", err)
			}
		}
		ex, err := f.svc.Exchange(ctx, rotated)
		if err != nil || !ex.Session.ExpiresAt.Equal(resent.ExpiresAt) {
			t.Fatalf("exchange after rotate: %+v %v", ex.Session, err)
		}
		f.security.Advance(48 * time.Hour)
		if _, _, err := f.svc.ResendLink(ctx, "acme", "ob-1", l.ID, magic.ResendSpec{}); code(err) != magic.CodeLinkExpired {
			t.Fatalf("resend expired: %v", err)
		}
		_, l2, _ := f.svc.IssueLink(ctx, spec("c-2", "tso"))
		_, _ = f.svc.RevokeLink(ctx, "acme", "ob-1", l2.ID, "")
		if _, _, err := f.svc.ResendLink(ctx, "acme", "ob-1", l2.ID, magic.ResendSpec{}); code(err) != magic.CodeLinkRevoked {
			t.Fatalf("resend revoked: %v", err)
		}
	})
}

func TestLogout(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		f := newFixture(t, b)
		raw, _, _ := f.svc.IssueLink(ctx, spec("c-1", "epc"))
		ex, _ := f.svc.Exchange(ctx, raw)
		other, _ := f.svc.Exchange(ctx, raw)
		p, _ := f.tokens.Verify(ex.AccessToken)
		for range 2 {
			if err := f.svc.Logout(ctx, p.OrganizationID, *p.Task); err != nil {
				t.Fatal(err)
			}
		}
		if f.inForce(t, ex.AccessToken) || !f.inForce(t, other.AccessToken) {
			t.Fatal("logout ended the wrong sessions")
		}
		if _, err := f.svc.Refresh(ctx, ex.Session.ID, ex.RefreshToken); code(err) != magic.CodeSessionEnded {
			t.Fatalf("refresh after logout: %v", err)
		}
		// A day after it ended, the next exchange of its link deletes it.
		if _, err := f.store.SessionByID(ctx, ex.Session.ID); err != nil {
			t.Fatalf("ended session deleted at once: %v", err)
		}
		f.security.Advance(magic.SessionKept + time.Second)
		if _, err := f.svc.Exchange(ctx, raw); err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.SessionByID(ctx, ex.Session.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("ended session kept: %v", err)
		}
		if _, err := f.store.SessionByID(ctx, other.Session.ID); err != nil {
			t.Fatalf("open session deleted: %v", err)
		}
	})
}

// TestSessionCheckComparesTheGrant: a token naming a session of another
// onboarding, contact or role is not in force.
func TestSessionCheckComparesTheGrant(t *testing.T) {
	b := testkit.OpenSQLite(t)
	ctx := context.Background()
	f := newFixture(t, b)
	raw, _, _ := f.svc.IssueLink(ctx, spec("c-1", "epc"))
	ex, _ := f.svc.Exchange(ctx, raw)
	check := magic.NewSessionCheck(f.store, f.security)
	grant := func(change func(g *auth.TaskGrant)) *auth.Principal {
		g := auth.TaskGrant{OnboardingID: "ob-1", ContactID: "c-1", Role: "epc", SessionID: ex.Session.ID}
		change(&g)
		return &auth.Principal{OrganizationID: "acme", Task: &g}
	}
	if ok, err := check.TaskSessionInForce(ctx, grant(func(*auth.TaskGrant) {})); !ok || err != nil {
		t.Fatalf("own grant: %v %v", ok, err)
	}
	for name, change := range map[string]func(g *auth.TaskGrant){
		"onboarding": func(g *auth.TaskGrant) { g.OnboardingID = "ob-2" },
		"contact":    func(g *auth.TaskGrant) { g.ContactID = "c-2" },
		"role":       func(g *auth.TaskGrant) { g.Role = "tso" },
		"session":    func(g *auth.TaskGrant) { g.SessionID = "nope" },
	} {
		if ok, err := check.TaskSessionInForce(ctx, grant(change)); ok || err != nil {
			t.Errorf("%s: %v %v", name, ok, err)
		}
	}
	p := grant(func(*auth.TaskGrant) {})
	p.OrganizationID = "other"
	if ok, _ := check.TaskSessionInForce(ctx, p); ok {
		t.Error("another organisation's token is in force")
	}
}
