package contacts

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/magic"
)

// Limits of the access-link endpoints.
const (
	MaxMessageLength = 1000
	// MaxSendsPerHour bounds the mails of one link (issue and resends) in
	// the last hour of the security clock (SendLimit).
	MaxSendsPerHour = 5
	// MaxMailsPerContactHour bounds the access-link mails to one contact
	// (every link's issue and resends) in the last hour of the security
	// clock (ContactMailLimit): issuing a new link, which revokes the old
	// one, must not reset the count a recipient is protected by.
	MaxMailsPerContactHour = 10
)

// SendLimit counts the mails of a link (subject: the link id) in rate
// marks on the security clock, which every instance reads.
var SendLimit = onboarding.RateLimit{Kind: "access_link.send", Max: MaxSendsPerHour, Window: time.Hour}

// ContactMailLimit counts the access-link mails to a contact (subject: the
// contact id) as SendLimit counts a link's.
var ContactMailLimit = onboarding.RateLimit{Kind: "access_link.contact_mail", Max: MaxMailsPerContactHour, Window: time.Hour}

// contactMailWait refuses a mail to contactID beyond ContactMailLimit.
func (s *Service) contactMailWait(ctx context.Context, ob onboarding.Onboarding, contactID string, now time.Time) error {
	wait, err := s.d.Core.RateWait(ctx, ob, ContactMailLimit, contactID, now)
	if err != nil || wait == 0 {
		return err
	}
	return &RateLimited{Code: CodeContactMailRateLimited, RetryAfter: wait,
		Reason: fmt.Sprintf("contact %s was sent %d access-link mails in the last hour", contactID, MaxMailsPerContactHour)}
}

// markMail records a mail of link l to its contact under both limits.
func (s *Service) markMail(ctx context.Context, ob onboarding.Onboarding, l magic.Link, now time.Time) error {
	if err := s.d.Core.MarkRate(ctx, ob, SendLimit.Kind, l.ID, now); err != nil {
		return err
	}
	return s.d.Core.MarkRate(ctx, ob, ContactMailLimit.Kind, l.ContactID, now)
}

// LinkView is an access link with its contact's name and address and
// where the mail of its last send stands.
type LinkView struct {
	magic.Link
	ContactName  string
	ContactEmail string
	Delivery     DeliveryStatus
}

// DeliveryStatus is where the mail of a link's last send stands.
type DeliveryStatus string

// The delivery statuses: queued in the outbox, taken by the mail server,
// or given up (dead); "" when the outbox no longer knows the mail.
const (
	DeliveryQueued DeliveryStatus = "queued"
	DeliverySent   DeliveryStatus = "sent"
	DeliveryFailed DeliveryStatus = "failed"
)

// MailEventID is the outbox event id of the mail of l's latest send
// (issue or resend): derived from the link and its send count, so that
// the link's delivery status is one lookup without storing the id.
func MailEventID(l magic.Link) uuid.UUID {
	return uuid.NewSHA1(mailNamespace, []byte(l.ID+"/"+strconv.Itoa(l.SendCount)))
}

// mailNamespace is the UUID namespace of access-link mail event ids.
var mailNamespace = uuid.MustParse("6d0c8a86-3c3e-4a8e-9a3f-2f1d1c7f5b21")

// IssueRequest is the body of POST …/access-links.
type IssueRequest struct {
	ContactID     string
	Role          string
	Language      string
	ExpiresInDays int // 0: magic.DefaultLinkDays
	Message       string
}

func checkMessage(msg string) error {
	if !plainText(msg, true) || utf8.RuneCountInString(msg) > MaxMessageLength {
		return errs.Invalidf("body.message", nil, "must be UTF-8 text of at most %d characters without control characters other than line breaks and tabs", MaxMessageLength)
	}
	return nil
}

// plainText reports whether s is UTF-8 without control characters
// (line breaks and tabs allowed when multiline): a NUL could not be
// stored, and the text goes into mails and the audit trail.
func plainText(s string, multiline bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\r' || r == '\t')) {
			return false
		}
	}
	return true
}

