package httpapi

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/go-json-experiment/json/jsontext"

	"atcp/internal/errs"
)

// The range of every date and instant the API accepts. Outside it a
// timestamp is a typing error, and arithmetic on it (a day before year 1,
// Europe/Berlin of year 0) yields values that cannot be encoded again.
var (
	EarliestInstant = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	LatestInstant   = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// inspect refuses, before huma decodes a request, what encoding/json would
// take silently and a gateway in front of us might read differently: a
// charset other than UTF-8, invalid UTF-8, a member named twice in one
// object (encoding/json keeps the last one, many gateways the first); and
// any date or date-time, in the body or a parameter, outside
// [EarliestInstant, LatestInstant]. It runs after authorize, so that an
// anonymous caller learns nothing and costs no more than reading the body.
// Then, for an operation marked OneDecodingPass, it validates the body in
// huma's stead (check non-nil).
func (s *Server) inspector(check *bodyCheck) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		op := ctx.Operation()
		if err := inspectParams(ctx, op); err != nil {
			_ = huma.WriteErr(s.API, ctx, http.StatusUnprocessableEntity, "", err)
			return
		}
		if op.RequestBody == nil {
			next(ctx)
			return
		}
		mediaType, charsetOK := parseContentType(ctx.Header("Content-Type"))
		if !charsetOK {
			_ = huma.WriteErr(s.API, ctx, http.StatusUnsupportedMediaType,
				"the request body must be UTF-8: send Content-Type application/json without a charset or with charset=utf-8")
			return
		}
		isJSON := mediaType == "" || mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
		if !isJSON && check == nil {
			next(ctx) // not JSON: huma answers for the media types it does not take
			return
		}
		r, _ := humago.Unwrap(ctx)
		body, complete := readUpTo(r, op.MaxBodyBytes)
		if !complete {
			next(ctx) // huma answers 413
			return
		}
		if isJSON {
			if err := inspectJSON(body); err != nil {
				status := http.StatusBadRequest
				if errs.Is(err, errs.Invalid) {
					status = http.StatusUnprocessableEntity
				}
				_ = huma.WriteErr(s.API, ctx, status, "", err)
				return
			}
		}
		if check != nil && !check.check(ctx, body) {
			return
		}
		next(ctx)
	}
}

// parseContentType returns the media type of a Content-Type header and
// whether its charset, if any, is UTF-8. JSON has no charset parameter
// (RFC 8259 section 11); utf-8 is tolerated because clients send it.
func parseContentType(header string) (mediaType string, charsetOK bool) {
	if strings.TrimSpace(header) == "" {
		return "", true
	}
	mt, params, err := mime.ParseMediaType(header)
	if err != nil {
		return "", false
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return mt, false
	}
	return mt, true
}

