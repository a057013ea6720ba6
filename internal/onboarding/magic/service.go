package magic

import (
	"context"
	"time"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
)

// LinkTargets tells the exchange (and each refresh) whether a link's
// target still stands: the onboarding is in_progress and the contact
// still holds the role. The onboarding core and contacts implement it;
// it runs inside the exchange's transaction (ctx carries it). ok false
// (the workflow closed, the contact deleted, the role removed, anything
// unknown) refuses the link as if it did not exist.
type LinkTargets interface {
	Check(ctx context.Context, org, onboardingID, contactID, role string) (Target, bool, error)
}

// Target is what the exchange answers about the link's contact and
// onboarding besides the tokens.
type Target struct {
	ContactName  string
	ContactEmail string
	// Language is the contact's language, "" when not set; the session's
	// is the link's, else this, else the branding's default.
	Language string
	// DefaultLanguage is the branding's magic_link_default_language
	// ("de" when unset).
	DefaultLanguage string
	// Branding is the wire form of the organisation's branding
	// (document 1, Branding), answered as it is.
	Branding any
}

// Auditor records what happens to links and sessions in the onboarding's
// audit trail, inside the transaction of the change (ctx carries it). The
// onboarding core provides it; without one nothing is recorded.
type Auditor interface {
	MagicLinkEvent(ctx context.Context, e AuditEvent) error
}

// The audited actions.
const (
	ActionLinkIssued    = "link.issued"
	ActionLinkRevoked   = "link.revoked"
	ActionLinkResent    = "link.resent"
	ActionLinkExchanged = "link.exchanged"
	ActionSessionEnded  = "session.ended"
)

// AuditEvent is one audited change: the link's or session's ids, the
// actor being the link's contact for exchanges and logouts and the caller
// of the service otherwise (the core knows it).
type AuditEvent struct {
	Action         string
	OrganizationID string
	OnboardingID   string
	LinkID         string
	SessionID      string
	ContactID      string
	Role           string
	Reason         string
	At             time.Time // platform clock
}

// Service runs links and sessions.
type Service struct {
	store    Store
	targets  LinkTargets
	tokens   *auth.Tokens
	clk      clock.Clock // platform: records
	security clock.Clock // lifetimes and tokens
	auditor  Auditor
}

// NewService returns the service. targets is required: without it no
// link could be judged, so the exchange could not run.
func NewService(store Store, targets LinkTargets, tokens *auth.Tokens, platform, security clock.Clock) *Service {
	if store == nil || targets == nil || tokens == nil || platform == nil || security == nil {
		panic("magic: NewService needs a store, the link targets, the token service and both clocks")
	}
	return &Service{store: store, targets: targets, tokens: tokens, clk: platform, security: security}
}

// SetAuditor records the audit events through a (nil: none).
func (s *Service) SetAuditor(a Auditor) { s.auditor = a }

func (s *Service) audit(ctx context.Context, e AuditEvent) error {
	if s.auditor == nil {
		return nil
	}
	e.At = s.clk.Now()
	return s.auditor.MagicLinkEvent(ctx, e)
}

func linkNotFound() error {
	return errs.E(errs.NotFound, CodeLinkNotFound, "no such link: it is unknown, expired or revoked, or its onboarding or contact is gone")
}

func sessionEnded() error {
	return errs.E(errs.Conflict, CodeSessionEnded, "the session has ended: exchange the link again")
}