// IssueLink issues a link to a contact for a role it holds and enqueues
// its e-mail, in one transaction: 404 contact_not_found, 422
// role_not_held. The contact's active link for that role is revoked.
func (s *Service) IssueLink(ctx context.Context, actor onboarding.Actor, onboardingID string, r IssueRequest) (LinkView, error) {
	var out LinkView
	err := s.d.Core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		if err := checkMessage(r.Message); err != nil {
			return err
		}
		if !slices.Contains(magic.LinkRoles, r.Role) {
			return errs.Invalidf("body.role", r.Role, "must be one of %s", strings.Join(magic.LinkRoles, ", "))
		}
		c, err := s.contact(ctx, ob, r.ContactID)
		if err != nil {
			return err
		}
		if !c.Holds(onboarding.TaskRole(r.Role)) {
			e := errs.E(errs.Invalid, CodeRoleNotHeld, "contact %s does not hold role %s", c.ID, r.Role)
			e.Fields = []errs.FieldError{{Location: "body.role", Message: "is not one of the contact's roles " + strings.Join(c.RoleNames(), ", "), Value: r.Role}}
			return e
		}
		now := s.d.Security.Now()
		if err := s.contactMailWait(ctx, ob, c.ID, now); err != nil {
			return err
		}
		ctx = withActor(ctx, actor)
		raw, l, err := s.magic.IssueLink(ctx, magic.LinkSpec{OrganizationID: ob.OrganizationID, OnboardingID: ob.ID, ContactID: c.ID,
			Role: r.Role, Language: r.Language, ExpiresInDays: r.ExpiresInDays, CreatedBy: actor.Name})
		if err != nil {
			return err
		}
		// The issue is the new link's first send.
		if err := s.markMail(ctx, ob, l, now); err != nil {
			return err
		}
		if err := s.d.Mailer.AccessLink(ctx, ob, AccessLinkMail{Contact: c, Link: l, Token: raw, Message: r.Message}); err != nil {
			return err
		}
		out, err = s.view(ctx, l)
		return err
	})
	return out, err
}

// LinkQuery narrows the access-link list.
type LinkQuery struct {
	magic.LinkFilter
	Limit, Offset int
}

