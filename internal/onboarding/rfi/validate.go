package rfi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"atcp/internal/contacts"
	"atcp/internal/errs"
	"atcp/internal/textrule"
)

// FieldError is one refused value of a save.
type FieldError struct {
	Location string    // body.fields.<key>
	Code     errs.Code // CodeFieldNotEditable, CodeUnknownField, CodeWrongType, CodeConstraint
	Message  string
	Value    any // the value as sent, for the problem's errors[]
}

// Location is where a field's value sits in a save's body.
func Location(key string) string { return "body.fields." + key }

// Validate checks the values of a save made as role against defs: every
// key must name a field (unknown_field), role must be in its editable_by
// (field_not_editable; the value is then not looked at), and a non-null
// value must have the field's type and keep its constraints. null clears
// a field and is always valid for an editable one; required fields are
// checked on submit (Missing), not here. The errors come ordered by key;
// none means the save is valid as a whole. Storing all or nothing is the
// caller's.
func Validate(defs []Field, values map[string]json.RawMessage, role string) []FieldError {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []FieldError
	for _, k := range keys {
		raw := values[k]
		loc := Location(k)
		f, ok := Find(defs, k)
		switch {
		case !ok:
			out = append(out, FieldError{loc, CodeUnknownField, "not a field of this gate", k})
		case !f.Editable(role):
			out = append(out, FieldError{loc, CodeFieldNotEditable,
				fmt.Sprintf("the role %s may not edit this field (editable by %s)", role, strings.Join(f.EditableBy, ", ")), nil})
		case isNull(raw):
		default:
			if code, msg := f.check(raw); code != "" {
				out = append(out, FieldError{loc, code, msg, sent(raw)})
			}
		}
	}
	return out
}

// Err is the problem of a save's field errors, nil for none: 422
// field_not_editable when every error is of that kind, else 422
// validation_failed, each error at its location.
func Err(fes []FieldError) error {
	if len(fes) == 0 {
		return nil
	}
	var v errs.Validation
	code := CodeFieldNotEditable
	for _, fe := range fes {
		v.Add(fe.Location, fe.Message, fe.Value)
		if fe.Code != CodeFieldNotEditable {
			code = errs.CodeValidationFailed
		}
	}
	e := v.Err().(*errs.Error)
	if code == CodeFieldNotEditable {
		e.Code, e.Message = code, "field not editable by your role"
	}
	return e
}

// Missing lists, in definition order, the keys of the required fields
// stored holds no value for (absent or null): what a submit reports as
// fields.<key>.
func Missing(defs []Field, stored map[string]json.RawMessage) []string {
	var out []string
	for _, f := range defs {
		if raw, ok := stored[f.Key]; f.Required && (!ok || isNull(raw)) {
			out = append(out, f.Key)
		}
	}
	return out
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// sent is raw decoded for an error body (its text when it does not decode).
func sent(raw json.RawMessage) any {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return string(raw)
	}
	return v
}