// IssueLink creates a link and its raw token (to be mailed, never
// stored). The contact's active link for the same role is revoked and its
// sessions ended (one active link per contact and role). Call it inside
// the onboarding's transaction (the core's Mutate), whose row lock
// serialises concurrent issues of one onboarding.
func (s *Service) IssueLink(ctx context.Context, spec LinkSpec) (raw string, l Link, err error) {
	if err := spec.Validate(); err != nil {
		return "", Link{}, err
	}
	days := spec.ExpiresInDays
	if days == 0 {
		days = DefaultLinkDays
	}
	raw, h := NewLinkToken()
	now, at := s.security.Now(), s.clk.Now()
	l = Link{ID: uuid.NewString(), OrganizationID: spec.OrganizationID, OnboardingID: spec.OnboardingID, ContactID: spec.ContactID,
		Role: spec.Role, Language: spec.Language, TokenHash: h[:], CreatedAt: at, CreatedBy: spec.CreatedBy,
		ExpiresAt: now.Add(time.Duration(days) * 24 * time.Hour), SendCount: 1, LastSentAt: &at}
	err = s.store.Tx(ctx, func(ctx context.Context) error {
		previous, err := s.store.Links(ctx, spec.OrganizationID, spec.OnboardingID, LinkFilter{ContactID: spec.ContactID, Role: spec.Role}, now)
		if err != nil {
			return err
		}
		for _, p := range previous {
			if p.Status(now) == LinkActive {
				if _, err := s.revoke(ctx, p, RevokeReissued); err != nil {
					return err
				}
			}
		}
		if err := s.store.InsertLink(ctx, l); err != nil {
			return err
		}
		return s.audit(ctx, AuditEvent{Action: ActionLinkIssued, OrganizationID: l.OrganizationID, OnboardingID: l.OnboardingID,
			LinkID: l.ID, ContactID: l.ContactID, Role: l.Role})
	})
	if err != nil {
		return "", Link{}, err
	}
	return raw, l, nil
}

// ListLinks returns the links of an onboarding matching f, oldest first.
func (s *Service) ListLinks(ctx context.Context, org, onboardingID string, f LinkFilter) ([]Link, error) {
	now := s.security.Now()
	all, err := s.store.Links(ctx, org, onboardingID, f, now)
	if err != nil || f.Status == "" {
		return all, err
	}
	out := []Link{}
	for _, l := range all {
		if l.Status(now) == f.Status {
			out = append(out, l)
		}
	}
	return out, nil
}

// GetLink returns one link of an onboarding.
func (s *Service) GetLink(ctx context.Context, org, onboardingID, linkID string) (Link, error) {
	return s.store.Link(ctx, org, onboardingID, linkID, s.security.Now(), false)
}

// RevokeLink revokes a link and ends its sessions at once; revoking a
// revoked link changes nothing.
func (s *Service) RevokeLink(ctx context.Context, org, onboardingID, linkID, reason string) (l Link, err error) {
	err = s.store.Tx(ctx, func(ctx context.Context) error {
		if l, err = s.store.Link(ctx, org, onboardingID, linkID, s.security.Now(), true); err != nil {
			return err
		}
		if l.RevokedAt != nil {
			return nil
		}
		l, err = s.revoke(ctx, l, reason)
		return err
	})
	return l, err
}

// RevokeLinks revokes the active links of an onboarding matching f (a
// contact deleted, a role removed, the workflow cancelled) and ends every
// session of theirs; it returns how many links it revoked.
func (s *Service) RevokeLinks(ctx context.Context, org, onboardingID string, f LinkFilter, reason string) (n int, err error) {
	err = s.store.Tx(ctx, func(ctx context.Context) error {
		now := s.security.Now()
		links, err := s.store.Links(ctx, org, onboardingID, LinkFilter{ContactID: f.ContactID, Role: f.Role}, now)
		if err != nil {
			return err
		}
		for _, l := range links {
			if l.RevokedAt == nil {
				if _, err := s.revoke(ctx, l, reason); err != nil {
					return err
				}
				n++
			}
		}
		// Sessions of expired links may still be open.
		return s.endSessions(ctx, org, onboardingID, SessionFilter{ContactID: f.ContactID, Role: f.Role}, reason)
	})
	return n, err
}

// revoke marks l revoked and ends its sessions, inside a transaction.
func (s *Service) revoke(ctx context.Context, l Link, reason string) (Link, error) {
	at := s.clk.Now()
	l.RevokedAt, l.RevokeReason, l.OpenSessions = &at, reason, 0
	if err := s.store.UpdateLink(ctx, l); err != nil {
		return Link{}, err
	}
	if err := s.audit(ctx, AuditEvent{Action: ActionLinkRevoked, OrganizationID: l.OrganizationID, OnboardingID: l.OnboardingID,
		LinkID: l.ID, ContactID: l.ContactID, Role: l.Role, Reason: reason}); err != nil {
		return Link{}, err
	}
	return l, s.endSessions(ctx, l.OrganizationID, l.OnboardingID, SessionFilter{LinkID: l.ID}, EndLinkRevoked)
}

