// Package errs holds the domain error kinds of atcp. Domain code says what
// went wrong (a Kind, a stable Code and a message); the HTTP layer maps kinds
// to statuses in one place, so no domain package knows about HTTP.
package errs

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the caller can do about it.
type Kind int

// The kinds, each mapped once to an HTTP status by package httpapi.
const (
	Internal        Kind = iota // a bug or an outage: 500
	Malformed                   // the request cannot be understood: 400
	Unauthenticated             // no valid credentials: 401
	Forbidden                   // valid credentials, not allowed: 403
	NotFound                    // unknown or not visible: 404
	Conflict                    // the current state forbids it: 409
	Invalid                     // understood but fails validation: 422
	Unavailable                 // a dependency is not configured or down: 503
	BadGateway                  // a dependency answered wrongly or not in time: 502
)

// FieldError names one offending input.
type FieldError struct {
	Location string `json:"location"`
	Message  string `json:"message"`
	Value    any    `json:"value,omitempty"`
}

// Error is a domain error.
type Error struct {
	Kind    Kind
	Code    Code
	Message string
	Fields  []FieldError
	// Extensions are extra members of the problem body, such as
	// valid_intervals or periods.
	Extensions map[string]any
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Message
	}
	return fmt.Sprintf("%s (%s: %s)", e.Message, e.Fields[0].Location, e.Fields[0].Message)
}

// E builds an error of kind with a code and a formatted message.
func E(kind Kind, code Code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFoundf reports an unknown or invisible resource.
func NotFoundf(format string, args ...any) *Error {
	return E(NotFound, CodeNotFound, format, args...)
}

// Conflictf reports a state conflict with the given code.
func Conflictf(code Code, format string, args ...any) *Error {
	return E(Conflict, code, format, args...)
}

// Forbiddenf reports a forbidden action with the given code.
func Forbiddenf(code Code, format string, args ...any) *Error {
	return E(Forbidden, code, format, args...)
}

// Validation collects field errors; the zero value is ready to use.
type Validation struct {
	fields []FieldError
}

// Add records a problem with the input at location.
func (v *Validation) Add(location, message string, value any) {
	v.fields = append(v.fields, FieldError{Location: location, Message: message, Value: value})
}

// Err returns nil when nothing was recorded, otherwise a 422 error naming
// every offending field.
func (v *Validation) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return &Error{Kind: Invalid, Code: CodeValidationFailed, Message: "validation failed", Fields: v.fields}
}

// Invalidf reports a single offending field.
func Invalidf(location string, value any, format string, args ...any) *Error {
	return &Error{
		Kind: Invalid, Code: CodeValidationFailed, Message: "validation failed",
		Fields: []FieldError{{Location: location, Message: fmt.Sprintf(format, args...), Value: value}},
	}
}

// KindOf returns the kind of err, Internal when it is not a domain error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Is reports whether err is a domain error of kind.
func Is(err error, kind Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind
}

// unavailableClassifiers recognise errors that mean "the store cannot be
// reached" (a refused connection, a server shutting down); each storage
// backend registers its own at init, so that no layer above the store
// needs to know a driver's error types.
var unavailableClassifiers []func(error) bool

// RegisterUnavailable adds a classifier of outage errors. Call it from a
// package's init only: the list is read without locking afterwards.
func RegisterUnavailable(classify func(error) bool) {
	unavailableClassifiers = append(unavailableClassifiers, classify)
}

// IsUnavailable reports whether err means a dependency could not be
// reached: a domain error of kind Unavailable, or an error a registered
// backend classifies as an outage.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	if Is(err, Unavailable) {
		return true
	}
	for _, classify := range unavailableClassifiers {
		if classify(err) {
			return true
		}
	}
	return false
}

// Within returns err with prefix put before the location of every field it
// names: domain code names fields ("asset_name"), the edge that decoded the
// request knows where they sit in it ("body."). Other errors are returned
// as they are.
func Within(prefix string, err error) error {
	var e *Error
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return err
	}
	out := *e
	out.Fields = make([]FieldError, len(e.Fields))
	for i, f := range e.Fields {
		f.Location = prefix + f.Location
		out.Fields[i] = f
	}
	return &out
}
