package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/errs"
)

// Problem is the RFC 9457 error body of every failed request, with the
// stable code of contract section 5 and the extension members the
// documents name.
type Problem struct {
	Type     string              `json:"type" doc:"A URI reference identifying the problem type."`
	Title    string              `json:"title" doc:"Short summary of the problem type."`
	Status   int                 `json:"status" doc:"HTTP status code."`
	Detail   string              `json:"detail" doc:"Explanation of this occurrence."`
	Code     errs.Code           `json:"code" doc:"Stable machine-readable cause, e.g. validation_failed, insufficient_scope, FCR_PREQUALIFIED_CAPACITY_EXCEEDED."`
	Instance string              `json:"instance,omitempty" doc:"Identifies this occurrence: urn:atcp:request:<request id>."`
	Errors   []*huma.ErrorDetail `json:"errors,omitempty" doc:"Each offending field (422)."`
	// ValidIntervals lists tender intervals when a bid interval is not one.
	ValidIntervals any `json:"valid_intervals,omitempty" doc:"Valid tender intervals, when a bid interval does not match one."`
	// Periods lists each breached period of a capacity-ceiling conflict.
	Periods any `json:"periods,omitempty" doc:"Each breached 15-minute period of a prequalified-capacity conflict."`
	// Violations lists what a change would break of cross-market
	// feasibility (COMMITMENTS_EXCEED_POWER, COMMITMENTS_EXCEED_ENERGY).
	Violations any `json:"violations,omitempty" doc:"Each period or tender block where the asset's commitments across markets would exceed its usable power or energy (COMMITMENTS_EXCEED_POWER, COMMITMENTS_EXCEED_ENERGY)."`
	// Reason says why an onboarding document's upload was rejected.
	Reason any `json:"reason,omitempty" doc:"Why an onboarding document's upload was rejected (upload_rejected): size_mismatch, too_large or type_not_allowed."`

	headers  http.Header
	reported int // entries offered to Errors, listed or not
}

func (p *Problem) Error() string  { return p.Detail }
func (p *Problem) GetStatus() int { return p.Status }

// ContentType makes problems application/problem+json, also for a client
// that asked for the CSV form of a report.
func (p *Problem) ContentType(ct string) string {
	if ct == "application/json" || ct == CSVContentType {
		return "application/problem+json"
	}
	return ct
}

// GetHeaders returns headers to send with the problem (e.g. WWW-Authenticate).
func (p *Problem) GetHeaders() http.Header { return p.headers }

// statusOf maps each domain kind to its HTTP status; the only such mapping.
var statusOf = map[errs.Kind]int{
	errs.Internal:        http.StatusInternalServerError,
	errs.Malformed:       http.StatusBadRequest,
	errs.Unauthenticated: http.StatusUnauthorized,
	errs.Forbidden:       http.StatusForbidden,
	errs.NotFound:        http.StatusNotFound,
	errs.Conflict:        http.StatusConflict,
	errs.Invalid:         http.StatusUnprocessableEntity,
	errs.Unavailable:     http.StatusServiceUnavailable,
	errs.BadGateway:      http.StatusBadGateway,
}

// defaultCode is the code of a problem raised by the HTTP layer itself
// (huma's decoding and validation) rather than by domain code.
func defaultCode(status int) errs.Code {
	switch status {
	case http.StatusBadRequest:
		return errs.CodeMalformedRequest
	case http.StatusUnauthorized:
		return CodeInvalidToken
	case http.StatusForbidden:
		return CodeInsufficientScope
	case http.StatusNotFound:
		return errs.CodeNotFound
	case http.StatusMethodNotAllowed:
		return CodeMethodNotAllowed
	case http.StatusConflict:
		return CodeConflict
	case http.StatusRequestEntityTooLarge:
		return CodeRequestTooLarge
	case http.StatusUnsupportedMediaType:
		return CodeUnsupportedMediaType
	case http.StatusUnprocessableEntity:
		return errs.CodeValidationFailed
	case http.StatusTooManyRequests:
		return CodeRateLimited
	case http.StatusServiceUnavailable:
		return CodeUnavailable
	case http.StatusNotAcceptable:
		return CodeNotAcceptable
	}
	if status >= 500 {
		return CodeInternalError
	}
	return errs.Code(strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_")))
}

// NewProblem builds a problem of status with the layer's default code.
func NewProblem(status int, detail string) *Problem {
	// headers is never nil: huma.ErrorWithHeaders adds to it.
	return &Problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail, Code: defaultCode(status),
		headers: http.Header{}}
}

// FromDomain converts a domain error to its problem.
func FromDomain(e *errs.Error) *Problem {
	status := statusOf[e.Kind]
	p := NewProblem(status, truncate(e.Message, maxEchoedMessage))
	if e.Code != "" {
		p.Code = e.Code
	}
	for _, f := range e.Fields {
		p.addError(&huma.ErrorDetail{Location: f.Location, Message: f.Message, Value: f.Value})
	}
	p.noteOmitted()
	if v, ok := e.Extensions["valid_intervals"]; ok {
		p.ValidIntervals = v
	}
	if v, ok := e.Extensions["periods"]; ok {
		p.Periods = v
	}
	if v, ok := e.Extensions["violations"]; ok {
		p.Violations = v
	}
	if v, ok := e.Extensions["reason"]; ok {
		p.Reason = v
	}
	switch status {
	case http.StatusUnauthorized:
		p.headers = http.Header{"WWW-Authenticate": {`Bearer error="invalid_token"`}}
	case http.StatusServiceUnavailable:
		p.headers = http.Header{"Retry-After": {retryAfterSeconds}}
	}
	return p
}