// ResendLink mints a new token for the same link (the raw token is not
// stored, so the mail cannot be sent again as it was): link id, role and
// expiry are kept unless spec changes them. Without Rotate the token
// before keeps working next to the new one (a token older than that
// stops); with it, only the new one works.
func (s *Service) ResendLink(ctx context.Context, org, onboardingID, linkID string, spec ResendSpec) (raw string, l Link, err error) {
	if err := spec.Validate(); err != nil {
		return "", Link{}, err
	}
	raw, h := NewLinkToken()
	err = s.store.Tx(ctx, func(ctx context.Context) error {
		now, at := s.security.Now(), s.clk.Now()
		if l, err = s.store.Link(ctx, org, onboardingID, linkID, now, true); err != nil {
			return err
		}
		switch l.Status(now) {
		case LinkRevoked:
			return errs.Conflictf(CodeLinkRevoked, "link %s is revoked: issue a new one", linkID)
		case LinkExpired:
			return errs.Conflictf(CodeLinkExpired, "link %s has expired: issue a new one", linkID)
		}
		l.PriorTokenHash = nil
		if !spec.Rotate {
			l.PriorTokenHash = l.TokenHash
		}
		l.TokenHash = h[:]
		if spec.Language != "" {
			l.Language = spec.Language
		}
		if spec.ExpiresInDays > 0 {
			l.ExpiresAt = now.Add(time.Duration(spec.ExpiresInDays) * 24 * time.Hour)
		}
		l.SendCount++
		l.LastSentAt = &at
		if err := s.store.UpdateLink(ctx, l); err != nil {
			return err
		}
		if err := s.store.CapSessions(ctx, org, onboardingID, linkID, l.ExpiresAt); err != nil {
			return err
		}
		return s.audit(ctx, AuditEvent{Action: ActionLinkResent, OrganizationID: org, OnboardingID: onboardingID, LinkID: linkID,
			ContactID: l.ContactID, Role: l.Role})
	})
	if err != nil {
		return "", Link{}, err
	}
	return raw, l, nil
}

// EndSessions ends the sessions of an onboarding matching f at once: their
// access tokens stop on their next request (401), their refresh is 409.
func (s *Service) EndSessions(ctx context.Context, org, onboardingID string, f SessionFilter, reason string) error {
	return s.store.Tx(ctx, func(ctx context.Context) error { return s.endSessions(ctx, org, onboardingID, f, reason) })
}

func (s *Service) endSessions(ctx context.Context, org, onboardingID string, f SessionFilter, reason string) error {
	ids, err := s.store.EndSessions(ctx, org, onboardingID, f, s.clk.Now(), s.security.Now(), reason)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.audit(ctx, AuditEvent{Action: ActionSessionEnded, OrganizationID: org, OnboardingID: onboardingID,
			SessionID: id, LinkID: f.LinkID, ContactID: f.ContactID, Role: f.Role, Reason: reason}); err != nil {
			return err
		}
	}
	return nil
}

// Tokens are what an exchange or refresh answers.
type Tokens struct {
	AccessToken  string
	IDToken      string
	RefreshToken string
	ExpiresAt    time.Time // of the access token
}

// Exchanged is the answer of an exchange.
type Exchanged struct {
	Tokens
	Session Session
	Target  Target
}

