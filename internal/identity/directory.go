package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
)

// SetPasswordPath is the path of the set-password page under the base URL.
const SetPasswordPath = "/set-password"

// Directory manages organisations, the people of each organisation, their
// scopes and preferences, and the one-time links with which people set
// their passwords. Every method taking an *auth.Principal authorises it.
type Directory struct {
	store DirectoryStore
	// clock stamps the records (organisations, people, preferences) on
	// the platform's timeline; security times the set-password links,
	// which a person receives and uses in real life (docs/authentication.md,
	// Security time).
	clock    clock.Clock
	security clock.Clock
	baseURL  string
	hasher   *auth.Hasher
}

// NewDirectory returns the directory service on the platform clock clk;
// baseURL is the public base URL set-password links point to. Its links
// run on the machine's clock until SetSecurityClock says otherwise, and it
// hashes passwords with a Hasher of its own until SetHasher gives it the
// process's shared one.
func NewDirectory(store DirectoryStore, clk clock.Clock, baseURL string) *Directory {
	return &Directory{store: store, clock: clk, security: clock.Real{}, baseURL: strings.TrimRight(baseURL, "/"), hasher: auth.NewCoreHasher()}
}

// SetSecurityClock makes the set-password links run on c; tests move it
// by hand.
func (d *Directory) SetSecurityClock(c clock.Clock) { d.security = c }

// SetHasher makes the service hash passwords with h, the Hasher every
// argon2id call of the process shares.
func (d *Directory) SetHasher(h *auth.Hasher) { d.hasher = h }

// now is the platform time, for records.
func (d *Directory) now() time.Time { return d.clock.Now().UTC().Truncate(time.Microsecond) }

// securityNow is the security time, for links.
func (d *Directory) securityNow() time.Time { return d.security.Now().UTC().Truncate(time.Microsecond) }

func requirePlatformAdmin(p *auth.Principal) error {
	if !p.IsPlatformAdmin() {
		return errs.Forbiddenf(CodePlatformAdminRequired, "only platform administrators may do this")
	}
	return nil
}

// Organizations lists every organisation (platform administrators only).
func (d *Directory) Organizations(ctx context.Context, p *auth.Principal) ([]Organization, error) {
	if err := requirePlatformAdmin(p); err != nil {
		return nil, err
	}
	return d.store.Organizations(ctx)
}

// Organization returns one organisation (platform administrators only).
func (d *Directory) Organization(ctx context.Context, p *auth.Principal, id string) (Organization, error) {
	if err := requirePlatformAdmin(p); err != nil {
		return Organization{}, err
	}
	return d.store.Organization(ctx, id)
}

func newOrganization(id, name, location string, now time.Time) (Organization, error) {
	var v errs.Validation
	if err := ValidateOrganizationID(id); err != nil {
		v.Add(location+"organization_id", err.Error(), id)
	}
	clean, err := NormalizeOrganizationName(name)
	if err != nil {
		v.Add(location+"name", err.Error(), name)
	}
	if err := v.Err(); err != nil {
		return Organization{}, err
	}
	return Organization{ID: id, Name: clean, CreatedAt: now}, nil
}

// CreateOrganization creates an organisation (platform administrators only).
func (d *Directory) CreateOrganization(ctx context.Context, p *auth.Principal, id, name string) (Organization, error) {
	if err := requirePlatformAdmin(p); err != nil {
		return Organization{}, err
	}
	o, err := newOrganization(id, name, "body.", d.now())
	if err != nil {
		return Organization{}, err
	}
	if err := d.store.CreateOrganization(ctx, o); err != nil {
		return Organization{}, err
	}
	return o, nil
}

// EnsureOrganization creates the organisation unless it exists; an existing
// one keeps its name. For bootstrap and seeding.
func (d *Directory) EnsureOrganization(ctx context.Context, id, name string) error {
	o, err := newOrganization(id, name, "", d.now())
	if err != nil {
		return err
	}
	return d.store.EnsureOrganization(ctx, o)
}

