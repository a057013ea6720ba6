package identity

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"atcp/internal/auth"
)

// Limits of the directory's inputs.
const (
	// OrganizationNameMaxLength is the longest organisation name, in characters.
	OrganizationNameMaxLength = 200
	// EmailMaxLength is the longest e-mail address (RFC 5321 path limit).
	EmailMaxLength = 254
	// PasswordMinLength and PasswordMaxLength bound a password, in characters.
	PasswordMinLength = 12
	PasswordMaxLength = 256
	// SetPasswordLinkTTL is how long a set-password link stays usable.
	SetPasswordLinkTTL = 72 * time.Hour
)

// OrganizationIDPattern is the shape of an organisation id.
const OrganizationIDPattern = `^[a-z0-9][a-z0-9-]{1,62}$`

var organizationIDRE = regexp.MustCompile(OrganizationIDPattern)

// ValidateOrganizationID checks an organisation id against OrganizationIDPattern.
func ValidateOrganizationID(id string) error {
	if !organizationIDRE.MatchString(id) {
		return errors.New("must be 2 to 63 characters of a-z, 0-9 and '-', starting with a letter or digit")
	}
	return nil
}

// NormalizeOrganizationName trims surrounding white space and checks that
// what remains is 1 to OrganizationNameMaxLength printable characters.
func NormalizeOrganizationName(name string) (string, error) {
	if !utf8.ValidString(name) {
		return "", errors.New("must be valid UTF-8")
	}
	name = strings.TrimSpace(name)
	n := utf8.RuneCountInString(name)
	switch {
	case n == 0:
		return "", errors.New("must not be empty")
	case n > OrganizationNameMaxLength:
		return "", fmt.Errorf("must be at most %d characters", OrganizationNameMaxLength)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "", errors.New("must not contain control characters")
	}
	return name, nil
}

// atext are the characters RFC 5322 allows in a dot-atom besides letters
// and digits.
const atext = "!#$%&'*+/=?^_`{|}~-"

// NormalizeEmail returns the lower-case form of a plain e-mail address
// (local@domain), which is also the username. Surrounding white space is
// dropped. Deliberately narrower than RFC 5322: no display names, quoted
// local parts, comments or address literals, and the domain must be a
// multi-label DNS name (internationalised domains in their xn-- form), so
// that one person cannot exist twice under spellings that deliver to the
// same mailbox.
func NormalizeEmail(raw string) (string, error) {
	email := strings.ToLower(strings.TrimSpace(raw))
	if email == "" {
		return "", errors.New("must not be empty")
	}
	if len(email) > EmailMaxLength {
		return "", fmt.Errorf("must be at most %d characters", EmailMaxLength)
	}
	local, domain, ok := strings.Cut(email, "@")
	if !ok {
		return "", errors.New("must be an e-mail address such as name@example.com")
	}
	if err := checkLocalPart(local); err != nil {
		return "", err
	}
	if err := checkDomain(domain); err != nil {
		return "", err
	}
	return email, nil
}

func checkLocalPart(local string) error {
	if local == "" || len(local) > 64 {
		return errors.New("the part before '@' must be 1 to 64 characters")
	}
	if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
		return errors.New("the part before '@' must not start or end with '.' or contain '..'")
	}
	for _, c := range local {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || strings.ContainsRune(atext, c)) {
			return fmt.Errorf("the part before '@' must not contain %q", c)
		}
	}
	return nil
}

func checkDomain(domain string) error {
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return errors.New("the domain must have at least two labels, such as example.com")
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return errors.New("the domain must consist of labels of 1 to 63 characters not starting or ending with '-'")
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("the domain must not contain %q", c)
			}
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return errors.New("the domain must be a name, not an address")
	}
	return nil
}

// UnknownScopes returns the positions of names that are not scopes; the
// set of the known ones is returned too, duplicates removed.
func UnknownScopes(names []string) (auth.ScopeSet, []int) {
	set := auth.ScopeSet{}
	var unknown []int
	for i, n := range names {
		if !auth.Known(auth.Scope(n)) {
			unknown = append(unknown, i)
			continue
		}
		set[auth.Scope(n)] = struct{}{}
	}
	return set, unknown
}

// NotHeld returns the scopes of requested that holder lacks, sorted: a
// caller may grant only scopes it holds itself.
func NotHeld(holder, requested auth.ScopeSet) []auth.Scope {
	var missing []auth.Scope
	for _, sc := range requested.List() {
		if !holder.Has(sc) {
			missing = append(missing, sc)
		}
	}
	return missing
}

// ScopeDiff returns what replacing before with after adds and removes,
// each sorted.
func ScopeDiff(before, after auth.ScopeSet) (added, removed []auth.Scope) {
	added, removed = []auth.Scope{}, []auth.Scope{}
	for _, sc := range after.List() {
		if !before.Has(sc) {
			added = append(added, sc)
		}
	}
	for _, sc := range before.List() {
		if !after.Has(sc) {
			removed = append(removed, sc)
		}
	}
	return added, removed
}

// PasswordProblems lists what is wrong with a new password and its
// confirmation; nil means it is acceptable. The password is taken as
// typed: no trimming or normalisation, so that signing in compares
// exactly what was set.
type PasswordProblems struct {
	Password string // problem with the password itself, or ""
	Confirm  string // problem with the confirmation, or ""
}

// CheckPassword applies the password policy: 12 to 256 characters, valid
// UTF-8, not the e-mail address, and equal to its confirmation.
func CheckPassword(email, password, confirm string) *PasswordProblems {
	var p PasswordProblems
	n := utf8.RuneCountInString(password)
	switch {
	case !utf8.ValidString(password):
		p.Password = "The password contains bytes that are not valid text."
	case n < PasswordMinLength:
		p.Password = fmt.Sprintf("The password must be at least %d characters long.", PasswordMinLength)
	case n > PasswordMaxLength:
		p.Password = fmt.Sprintf("The password must be at most %d characters long.", PasswordMaxLength)
	case email != "" && strings.EqualFold(password, email):
		p.Password = "The password must not be your e-mail address."
	}
	if password != confirm {
		p.Confirm = "The confirmation does not match the password."
	}
	if p == (PasswordProblems{}) {
		return nil
	}
	return &p
}

// The values of a person's preferences.
var (
	Locales = []string{"en", "de"}
	Themes  = []string{"light", "dark"}
)

func oneOf(v *string, allowed []string) bool {
	if v == nil {
		return true
	}
	for _, a := range allowed {
		if *v == a {
			return true
		}
	}
	return false
}
