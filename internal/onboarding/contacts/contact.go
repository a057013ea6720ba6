package contacts

import (
	"fmt"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"atcp/internal/errs"
	"atcp/internal/onboarding"
)

// Limits of a contact's members, in characters except the address, which
// SMTP counts in bytes.
const (
	MaxNameLength    = 200
	MaxCompanyLength = 200
	MaxEmailLength   = 254
)

// Languages of a contact's e-mails and task pages.
var Languages = []string{"de", "en"}

// Contact is a person on one onboarding with one or more task roles.
type Contact struct {
	ID             string // contact_id, a UUID
	OrganizationID string // the onboarding's
	OnboardingID   string
	Name           string
	Email          string // a bare address, unique per onboarding case-insensitively
	Company        string
	Phone          string // E.164, "" when not given
	Roles          []onboarding.TaskRole
	Language       string // de, en or "" (the branding's default)
	// UserID names a console user of the asset's organisation or the
	// platform who then holds Roles on the task endpoints.
	UserID               string
	CreatedAt, UpdatedAt time.Time // platform clock
}

// Holds reports whether c holds role.
func (c Contact) Holds(role onboarding.TaskRole) bool { return slices.Contains(c.Roles, role) }

// RoleNames are c's roles as strings, in the order of onboarding.TaskRoles.
func (c Contact) RoleNames() []string {
	out := make([]string, len(c.Roles))
	for i, r := range c.Roles {
		out[i] = string(r)
	}
	return out
}

var e164 = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)

// Validate names each offending member (body.<member>).
func (c Contact) Validate() error {
	var v errs.Validation
	text(&v, "body.name", c.Name, MaxNameLength, true)
	text(&v, "body.company", c.Company, MaxCompanyLength, false)
	if a, err := mail.ParseAddress(c.Email); err != nil || a.Address != c.Email || a.Name != "" || len(c.Email) > MaxEmailLength {
		v.Add("body.email", fmt.Sprintf("must be a bare e-mail address (name@example.com) of at most %d bytes", MaxEmailLength), c.Email)
	}
	if c.Phone != "" && !e164.MatchString(c.Phone) {
		v.Add("body.phone", "must be an E.164 number such as +4930123456", c.Phone)
	}
	if len(c.Roles) == 0 {
		v.Add("body.roles", "must name at least one role", nil)
	}
	if c.Language != "" && !slices.Contains(Languages, c.Language) {
		v.Add("body.language", "must be de or en", c.Language)
	}
	return v.Err()
}

// ParseRoles parses the roles of a request: each a task role, none
// repeated; they come back in the order of onboarding.TaskRoles.
func ParseRoles(names []string) ([]onboarding.TaskRole, error) {
	var v errs.Validation
	seen := map[onboarding.TaskRole]bool{}
	for i, n := range names {
		r, err := onboarding.ParseTaskRole(n)
		switch {
		case err != nil:
			v.Add(fmt.Sprintf("body.roles[%d]", i), "must be one of asset_owner, epc, ems_provider, platform_onboarding, platform, tso", n)
		case seen[r]:
			v.Add(fmt.Sprintf("body.roles[%d]", i), "is repeated", n)
		}
		seen[r] = true
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	out := []onboarding.TaskRole{}
	for _, r := range onboarding.TaskRoles {
		if seen[r] {
			out = append(out, r)
		}
	}
	return out, nil
}

// text refuses a text that is too long, not UTF-8, holds control
// characters, or is blank when required.
func text(v *errs.Validation, loc, s string, limit int, required bool) {
	switch {
	case !utf8.ValidString(s):
		v.Add(loc, "must be valid UTF-8", nil)
	case required && strings.TrimSpace(s) == "":
		v.Add(loc, "is required", s)
	case utf8.RuneCountInString(s) > limit:
		v.Add(loc, fmt.Sprintf("must be at most %d characters", limit), nil)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		v.Add(loc, "must be one line without control characters", nil)
	}
}