// EnsureUser creates an active user with this password unless the email
// exists (in any organisation); an existing user is left unchanged. The
// organisation is created, named after its id, when it does not exist.
// The password must meet the same policy as a set-password link's. For
// bootstrap and tests.
func (d *Directory) EnsureUser(ctx context.Context, org, email, password string, scopes auth.ScopeSet) error {
	if err := ValidateOrganizationID(org); err != nil {
		return errs.Invalidf("organization_id", org, "%s", err.Error())
	}
	clean, err := NormalizeEmail(email)
	if err != nil {
		return errs.Invalidf("email", email, "%s", err.Error())
	}
	for sc := range scopes {
		if !auth.Known(sc) {
			return errs.Invalidf("scopes", string(sc), "unknown scope")
		}
	}
	if pp := CheckPassword(clean, password, password); pp != nil {
		return errs.Invalidf("password", nil, "%s", pp.Password)
	}
	if _, err := d.store.UserByEmail(ctx, clean); err == nil {
		return nil
	} else if !errs.Is(err, errs.NotFound) {
		return err
	}
	if err := d.EnsureOrganization(ctx, org, org); err != nil {
		return err
	}
	hash, err := d.hasher.Hash(ctx, password)
	if err != nil {
		return err
	}
	now := d.now()
	_, err = d.store.EnsureUser(ctx, User{
		ID: uuid.NewString(), OrganizationID: org, Email: clean, Scopes: copyScopes(scopes),
		Status: UserActive, Enabled: true, PasswordHash: hash, CreatedAt: now, UpdatedAt: now,
	})
	return err
}

func copyScopes(s auth.ScopeSet) auth.ScopeSet {
	out := make(auth.ScopeSet, len(s))
	for sc := range s {
		out[sc] = struct{}{}
	}
	return out
}

// targetOrganization resolves the organisation a request acts for: the
// caller's own unless a platform administrator names another one. A named
// organisation, and with mustExist the caller's own too, must exist.
func (d *Directory) targetOrganization(ctx context.Context, p *auth.Principal, named, location string, mustExist bool) (string, error) {
	if named == "" || named == p.OrganizationID {
		named = p.OrganizationID
	} else if !p.IsPlatformAdmin() {
		return "", errs.Forbiddenf(CodePlatformAdminRequired, "only platform administrators may act for another organisation")
	} else {
		mustExist = true
	}
	if !mustExist {
		return named, nil
	}
	if _, err := d.store.Organization(ctx, named); err != nil {
		if errs.Is(err, errs.NotFound) {
			return "", errs.Invalidf(location, named, "unknown organisation")
		}
		return "", err
	}
	return named, nil
}

// Users lists the people of the caller's organisation, or of org when a
// platform administrator names it.
func (d *Directory) Users(ctx context.Context, p *auth.Principal, org string) ([]User, error) {
	target, err := d.targetOrganization(ctx, p, org, "query.organization_id", false)
	if err != nil {
		return nil, err
	}
	return d.store.Users(ctx, p.Visibility(), target)
}

// scopesFrom checks scope names, naming each unknown one at
// location[index].
func scopesFrom(v *errs.Validation, location string, names []string) auth.ScopeSet {
	set, unknown := UnknownScopes(names)
	for _, i := range unknown {
		v.Add(fmt.Sprintf("%s[%d]", location, i), "unknown scope", names[i])
	}
	return set
}

// checkGrant refuses a grant of scopes the caller does not hold.
func checkGrant(p *auth.Principal, requested auth.ScopeSet, location string) error {
	missing := NotHeld(p.Scopes, requested)
	if len(missing) == 0 {
		return nil
	}
	names := auth.ScopeNames(missing)
	e := errs.Forbiddenf(CodeScopeNotHeld, "you may grant only scopes you hold yourself; you do not hold %s", strings.Join(names, ", "))
	for _, n := range names {
		e.Fields = append(e.Fields, errs.FieldError{Location: location, Message: "scope not held by the caller", Value: n})
	}
	return e
}

// CreateUser creates an invited person with a set-password link, which
// the caller passes on.
func (d *Directory) CreateUser(ctx context.Context, p *auth.Principal, in NewUser) (User, IssuedLink, error) {
	var v errs.Validation
	email, err := NormalizeEmail(in.Email)
	if err != nil {
		v.Add("body.email", err.Error(), in.Email)
	}
	scopes := scopesFrom(&v, "body.scopes", in.Scopes)
	requireNamedOrganization(&v, p, in.OrganizationID)
	if err := v.Err(); err != nil {
		return User{}, IssuedLink{}, err
	}
	org, err := d.targetOrganization(ctx, p, in.OrganizationID, "body.organization_id", true)
	if err != nil {
		return User{}, IssuedLink{}, err
	}
	if err := checkGrant(p, scopes, "body.scopes"); err != nil {
		return User{}, IssuedLink{}, err
	}
	now := d.now()
	u := User{
		ID: uuid.NewString(), OrganizationID: org, Email: email, Scopes: scopes,
		Status: UserInvited, Enabled: true, CreatedAt: now, UpdatedAt: now,
	}
	link, issued := d.newLink(u)
	if err := d.store.CreateUser(ctx, u, &link); err != nil {
		return User{}, IssuedLink{}, err
	}
	return u, issued, nil
}

// pathEmail normalises an {email} path parameter; what cannot be an email
// names no user.
func pathEmail(raw string) (string, error) {
	email, err := NormalizeEmail(raw)
	if err != nil {
		return "", errs.NotFoundf("no user %q", raw)
	}
	return email, nil
}