// Exchange opens a session on the link whose raw token is given: 400
// malformed_token before any lookup; 404 link_not_found for an unknown,
// expired or revoked link or a target gone, all alike; 409
// link_session_limit when the link has MaxOpenSessions open.
func (s *Service) Exchange(ctx context.Context, raw string) (Exchanged, error) {
	h, err := ParseLinkToken(raw)
	if err != nil {
		return Exchanged{}, err
	}
	refresh, refreshHash := newToken(RefreshTokenPrefix)
	var out Exchanged
	err = s.store.Tx(ctx, func(ctx context.Context) error {
		l, err := s.store.LinkByToken(ctx, h)
		if errs.Is(err, errs.NotFound) {
			return linkNotFound()
		}
		if err != nil {
			return err
		}
		now := s.security.Now()
		if !h.Equal(l.TokenHash) && !h.Equal(l.PriorTokenHash) || l.Status(now) != LinkActive {
			return linkNotFound()
		}
		target, ok, err := s.targets.Check(ctx, l.OrganizationID, l.OnboardingID, l.ContactID, l.Role)
		if err != nil {
			return err
		}
		if !ok {
			return linkNotFound()
		}
		if err := s.store.DeleteSessions(ctx, l.OrganizationID, l.OnboardingID, l.ID, now.Add(-SessionKept)); err != nil {
			return err
		}
		open, err := s.store.CountOpenSessions(ctx, l.OrganizationID, l.OnboardingID, l.ID, now)
		if err != nil {
			return err
		}
		if open >= MaxOpenSessions {
			return errs.Conflictf(CodeLinkSessionLimit,
				"the link has %d open sessions, the most it may have: log out of one, or ask the onboarding manager for a new link", open)
		}
		at := s.clk.Now()
		sess := Session{ID: uuid.NewString(), OrganizationID: l.OrganizationID, OnboardingID: l.OnboardingID, LinkID: l.ID,
			ContactID: l.ContactID, Role: l.Role, Language: sessionLanguage(l, target), RefreshHash: refreshHash[:],
			AuthTime: now, ExpiresAt: sessionExpiry(now, l.ExpiresAt), CreatedAt: at, LastSeenAt: at, LinkExpiresAt: l.ExpiresAt}
		if err := s.store.InsertSession(ctx, sess); err != nil {
			return err
		}
		l.UseCount++
		l.LastUsedAt = &at
		if err := s.store.UpdateLink(ctx, l); err != nil {
			return err
		}
		out = Exchanged{Session: sess, Target: target}
		return s.audit(ctx, AuditEvent{Action: ActionLinkExchanged, OrganizationID: l.OrganizationID, OnboardingID: l.OnboardingID,
			LinkID: l.ID, SessionID: sess.ID, ContactID: l.ContactID, Role: l.Role})
	})
	if err != nil {
		return Exchanged{}, err
	}
	out.Tokens, err = s.issue(out.Session, out.Target.ContactEmail)
	out.RefreshToken = refresh
	return out, err
}

func sessionLanguage(l Link, t Target) string {
	switch {
	case l.Language != "":
		return l.Language
	case t.Language != "":
		return t.Language
	case t.DefaultLanguage != "":
		return t.DefaultLanguage
	}
	return "de"
}

// issue signs the access and ID tokens of a session.
func (s *Service) issue(sess Session, email string) (Tokens, error) {
	// Read before signing, whole seconds: never later than the token's exp.
	issued := s.security.Now().Truncate(time.Second)
	p := auth.Principal{OrganizationID: sess.OrganizationID, Email: email, ClientID: identity.ConsoleClientID,
		Task: &auth.TaskGrant{OnboardingID: sess.OnboardingID, ContactID: sess.ContactID, Role: sess.Role, SessionID: sess.ID}}
	access, expiresIn, err := s.tokens.IssueAccess(p)
	if err != nil {
		return Tokens{}, err
	}
	id, err := s.tokens.IssueID(auth.TaskSubjectPrefix+sess.ContactID, email, sess.OrganizationID, identity.ConsoleClientID, "", sess.AuthTime)
	if err != nil {
		return Tokens{}, err
	}
	return Tokens{AccessToken: access, IDToken: id, ExpiresAt: issued.Add(time.Duration(expiresIn) * time.Second)}, nil
}

// Refreshed is the answer of a refresh.
type Refreshed struct {
	Tokens
	Session Session
}