// decodeStrict decodes raw into v, refusing trailing data. A json.Number
// takes JSON numbers only (encoding/json would also take a string holding
// one).
func decodeStrict(raw json.RawMessage, v any) bool {
	if _, ok := v.(*json.Number); ok {
		t := bytes.TrimLeft(raw, " \t\r\n")
		if len(t) == 0 || (t[0] != '-' && (t[0] < '0' || t[0] > '9')) {
			return false
		}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(v) != nil {
		return false
	}
	_, err := d.Token()
	return err == io.EOF
}

var (
	integerText = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,15})$`)
	numberText  = regexp.MustCompile(`^-?[0-9]{1,30}(\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?$`)
	e164        = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)
)

// MaxURLLength bounds a url field, in bytes.
const MaxURLLength = 2048

// check validates a non-null value of f; it returns the code and message
// of the first problem, or "" when the value is valid.
func (f Field) check(raw json.RawMessage) (errs.Code, string) {
	c := f.Constraints
	switch f.Type {
	case Integer, Number:
		var n json.Number
		if !decodeStrict(raw, &n) {
			return CodeWrongType, "must be a number"
		}
		if f.Type == Integer && !integerText.MatchString(n.String()) {
			return CodeWrongType, "must be a whole number without fraction or exponent"
		}
		// Bounded digits and exponent keep the decimal arithmetic cheap
		// whatever a client sends (1e999999999 would expand to a billion
		// digits).
		if !numberText.MatchString(n.String()) {
			return CodeConstraint, "is out of range"
		}
		d, err := decimal.NewFromString(n.String())
		if err != nil {
			return CodeWrongType, "must be a number"
		}
		x, _ := d.Float64()
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return CodeConstraint, "is out of range"
		}
		if c.Decimals != nil && !d.Equal(d.Round(int32(*c.Decimals))) {
			return CodeConstraint, fmt.Sprintf("must have at most %d decimals", *c.Decimals)
		}
		return rangeCheck(x, c.Min, c.Max, c.Unit)
	case Boolean:
		var b bool
		if !decodeStrict(raw, &b) {
			return CodeWrongType, "must be true or false"
		}
	case Coordinates:
		return checkCoordinates(raw)
	case MultiEnum:
		var items []string
		if !decodeStrict(raw, &items) || items == nil {
			return CodeWrongType, "must be an array of strings"
		}
		for i, it := range items {
			if _, ok := f.option(it); !ok {
				return CodeConstraint, fmt.Sprintf("item %d must be one of %s", i, optionList(c.Options))
			}
			if slices.Contains(items[:i], it) {
				return CodeConstraint, fmt.Sprintf("item %d repeats %q", i, it)
			}
		}
		maxItems := c.MaxItems
		if maxItems == 0 {
			maxItems = len(c.Options)
		}
		if len(items) < c.MinItems || len(items) > maxItems {
			return CodeConstraint, fmt.Sprintf("must hold %d to %d items", c.MinItems, maxItems)
		}
	default:
		var s string
		if !decodeStrict(raw, &s) {
			return CodeWrongType, "must be a string"
		}
		return f.checkString(s)
	}
	return "", ""
}

func rangeCheck(x float64, lo, hi *float64, unit string) (errs.Code, string) {
	if unit != "" {
		unit = " " + unit
	}
	switch {
	case lo != nil && x < *lo:
		return CodeConstraint, fmt.Sprintf("must be at least %g%s", *lo, unit)
	case hi != nil && x > *hi:
		return CodeConstraint, fmt.Sprintf("must be at most %g%s", *hi, unit)
	}
	return "", ""
}

func optionList(opts []Option) string {
	vs := make([]string, len(opts))
	for i, o := range opts {
		vs[i] = o.Value
	}
	return strings.Join(vs, ", ")
}

// checkString validates the string-valued types.
func (f Field) checkString(s string) (errs.Code, string) {
	c := f.Constraints
	switch f.Type {
	case String:
		if !textrule.Name(s) {
			return CodeConstraint, textrule.NameMessage
		}
		if n := utf8.RuneCountInString(s); n > f.maxLength() {
			return CodeConstraint, fmt.Sprintf("must be at most %d characters", f.maxLength())
		}
		if c.Pattern != "" && !compiled(c.Pattern).MatchString(s) {
			return CodeConstraint, fmt.Sprintf("must match %s", c.Pattern)
		}
	case Text:
		if !textrule.Text(s) {
			return CodeConstraint, textrule.TextMessage
		}
		if n := utf8.RuneCountInString(s); n > f.maxLength() {
			return CodeConstraint, fmt.Sprintf("must be at most %d characters", f.maxLength())
		}
	case Date:
		d, err := time.Parse(time.DateOnly, s)
		if err != nil || d.Format(time.DateOnly) != s {
			return CodeWrongType, "must be a date YYYY-MM-DD"
		}
		switch {
		case c.MinDate != "" && s < c.MinDate:
			return CodeConstraint, "must be on or after " + c.MinDate
		case c.MaxDate != "" && s > c.MaxDate:
			return CodeConstraint, "must be on or before " + c.MaxDate
		}
	case Enum:
		if _, ok := f.option(s); !ok {
			return CodeConstraint, "must be one of " + optionList(c.Options)
		}
	case Email:
		if msg := contacts.CheckEmail(s); msg != "" {
			return CodeConstraint, msg
		}
	case Phone:
		if !e164.MatchString(s) {
			return CodeConstraint, "must be a phone number in E.164 form such as +4930123456"
		}
	case URL:
		return checkURL(s)
	default:
		return CodeWrongType, fmt.Sprintf("the field's type %q is unknown", f.Type)
	}
	return "", ""
}

func checkURL(s string) (errs.Code, string) {
	const msg = "must be an absolute https URL such as https://example.com/manual.pdf"
	if len(s) > MaxURLLength {
		return CodeConstraint, fmt.Sprintf("must be at most %d bytes", MaxURLLength)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || !utf8.ValidRune(r) }) {
		return CodeConstraint, msg
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return CodeConstraint, msg
	}
	return "", ""
}

// checkCoordinates validates {latitude, longitude}: both numbers in the
// WGS84 ranges, no other member.
func checkCoordinates(raw json.RawMessage) (errs.Code, string) {
	const shape = "must be an object {latitude, longitude} of two numbers"
	var m map[string]json.RawMessage
	if !decodeStrict(raw, &m) || m == nil || len(m) != 2 {
		return CodeWrongType, shape
	}
	lat, okLat := jsonNumber(m["latitude"])
	lon, okLon := jsonNumber(m["longitude"])
	switch {
	case !okLat || !okLon:
		return CodeWrongType, shape
	case lat < -90 || lat > 90:
		return CodeConstraint, "latitude must be between -90 and 90"
	case lon < -180 || lon > 180:
		return CodeConstraint, "longitude must be between -180 and 180"
	}
	return "", ""
}

// jsonNumber decodes a JSON number (nil or anything else: false).
func jsonNumber(raw json.RawMessage) (float64, bool) {
	var n json.Number
	if raw == nil || !decodeStrict(raw, &n) {
		return 0, false
	}
	x, err := n.Float64()
	return x, err == nil && !math.IsInf(x, 0)
}