func isSelf(p *auth.Principal, u User) bool {
	return !p.IsM2M && (p.Subject == u.ID || strings.EqualFold(p.Email, u.Email))
}

// DeleteUser removes a person of an organisation the caller sees, with
// the person's preferences and links, if the caller may act on the person
// (mayActOn). Nobody deletes themselves. The rule is decided on the row
// the store locks and deletes, so a concurrent change of the person's
// scopes cannot slip in between.
func (d *Directory) DeleteUser(ctx context.Context, p *auth.Principal, rawEmail string) error {
	email, err := pathEmail(rawEmail)
	if err != nil {
		return err
	}
	return d.store.DeleteUser(ctx, p.Visibility(), email, func(current User) error {
		if isSelf(p, current) {
			return errs.Conflictf(CodeCannotDeleteSelf, "you cannot delete your own user")
		}
		return mayActOn(p, userPrincipal(current))
	})
}

// ReplaceScopes replaces a person's scopes. The caller must be allowed to
// act on the person as they are (mayActOn: it holds every scope they hold)
// and hold every scope it adds (scope_not_held). Nobody changes their own
// scopes.
func (d *Directory) ReplaceScopes(ctx context.Context, p *auth.Principal, rawEmail string, names []string) (ScopeChange, error) {
	var v errs.Validation
	requested := scopesFrom(&v, "body.scopes", names)
	if err := v.Err(); err != nil {
		return ScopeChange{}, err
	}
	email, err := pathEmail(rawEmail)
	if err != nil {
		return ScopeChange{}, err
	}
	before, after, err := d.store.UpdateUserScopes(ctx, p.Visibility(), email, d.now(),
		func(current User) (auth.ScopeSet, error) {
			if isSelf(p, current) {
				return nil, errs.Conflictf(CodeCannotChangeOwnScopes, "you cannot change your own scopes")
			}
			if err := mayActOn(p, userPrincipal(current)); err != nil {
				return nil, err
			}
			added, _ := ScopeDiff(current.Scopes, requested)
			if err := checkGrant(p, auth.NewScopeSet(added...), "body.scopes"); err != nil {
				return nil, err
			}
			return requested, nil
		})
	if err != nil {
		return ScopeChange{}, err
	}
	added, removed := ScopeDiff(before.Scopes, after.Scopes)
	return ScopeChange{User: after, Added: auth.ScopeNames(added), Removed: auth.ScopeNames(removed)}, nil
}

// IssuePasswordLink gives a person of an organisation the caller sees a
// fresh set-password link, if the caller may act on the person
// (mayActOn); earlier links of that person stop working. For an active
// person it is a password reset: the old password works until the link is
// used. As for deleting, the rule is decided on the locked row the link is
// stored for.
func (d *Directory) IssuePasswordLink(ctx context.Context, p *auth.Principal, rawEmail string) (User, IssuedLink, error) {
	email, err := pathEmail(rawEmail)
	if err != nil {
		return User{}, IssuedLink{}, err
	}
	var u User
	var issued IssuedLink
	err = d.store.ReplacePasswordLink(ctx, p.Visibility(), email, func(current User) (SetPasswordLink, error) {
		if err := mayActOn(p, userPrincipal(current)); err != nil {
			return SetPasswordLink{}, err
		}
		var link SetPasswordLink
		u = current
		link, issued = d.newLink(current)
		return link, nil
	})
	if err != nil {
		return User{}, IssuedLink{}, err
	}
	return u, issued, nil
}

// newLink makes a link for u, valid SetPasswordLinkTTL of security time:
// the stored record (hash only) and what is handed out (the URL with the
// token).
func (d *Directory) newLink(u User) (SetPasswordLink, IssuedLink) {
	now := d.securityNow()
	token := auth.RandomToken(32)
	expires := now.Add(SetPasswordLinkTTL)
	return SetPasswordLink{
			TokenHash: auth.LookupHash(token), UserID: u.ID, OrganizationID: u.OrganizationID,
			CreatedAt: now, ExpiresAt: expires,
		}, IssuedLink{
			URL:       d.baseURL + SetPasswordPath + "?token=" + token,
			ExpiresAt: expires,
		}
}

// maxTokenLength bounds what is hashed and looked up; issued tokens are 43
// characters.
const maxTokenLength = 128