// Refresh rotates the session's refresh token and issues new tokens. A
// session unknown, ended or expired is 409 session_ended; a refresh token
// that is not the session's current one (a rotated one presented again:
// someone else holds a copy) ends the session and is 409 session_ended
// too, as is a session whose target is gone. Each refresh extends the
// session by SessionIdle, never beyond its link's expiry.
func (s *Service) Refresh(ctx context.Context, sessionID, rawRefresh string) (Refreshed, error) {
	h, ok := parseToken(RefreshTokenPrefix, rawRefresh)
	if _, err := uuid.Parse(sessionID); err != nil || !ok {
		return Refreshed{}, sessionEnded()
	}
	refresh, next := newToken(RefreshTokenPrefix)
	var sess Session
	var email string
	ended := false
	err := s.store.Tx(ctx, func(ctx context.Context) error {
		var err error
		sess, err = s.store.SessionByID(ctx, sessionID)
		if errs.Is(err, errs.NotFound) {
			return sessionEnded()
		}
		if err != nil {
			return err
		}
		now := s.security.Now()
		if !sess.Open(now) {
			return sessionEnded()
		}
		reason := ""
		if !h.Equal(sess.RefreshHash) {
			reason = EndRefreshReuse
		} else {
			target, ok, err := s.targets.Check(ctx, sess.OrganizationID, sess.OnboardingID, sess.ContactID, sess.Role)
			if err != nil {
				return err
			}
			if !ok {
				reason = EndTargetGone
			}
			email = target.ContactEmail
		}
		if reason != "" {
			// Committed, then refused: the end must stand.
			ended = true
			return s.endSession(ctx, sess, reason)
		}
		sess.RefreshHash, sess.Generation = next[:], sess.Generation+1
		sess.LastSeenAt, sess.ExpiresAt = s.clk.Now(), sessionExpiry(now, sess.LinkExpiresAt)
		return s.store.UpdateSession(ctx, sess)
	})
	if err != nil {
		return Refreshed{}, err
	}
	if ended {
		return Refreshed{}, sessionEnded()
	}
	tokens, err := s.issue(sess, email)
	tokens.RefreshToken = refresh
	return Refreshed{Tokens: tokens, Session: sess}, err
}

// Logout ends the caller's own session (org and g from its access
// token); a session already ended stays so.
func (s *Service) Logout(ctx context.Context, org string, g auth.TaskGrant) error {
	return s.store.Tx(ctx, func(ctx context.Context) error {
		sess, err := s.store.Session(ctx, org, g.SessionID, true)
		if errs.Is(err, errs.NotFound) {
			return nil
		}
		if err != nil || sess.EndedAt != nil {
			return err
		}
		return s.endSession(ctx, sess, EndLogout)
	})
}

// endSession ends one session, inside a transaction.
func (s *Service) endSession(ctx context.Context, sess Session, reason string) error {
	at, now := s.clk.Now(), s.security.Now()
	sess.EndedAt, sess.EndReason = &at, reason
	if now.Before(sess.ExpiresAt) {
		sess.ExpiresAt = now
	}
	if err := s.store.UpdateSession(ctx, sess); err != nil {
		return err
	}
	return s.audit(ctx, AuditEvent{Action: ActionSessionEnded, OrganizationID: sess.OrganizationID, OnboardingID: sess.OnboardingID,
		LinkID: sess.LinkID, SessionID: sess.ID, ContactID: sess.ContactID, Role: sess.Role, Reason: reason})
}

// SessionCheck decides whether a magic-link session's access token is
// still in force: its session is open on the security clock and is the
// one the token names. One lookup by primary key, no cache: ending a
// session (logout, revocation, reuse) stops its tokens on their next
// request.
type SessionCheck struct {
	store    Store
	security clock.Clock
}

var _ identity.TaskSessions = (*SessionCheck)(nil)

// NewSessionCheck returns the check on store.
func NewSessionCheck(store Store, security clock.Clock) *SessionCheck {
	return &SessionCheck{store: store, security: security}
}

// TaskSessionInForce implements identity.TaskSessions.
func (c *SessionCheck) TaskSessionInForce(ctx context.Context, p *auth.Principal) (bool, error) {
	if p.Task == nil {
		return false, nil
	}
	sess, err := c.store.Session(ctx, p.OrganizationID, p.Task.SessionID, false)
	if errs.Is(err, errs.NotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	g := p.Task
	return sess.Open(c.security.Now()) && sess.OnboardingID == g.OnboardingID && sess.ContactID == g.ContactID && sess.Role == g.Role, nil
}
