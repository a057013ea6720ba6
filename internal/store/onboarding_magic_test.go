package store_test

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

func withMagicOrgs(t *testing.T, b store.Backend) {
	t.Helper()
	for _, org := range []string{"acme", "other"} {
		if err := b.Directory().EnsureOrganization(context.Background(), identity.Organization{ID: org, Name: org, CreatedAt: testkit.Start}); err != nil {
			t.Fatal(err)
		}
	}
}

func testLink(id, contact, role string) (magic.Link, magic.TokenHash) {
	_, h := magic.NewLinkToken()
	return magic.Link{ID: id, OrganizationID: "acme", OnboardingID: "ob-1", ContactID: contact, Role: role, Language: "en",
		TokenHash: h[:], CreatedAt: testkit.Start.Add(time.Duration(len(id)) * time.Second), CreatedBy: "Petra Platform",
		ExpiresAt: testkit.SecurityStart.Add(30 * 24 * time.Hour), SendCount: 1, LastSentAt: ptr(testkit.Start)}, h
}

func ptr[T any](v T) *T { return &v }

func testSession(id string, l magic.Link, expires time.Time) magic.Session {
	_, h := magic.NewLinkToken()
	return magic.Session{ID: id, OrganizationID: l.OrganizationID, OnboardingID: l.OnboardingID, LinkID: l.ID, ContactID: l.ContactID,
		Role: l.Role, Language: "de", RefreshHash: h[:], AuthTime: testkit.SecurityStart, ExpiresAt: expires,
		CreatedAt: testkit.Start, LastSeenAt: testkit.Start}
}

func TestOnboardingMagicStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withMagicOrgs(t, b)
		s := b.OnboardingMagic()
		now := testkit.SecurityStart

		l1, h1 := testLink("link-1", "c-1", "epc")
		l2, _ := testLink("link-22", "c-2", "tso")
		l2.Language = ""
		for _, l := range []magic.Link{l1, l2} {
			if err := s.InsertLink(ctx, l); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.LinkByToken(ctx, h1)
		if err != nil || got.ID != "link-1" || got.Language != "en" || !got.CreatedAt.Equal(l1.CreatedAt) || !got.ExpiresAt.Equal(l1.ExpiresAt) ||
			got.PriorTokenHash != nil || got.RevokedAt != nil || got.LastSentAt == nil || !got.LastSentAt.Equal(testkit.Start) || got.CreatedBy != "Petra Platform" {
			t.Fatalf("by token: %+v %v", got, err)
		}
		_, unknown := magic.NewLinkToken()
		if _, err := s.LinkByToken(ctx, unknown); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown token: %v", err)
		}
		// A resend that keeps the token before: both find the link.
		_, h1b := magic.NewLinkToken()
		got.PriorTokenHash, got.TokenHash, got.SendCount = got.TokenHash, h1b[:], 2
		got.Language = ""
		if err := s.UpdateLink(ctx, got); err != nil {
			t.Fatal(err)
		}
		for _, h := range []magic.TokenHash{h1, h1b} {
			if l, err := s.LinkByToken(ctx, h); err != nil || l.ID != "link-1" || l.SendCount != 2 || l.Language != "" {
				t.Fatalf("after resend: %+v %v", l, err)
			}
		}

		// Sessions: open, ended, expired; only open ones count.
		open := testSession("00000000-0000-4000-8000-000000000001", l1, now.Add(time.Hour))
		ended := testSession("00000000-0000-4000-8000-000000000002", l1, now.Add(time.Hour))
		ended.EndedAt, ended.EndReason = ptr(testkit.Start), magic.EndLogout
		expired := testSession("00000000-0000-4000-8000-000000000003", l1, now)
		other := testSession("00000000-0000-4000-8000-000000000004", l2, now.Add(time.Hour))
		for _, x := range []magic.Session{open, ended, expired, other} {
			if err := s.InsertSession(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := s.CountOpenSessions(ctx, "acme", "ob-1", "link-1", now); err != nil || n != 1 {
			t.Fatalf("open sessions: %d %v", n, err)
		}
		links, err := s.Links(ctx, "acme", "ob-1", magic.LinkFilter{}, now)
		if err != nil || len(links) != 2 || links[0].ID != "link-1" || links[0].OpenSessions != 1 || links[1].OpenSessions != 1 {
			t.Fatalf("links: %+v %v", links, err)
		}
		if links, err := s.Links(ctx, "acme", "ob-1", magic.LinkFilter{ContactID: "c-2", Role: "tso"}, now); err != nil || len(links) != 1 || links[0].ID != "link-22" {
			t.Fatalf("filtered: %+v %v", links, err)
		}
		if links, err := s.Links(ctx, "other", "ob-1", magic.LinkFilter{}, now); err != nil || len(links) != 0 {
			t.Fatalf("another organisation's: %+v %v", links, err)
		}
		if _, err := s.Link(ctx, "other", "ob-1", "link-1", now, false); !errs.Is(err, errs.NotFound) {
			t.Fatalf("link of another organisation: %v", err)
		}
		x, err := s.Session(ctx, "acme", open.ID, false)
		if err != nil || x.LinkExpiresAt != l1.ExpiresAt || !x.ExpiresAt.Equal(open.ExpiresAt) || x.Language != "de" || x.EndedAt != nil ||
			string(x.RefreshHash) != string(open.RefreshHash) {
			t.Fatalf("session: %+v %v", x, err)
		}
		if _, err := s.Session(ctx, "other", open.ID, false); !errs.Is(err, errs.NotFound) {
			t.Fatalf("session of another organisation: %v", err)
		}
		byID, err := s.SessionByID(ctx, ended.ID)
		if err != nil || byID.EndReason != magic.EndLogout || byID.EndedAt == nil {
			t.Fatalf("by id: %+v %v", byID, err)
		}
		byID.Generation, byID.RefreshHash = 3, h1[:]
		if err := s.UpdateSession(ctx, byID); err != nil {
			t.Fatal(err)
		}
		if x, _ := s.SessionByID(ctx, ended.ID); x.Generation != 3 {
			t.Fatalf("updated: %+v", x)
		}
		if err := s.CapSessions(ctx, "acme", "ob-1", "link-1", now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if x, _ := s.Session(ctx, "acme", open.ID, false); !x.ExpiresAt.Equal(now.Add(time.Minute)) {
			t.Fatalf("capped: %v", x.ExpiresAt)
		}
		if x, _ := s.Session(ctx, "acme", expired.ID, false); !x.ExpiresAt.Equal(now) {
			t.Fatalf("an earlier expiry moved: %v", x.ExpiresAt)
		}

		// Ending by link ends the not yet ended ones, expired included.
		ids, err := s.EndSessions(ctx, "acme", "ob-1", magic.SessionFilter{LinkID: "link-1"}, testkit.Start, now.Add(time.Second), magic.EndLinkRevoked)
		if err != nil || len(ids) != 2 {
			t.Fatalf("end: %v %v", ids, err)
		}
		if ids, err := s.EndSessions(ctx, "acme", "ob-1", magic.SessionFilter{ContactID: "c-2", Role: "epc"}, testkit.Start, now, "x"); err != nil || len(ids) != 0 {
			t.Fatalf("no match: %v %v", ids, err)
		}
		if ids, err := s.EndSessions(ctx, "acme", "ob-1", magic.SessionFilter{ContactID: "c-2", Role: "tso"}, testkit.Start, now, "x"); err != nil || len(ids) != 1 || ids[0] != other.ID {
			t.Fatalf("by contact and role: %v %v", ids, err)
		}
		// Ending moved the expiry back to the instant given; deleting goes by it.
		if x, _ := s.Session(ctx, "acme", open.ID, false); !x.ExpiresAt.Equal(now.Add(time.Second)) || x.EndReason != magic.EndLinkRevoked {
			t.Fatalf("ended session: %+v", x)
		}
		if err := s.DeleteSessions(ctx, "acme", "ob-1", "link-1", now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session(ctx, "acme", expired.ID, false); !errs.Is(err, errs.NotFound) {
			t.Fatalf("an old expired session was kept: %v", err)
		}
		for _, id := range []string{open.ID, ended.ID, other.ID} {
			if _, err := s.Session(ctx, "acme", id, false); err != nil {
				t.Fatalf("session %s deleted too early: %v", id, err)
			}
		}

		// A transaction that fails leaves nothing.
		l3, h3 := testLink("link-3", "c-3", "epc")
		boom := errors.New("boom")
		if err := s.Tx(ctx, func(ctx context.Context) error {
			if err := s.InsertLink(ctx, l3); err != nil {
				return err
			}
			if _, err := s.LinkByToken(ctx, h3); err != nil {
				return err
			}
			return boom
		}); err != boom {
			t.Fatalf("tx: %v", err)
		}
		if _, err := s.LinkByToken(ctx, h3); !errs.Is(err, errs.NotFound) {
			t.Fatalf("rolled back link found: %v", err)
		}
		if err := s.UpdateLink(ctx, l3); !errs.Is(err, errs.NotFound) {
			t.Fatalf("update of a missing link: %v", err)
		}
		// A token hash is unique.
		dup, _ := testLink("link-4", "c-4", "epc")
		dup.TokenHash = h1b[:]
		if err := s.InsertLink(ctx, dup); err == nil {
			t.Fatal("a second link with the same token hash was stored")
		}
	})
}

// magicTargets answers every target as standing.
type magicTargets struct{}

func (magicTargets) Check(context.Context, string, string, string, string) (magic.Target, bool, error) {
	return magic.Target{ContactName: "Erik", ContactEmail: "erik@epc.example"}, true, nil
}

// TestOnboardingMagicSessionCapUnderConcurrency: concurrent exchanges of
// one link open exactly MaxOpenSessions sessions; the others get 409
// link_session_limit.
func TestOnboardingMagicSessionCapUnderConcurrency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withMagicOrgs(t, b)
		security := clock.NewManual(testkit.SecurityStart)
		tokens, err := auth.NewTokens(ctx, b, "http://atcp.test", security)
		if err != nil {
			t.Fatal(err)
		}
		svc := magic.NewService(b.OnboardingMagic(), magicTargets{}, tokens, clock.NewManual(testkit.Start), security)
		raw, _, err := svc.IssueLink(ctx, magic.LinkSpec{OrganizationID: "acme", OnboardingID: "ob-1", ContactID: "c-1", Role: "epc"})
		if err != nil {
			t.Fatal(err)
		}
		const tries = 3 * magic.MaxOpenSessions
		var wg sync.WaitGroup
		results := make(chan error, tries)
		for range tries {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := svc.Exchange(ctx, raw)
				results <- err
			}()
		}
		wg.Wait()
		close(results)
		opened := 0
		for err := range results {
			var de *errs.Error
			switch {
			case err == nil:
				opened++
			case errors.As(err, &de) && de.Code == magic.CodeLinkSessionLimit:
			default:
				t.Errorf("exchange: %v", err)
			}
		}
		if opened != magic.MaxOpenSessions {
			t.Fatalf("%d sessions opened, want %d", opened, magic.MaxOpenSessions)
		}
		links, err := svc.ListLinks(ctx, "acme", "ob-1", magic.LinkFilter{})
		if err != nil || len(links) != 1 || links[0].OpenSessions != magic.MaxOpenSessions || links[0].UseCount != magic.MaxOpenSessions {
			t.Fatalf("links: %+v %v", links, err)
		}
	})
}