// usableLink returns the link for token and its user when it can still be
// used, or the reason it cannot.
func (d *Directory) usableLink(ctx context.Context, token string) (SetPasswordLink, User, error) {
	if token == "" || len(token) > maxTokenLength {
		return SetPasswordLink{}, User{}, errs.E(errs.NotFound, CodeLinkUnknown, "this set-password link is not valid")
	}
	link, u, err := d.store.PasswordLink(ctx, auth.LookupHash(token))
	if err != nil {
		if errs.Is(err, errs.NotFound) {
			return SetPasswordLink{}, User{}, errs.E(errs.NotFound, CodeLinkUnknown, "this set-password link is not valid")
		}
		return SetPasswordLink{}, User{}, err
	}
	return link, u, linkState(link, d.securityNow())
}

// linkState tells why a stored link cannot be used at now, or nil.
func linkState(link SetPasswordLink, now time.Time) error {
	switch {
	case link.UsedAt != nil:
		return errs.E(errs.NotFound, CodeLinkUsed, "this set-password link has been used already")
	case !now.Before(link.ExpiresAt):
		return errs.E(errs.NotFound, CodeLinkExpired, "this set-password link has expired")
	}
	return nil
}

// PasswordLinkInfo tells the set-password page whose password a link
// sets, or why it cannot be used.
func (d *Directory) PasswordLinkInfo(ctx context.Context, token string) (LinkInfo, error) {
	link, u, err := d.usableLink(ctx, token)
	if err != nil {
		return LinkInfo{}, err
	}
	return LinkInfo{Email: u.Email, ExpiresAt: link.ExpiresAt}, nil
}

// Locations of the set-password form's fields in validation errors.
const (
	FieldPassword        = "form.password"
	FieldPasswordConfirm = "form.password_confirm"
)

// SetPassword uses a set-password link: it checks the password, stores
// its hash, activates the person and consumes the link, which works once
// even when posted concurrently. A dead link is reported before the
// password is looked at; an unacceptable password is a validation error
// naming FieldPassword and/or FieldPasswordConfirm.
func (d *Directory) SetPassword(ctx context.Context, token, password, confirm string) (User, error) {
	_, u, err := d.usableLink(ctx, token)
	if err != nil {
		return User{}, err
	}
	if pp := CheckPassword(u.Email, password, confirm); pp != nil {
		// The values are secrets and stay out of the error.
		var v errs.Validation
		if pp.Password != "" {
			v.Add(FieldPassword, pp.Password, nil)
		}
		if pp.Confirm != "" {
			v.Add(FieldPasswordConfirm, pp.Confirm, nil)
		}
		return User{}, v.Err()
	}
	hash, err := d.hasher.Hash(ctx, password)
	if err != nil {
		return User{}, err
	}
	hashed := auth.LookupHash(token)
	now := d.securityNow()
	updated, ok, err := d.store.ConsumePasswordLink(ctx, hashed, now, d.now(), hash)
	if err != nil {
		return User{}, err
	}
	if !ok {
		// Another request used, replaced or outlived the link meanwhile.
		link, _, err := d.store.PasswordLink(ctx, hashed)
		if err != nil {
			if errs.Is(err, errs.NotFound) {
				return User{}, errs.E(errs.NotFound, CodeLinkUnknown, "this set-password link is not valid")
			}
			return User{}, err
		}
		if err := linkState(link, now); err != nil {
			return User{}, err
		}
		return User{}, errors.New("set-password link neither consumed nor dead")
	}
	return updated, nil
}

// requirePerson refuses machine callers: preferences belong to people.
func requirePerson(p *auth.Principal) error {
	if p.IsM2M {
		return errs.Forbiddenf(CodePeopleOnly, "preferences belong to people; machine integrations have none")
	}
	return nil
}

// Preferences returns the caller's preferences; all fields but UserID are
// nil until first saved.
func (d *Directory) Preferences(ctx context.Context, p *auth.Principal) (Preferences, error) {
	if err := requirePerson(p); err != nil {
		return Preferences{}, err
	}
	return d.store.Preferences(ctx, p.Subject)
}

// SavePreferences replaces the caller's preferences; nil clears a field.
func (d *Directory) SavePreferences(ctx context.Context, p *auth.Principal, locale, theme *string) (Preferences, error) {
	if err := requirePerson(p); err != nil {
		return Preferences{}, err
	}
	var v errs.Validation
	if !oneOf(locale, Locales) {
		v.Add("body.locale", "must be one of "+strings.Join(Locales, ", ")+" or null", *locale)
	}
	if !oneOf(theme, Themes) {
		v.Add("body.theme", "must be one of "+strings.Join(Themes, ", ")+" or null", *theme)
	}
	if err := v.Err(); err != nil {
		return Preferences{}, err
	}
	now := d.now()
	prefs := Preferences{UserID: p.Subject, Locale: locale, Theme: theme, UpdatedAt: &now}
	if err := d.store.SavePreferences(ctx, prefs); err != nil {
		return Preferences{}, err
	}
	return prefs, nil
}