// retryAfterSeconds is the wait a 503 asks for: long enough for a database
// restart or failover to show, short enough not to strand a trading desk.
const retryAfterSeconds = "5"

// storeUnavailable is the problem of a request that failed because the
// store could not be used; what the driver said (hosts, users, database
// names) goes to the log only.
func storeUnavailable() *Problem {
	return FromDomain(errs.E(errs.Unavailable, errs.CodeStoreUnavailable,
		"the database is unavailable; retry after the number of seconds in Retry-After"))
}

// problemFor turns any error into the problem to send, logging what is not a
// domain error: those are bugs or outages, and their text stays out of the
// response. An error a storage backend classifies as an outage is 503
// store_unavailable.
func problemFor(ctx context.Context, status int, msg string, errList ...error) *Problem {
	for _, err := range errList {
		var de *errs.Error
		if errors.As(err, &de) {
			return FromDomain(de)
		}
	}
	if status >= 500 {
		var cause error
		if len(errList) > 0 {
			cause = errors.Join(errList...)
		}
		if errs.IsUnavailable(cause) {
			slog.WarnContext(ctx, "store unavailable", "request_id", RequestID(ctx), "error", cause)
			return storeUnavailable()
		}
		slog.ErrorContext(ctx, "request failed", "request_id", RequestID(ctx), "error", cause)
		return NewProblem(status, "internal error; quote the request id when reporting it")
	}
	p := NewProblem(status, truncate(msg, maxEchoedMessage))
	for _, err := range errList {
		if err == nil {
			continue
		}
		var d huma.ErrorDetailer
		if errors.As(err, &d) {
			p.addError(locateRequired(d.ErrorDetail()))
		} else {
			p.addError(&huma.ErrorDetail{Message: err.Error()})
		}
	}
	p.noteOmitted()
	return p
}

// Echoed input is bounded, so that a large body does not come back larger:
// each value and message is cut (ending in …) and errors[] lists at most
// maxErrors entries, the detail saying how many there were.
const (
	maxEchoedValue   = 200
	maxEchoedMessage = 500
	maxErrors        = 50
)

// noteOmitted says in the detail how many errors errors[] leaves out.
func (p *Problem) noteOmitted() {
	if p.reported > len(p.Errors) {
		p.Detail += fmt.Sprintf(" (the first %d of %d errors are listed)", len(p.Errors), p.reported)
	}
}

func (p *Problem) addError(d *huma.ErrorDetail) {
	p.reported++
	if len(p.Errors) == maxErrors {
		return
	}
	p.Errors = append(p.Errors, &huma.ErrorDetail{
		Location: truncate(d.Location, maxEchoedMessage),
		Message:  truncate(d.Message, maxEchoedMessage),
		Value:    echoed(d.Value),
	})
}

// echoed returns v as it may appear in a response: short scalars as they
// are, anything longer than maxEchoedValue characters as cut JSON text.
func echoed(v any) any {
	switch x := v.(type) {
	case nil, bool, int, int64, float64:
		return v
	case string:
		return truncate(x, maxEchoedValue)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	if utf8.RuneCount(b) <= maxEchoedValue {
		return v
	}
	return truncate(string(b), maxEchoedValue)
}

func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// WriteError sends the problem for err from a plain handler (one not
// registered with Register), mapped as for every operation: a domain error
// by its kind, an outage of the store as 503 store_unavailable, anything
// else as a logged 500.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	WriteProblem(w, r, problemFor(r.Context(), http.StatusInternalServerError, "", err))
}

// huma reports a missing required property at its parent ("body"); naming
// the property itself lets clients point at the field, as for every other
// validation error.
var requiredProperty = regexp.MustCompile(`^expected required property (\S+) to be present$`)

func locateRequired(d *huma.ErrorDetail) *huma.ErrorDetail {
	if m := requiredProperty.FindStringSubmatch(d.Message); m != nil && d.Location != "" {
		return &huma.ErrorDetail{Location: d.Location + "." + m[1], Message: d.Message, Value: d.Value}
	}
	return d
}

func init() {
	// Every error huma writes, its own and our handlers', goes through here.
	huma.NewErrorWithContext = func(hctx huma.Context, status int, msg string, errList ...error) huma.StatusError {
		ctx := context.Background()
		if hctx != nil {
			ctx = hctx.Context()
		}
		p := problemFor(ctx, status, msg, errList...)
		p.Instance = "urn:atcp:request:" + RequestID(ctx)
		if hctx != nil {
			// huma sends the headers of an error a handler returns, not
			// those of the problem made from it here (Retry-After).
			for k, v := range p.headers {
				hctx.SetHeader(k, strings.Join(v, ", "))
			}
		}
		return p
	}
	huma.NewError = func(status int, msg string, errList ...error) huma.StatusError {
		return problemFor(context.Background(), status, msg, errList...)
	}
}