// ListLinks returns a visible onboarding's links matching q, oldest first,
// and their total before paging.
func (s *Service) ListLinks(ctx context.Context, actor onboarding.Actor, onboardingID string, q LinkQuery) ([]LinkView, int, error) {
	if q.ContactID != "" && !onboarding.ValidID(q.ContactID) {
		return nil, 0, errs.Invalidf("query.contact_id", q.ContactID, "must be a contact id")
	}
	ob, err := s.d.Core.Get(ctx, actor, onboardingID)
	if err != nil {
		return nil, 0, err
	}
	links, err := s.magic.ListLinks(ctx, ob.OrganizationID, ob.ID, q.LinkFilter)
	if err != nil {
		return nil, 0, err
	}
	total := len(links)
	from := min(q.Offset, total)
	to := min(from+q.Limit, total)
	out := make([]LinkView, 0, to-from)
	for _, l := range links[from:to] {
		v, err := s.view(ctx, l)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, nil
}

// view adds the contact's name and address (empty for a deleted
// contact) and the delivery status of the link's last mail.
func (s *Service) view(ctx context.Context, l magic.Link) (LinkView, error) {
	c, err := s.d.Store.Contact(ctx, l.OrganizationID, l.OnboardingID, l.ContactID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return LinkView{}, err
	}
	v := LinkView{Link: l, ContactName: c.Name, ContactEmail: c.Email}
	d, err := s.d.Deliveries.Delivery(ctx, l.OrganizationID, MailEventID(l))
	switch {
	case errs.Is(err, errs.NotFound):
	case err != nil:
		return LinkView{}, err
	case d.SentAt != nil:
		v.Delivery = DeliverySent
	case d.Status == events.StatusDead:
		v.Delivery = DeliveryFailed
	default:
		v.Delivery = DeliveryQueued
	}
	return v, nil
}

func linkNotFound(id string) error {
	return errs.E(errs.NotFound, CodeLinkNotFound, "the onboarding has no access link %q", id)
}

// link reads a link of ob; a malformed or unknown id is 404
// access_link_not_found.
func (s *Service) link(ctx context.Context, ob onboarding.Onboarding, id string) (magic.Link, error) {
	if !onboarding.ValidID(id) {
		return magic.Link{}, linkNotFound(id)
	}
	l, err := s.magic.GetLink(ctx, ob.OrganizationID, ob.ID, id)
	if errs.Is(err, errs.NotFound) {
		return magic.Link{}, linkNotFound(id)
	}
	return l, err
}

// RevokeLink revokes a link of a visible onboarding and ends its sessions;
// revoking a revoked link changes nothing. A closed workflow's links were
// revoked by its cancel or stay until they expire, and may be revoked.
func (s *Service) RevokeLink(ctx context.Context, actor onboarding.Actor, onboardingID, linkID, reason string) (LinkView, error) {
	if !plainText(reason, false) || utf8.RuneCountInString(reason) > onboarding.MaxReasonLength {
		return LinkView{}, errs.Invalidf("body.reason", nil, "must be one line of UTF-8 of at most %d characters", onboarding.MaxReasonLength)
	}
	ob, err := s.d.Core.Get(ctx, actor, onboardingID)
	if err != nil {
		return LinkView{}, err
	}
	if _, err := s.link(ctx, ob, linkID); err != nil {
		return LinkView{}, err
	}
	if reason == "" {
		reason = "revoked"
	}
	l, err := s.magic.RevokeLink(withActor(ctx, actor), ob.OrganizationID, ob.ID, linkID, reason)
	if err != nil {
		return LinkView{}, err
	}
	return s.view(ctx, l)
}

// ResendRequest is the body of …/resend.
type ResendRequest struct {
	Language      string
	Rotate        bool
	ExpiresInDays int
}

// RateLimited is the refusal of a mail beyond MaxSendsPerHour (429
// resend_rate_limited) or MaxMailsPerContactHour (429
// contact_mail_rate_limited), to be retried after RetryAfter.
type RateLimited struct {
	Code       errs.Code
	Reason     string
	RetryAfter time.Duration
}

func (e *RateLimited) Error() string {
	return fmt.Sprintf("%s; retry in %s", e.Reason, e.RetryAfter.Round(time.Second))
}

// ResendLink mints a new token for a link and mails it: 409 link_revoked,
// link_expired, onboarding_closed; *RateLimited beyond MaxSendsPerHour.
func (s *Service) ResendLink(ctx context.Context, actor onboarding.Actor, onboardingID, linkID string, r ResendRequest) (LinkView, error) {
	var out LinkView
	err := s.d.Core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		l, err := s.link(ctx, ob, linkID)
		if err != nil {
			return err
		}
		if l.RevokedAt != nil {
			return errs.Conflictf(magic.CodeLinkRevoked, "link %s is revoked: issue a new one", linkID)
		}
		now := s.d.Security.Now()
		wait, err := s.d.Core.RateWait(ctx, ob, SendLimit, l.ID, now)
		if err != nil {
			return err
		}
		if wait > 0 {
			return &RateLimited{Code: CodeResendRateLimited, RetryAfter: wait,
				Reason: fmt.Sprintf("the link was sent %d times in the last hour", MaxSendsPerHour)}
		}
		c, err := s.d.Store.Contact(ctx, ob.OrganizationID, ob.ID, l.ContactID)
		if errs.Is(err, errs.NotFound) {
			// A deleted contact's links are revoked with it.
			return errs.Conflictf(magic.CodeLinkRevoked, "link %s is revoked: issue a new one", linkID)
		}
		if err != nil {
			return err
		}
		if err := s.contactMailWait(ctx, ob, c.ID, now); err != nil {
			return err
		}
		ctx = withActor(ctx, actor)
		raw, l, err := s.magic.ResendLink(ctx, ob.OrganizationID, ob.ID, linkID,
			magic.ResendSpec{Language: r.Language, Rotate: r.Rotate, ExpiresInDays: r.ExpiresInDays})
		if err != nil {
			return err
		}
		if err := s.markMail(ctx, ob, l, now); err != nil {
			return err
		}
		if err := s.d.Mailer.AccessLink(ctx, ob, AccessLinkMail{Contact: c, Link: l, Token: raw}); err != nil {
			return err
		}
		out, err = s.view(ctx, l)
		return err
	})
	return out, err
}