// readUpTo reads the body of r if it is at most limit-1 bytes (huma refuses
// a body of limit bytes or more with 413) and leaves r.Body to be read
// again from the start either way. complete is false when the body is too
// large or could not be read; huma then reports that.
func readUpTo(r *http.Request, limit int64) (body []byte, complete bool) {
	size := int64(bytes.MinRead)
	if n := r.ContentLength; n > 0 && n < limit {
		// One buffer of the announced size, not io.ReadAll's doublings (a
		// day of bids is 15 kB); bytes.Buffer wants MinRead free to read
		// the end.
		size += n
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(io.LimitReader(r.Body, limit))
	body = buf.Bytes()
	if err != nil || int64(len(body)) >= limit {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// inspectJSON checks one JSON body: UTF-8, no duplicate member names, every
// date or instant within range. Syntax errors are left to huma, which
// reports them as for every other body.
func inspectJSON(body []byte) error {
	if !utf8.Valid(body) {
		return errs.E(errs.Malformed, CodeInvalidUTF8, "the request body is not valid UTF-8")
	}
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	for {
		if dec.PeekKind() == '"' && isValuePosition(dec) {
			// ReadValue returns the quoted string without allocating.
			v, err := dec.ReadValue()
			if err != nil {
				return duplicateOrNil(dec, err)
			}
			if s, ok := instantText(v); ok && !instantInRange(string(s)) {
				return errs.Invalidf(location(dec, dec.StackPointer()), string(s),
					"must lie between %s and %s", EarliestInstant.Format(time.DateOnly), LatestInstant.Format(time.DateOnly))
			}
			continue
		}
		if _, err := dec.ReadToken(); err != nil {
			return duplicateOrNil(dec, err)
		}
	}
}

// isValuePosition reports whether the next token is a value rather than an
// object member's name.
func isValuePosition(dec *jsontext.Decoder) bool {
	kind, length := dec.StackIndex(dec.StackDepth())
	return kind != '{' || length%2 == 1
}

func duplicateOrNil(dec *jsontext.Decoder, err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName) {
		loc := location(dec, se.JSONPointer)
		return &errs.Error{Kind: errs.Malformed, Code: CodeDuplicateMember,
			Message: "the member " + loc + " appears twice in one object; send each member once",
			Fields:  []errs.FieldError{{Location: loc, Message: "duplicate member name"}}}
	}
	return nil // io.EOF at the end, or a syntax error huma reports
}

// location turns a JSON pointer into the location style of huma's
// validation errors: body.bids[3].start_time.
func location(dec *jsontext.Decoder, p jsontext.Pointer) string {
	var b strings.Builder
	b.WriteString("body")
	level := 1
	for tok := range p.Tokens() {
		kind := jsontext.Kind(0)
		if level <= dec.StackDepth() {
			kind, _ = dec.StackIndex(level)
		}
		if _, err := strconv.Atoi(tok); err == nil && kind == '[' {
			b.WriteString("[" + tok + "]")
		} else {
			b.WriteString("." + tok)
		}
		level++
	}
	return b.String()
}

// instantText returns the text of a quoted JSON string that may be a date
// or date-time out of range: one of the shape YYYY-MM-DD... whose year is
// not safely inside it (an offset moves an instant by at most a day, so
// 2001 to 2098 need no parsing, and the hot path allocates nothing).
// Escapes are not expected in an instant.
func instantText(quoted []byte) ([]byte, bool) {
	if len(quoted) < 12 || !isDateShape(quoted[1:11]) {
		return nil, false
	}
	if year, _ := strconv.Atoi(string(quoted[1:5])); year > EarliestInstant.Year() && year < LatestInstant.Year()-1 {
		return nil, false
	}
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		return nil, false
	}
	return inner, true
}

func isDateShape(b []byte) bool {
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return false
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9} {
		if b[i] < '0' || b[i] > '9' {
			return false
		}
	}
	return true
}

// instantInRange reports whether s, a date or an RFC 3339 date-time, lies in
// the accepted range. Text that only looks like one is not judged here: the
// operation's validation reports a malformed value.
func instantInRange(s string) bool {
	var t time.Time
	var err error
	switch {
	case len(s) == 10:
		t, err = time.Parse(time.DateOnly, s)
	case s[10] == 'T':
		t, err = time.Parse(time.RFC3339Nano, s)
	default:
		return true
	}
	if err != nil {
		return true
	}
	return !t.Before(EarliestInstant) && !t.After(LatestInstant)
}

// inspectParams applies the instant range to the operation's path and
// query parameters (delivery_day=0000-01-01).
func inspectParams(ctx huma.Context, op *huma.Operation) error {
	var query map[string][]string
	for _, p := range op.Parameters {
		var values []string
		switch p.In {
		case "path":
			values = []string{ctx.Param(p.Name)}
		case "query":
			if query == nil {
				u := ctx.URL()
				query = u.Query()
			}
			values = query[p.Name]
		default:
			continue
		}
		for _, v := range values {
			if isDateShape([]byte(v)) && !instantInRange(v) {
				return errs.Invalidf(p.In+"."+p.Name, v,
					"must lie between %s and %s", EarliestInstant.Format(time.DateOnly), LatestInstant.Format(time.DateOnly))
			}
		}
	}
	return nil
}
