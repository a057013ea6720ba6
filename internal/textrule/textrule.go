// Package textrule holds the rule every identifier and name the API
// accepts follows, and its looser form for free text, so that each area's
// validator refuses the same characters: control characters (Unicode
// category Cc: U+0000 to U+001F and U+007F to U+009F) have no place in an
// id or a name, break logs and terminals, and NUL cannot be stored in
// PostgreSQL text at all.
package textrule

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"atcp/internal/errs"
)

// Messages of the field errors.
const (
	NameMessage = "must not contain control characters"
	TextMessage = "must not contain control characters other than line breaks and tabs"
)

// Name reports whether s is valid UTF-8 without control characters: the
// rule of identifiers, keys and names.
func Name(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}

// Text reports whether s is valid UTF-8 whose only control characters are
// line breaks (\n, \r) and tabs: the rule of free text such as
// descriptions and notes. NUL is never allowed.
func Text(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t'
	})
}

// CheckName records at loc that s breaks the rule of names; it reports
// whether s follows it.
func CheckName(v *errs.Validation, loc, s string) bool {
	if Name(s) {
		return true
	}
	v.Add(loc, NameMessage, s)
	return false
}

// CheckText records at loc that s breaks the rule of free text; it
// reports whether s follows it.
func CheckText(v *errs.Validation, loc, s string) bool {
	if Text(s) {
		return true
	}
	v.Add(loc, TextMessage, s)
	return false
}
