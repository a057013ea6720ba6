package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-json-experiment/json/jsontext"
)

// OneDecodingPass marks an operation whose JSON request body Register
// validates itself instead of huma: a body is checked against the
// operation's schema in one streaming pass over its text, without huma's
// decoding into a generic value, and only a body that pass cannot admit
// goes through huma's own validation, which writes the problem. So the
// problem details of a bad body are huma's, exactly, and a good body is
// decoded once, into the request type. It pays for large bodies (a
// delivery day of 96 bids): the generic value of one is about a thousand
// allocations.
//
// Only for an operation whose parameters huma cannot reject (path
// parameters without constraints): huma reports parameter and body errors
// in one problem, which this validation, running before huma's, could not.
func OneDecodingPass(op huma.Operation) huma.Operation {
	if op.Metadata == nil {
		op.Metadata = map[string]any{}
	}
	op.Metadata[oneDecodingPass] = true
	return op
}

const oneDecodingPass = "atcp.oneDecodingPass"

// bodyCheck validates the body of one operation marked OneDecodingPass.
type bodyCheck struct {
	api      huma.API
	registry huma.Registry
	schema   *huma.Schema
	// streamed: every keyword of the schema is one admits judges, so
	// admits may answer; otherwise every body goes through huma's
	// validation.
	streamed bool
	patterns map[*huma.Schema]*regexp.Regexp
}

// prepare finds the operation's body schema once huma has registered it,
// and refuses an operation whose parameters huma could reject.
func (c *bodyCheck) prepare(api huma.API, method, path string) {
	oapi := api.OpenAPI()
	var op *huma.Operation
	if item := oapi.Paths[path]; item != nil {
		switch method {
		case http.MethodPost:
			op = item.Post
		case http.MethodPut:
			op = item.Put
		case http.MethodPatch:
			op = item.Patch
		}
	}
	if op == nil || op.RequestBody == nil || op.RequestBody.Content["application/json"] == nil {
		panic(fmt.Sprintf("httpapi: OneDecodingPass on %s %s, which has no JSON request body", method, path))
	}
	for _, p := range op.Parameters {
		s := p.Schema
		if p.In != "path" || s == nil || s.Type != huma.TypeString || s.Pattern != "" || s.Format != "" ||
			s.MinLength != nil || s.MaxLength != nil || len(s.Enum) > 0 {
			panic(fmt.Sprintf("httpapi: OneDecodingPass on %s %s, whose parameter %s huma may reject", method, path, p.Name))
		}
	}
	c.api = api
	c.use(oapi.Components.Schemas, op.RequestBody.Content["application/json"].Schema)
}

// use sets the schema the body must satisfy and whether admits judges it.
func (c *bodyCheck) use(registry huma.Registry, schema *huma.Schema) {
	c.registry, c.schema = registry, schema
	c.patterns = map[*huma.Schema]*regexp.Regexp{}
	c.streamed = c.supported(schema, map[*huma.Schema]bool{})
}

// check validates body, or writes huma's problem for it and returns false.
// An empty body passes: huma answers it as before (400 when required).
func (c *bodyCheck) check(ctx huma.Context, body []byte) bool {
	if len(body) == 0 {
		return true
	}
	contentType := ctx.Header("Content-Type")
	if contentType == "" {
		contentType = "application/json" // huma's choice for an operation taking JSON
	}
	if c.streamed && humaReadsAsJSON(contentType) && c.admits(body) {
		return true
	}
	// What huma does when it validates a body (validateBody in huma.go).
	res := &huma.ValidateResult{}
	status := http.StatusUnprocessableEntity
	var parsed any
	if err := c.api.Unmarshal(contentType, body, &parsed); err != nil {
		status = http.StatusBadRequest
		if errors.Is(err, huma.ErrUnknownContentType) {
			status = http.StatusUnsupportedMediaType
		}
		res.Errors = append(res.Errors, &huma.ErrorDetail{Location: "body", Message: err.Error(), Value: string(body)})
	} else {
		pb := huma.NewPathBuffer(make([]byte, 0, 128), 0)
		pb.Push("body")
		huma.Validate(c.registry, c.schema, pb, huma.ModeWriteToServer, parsed, res)
	}
	if len(res.Errors) == 0 {
		return true
	}
	_ = huma.WriteErr(c.api, ctx, status, "validation failed", res.Errors...)
	return false
}

// humaReadsAsJSON reports whether huma decodes a body of this Content-Type
// with the JSON format (the lookup of huma's api.Unmarshal).
func humaReadsAsJSON(contentType string) bool {
	start := strings.IndexByte(contentType, '+') + 1
	end := strings.IndexByte(contentType, ';')
	if end == -1 {
		end = len(contentType)
	}
	if end < start {
		return false
	}
	switch contentType[start:end] {
	case "", "application/json", "json":
		return true
	}
	return false
}

// supported reports whether admits judges every keyword of s, and compiles
// its patterns.
func (c *bodyCheck) supported(s *huma.Schema, seen map[*huma.Schema]bool) bool {
	s = c.deref(s)
	if s == nil {
		return false
	}
	if seen[s] {
		return true
	}
	seen[s] = true
	if s.AnyOf != nil || s.AllOf != nil || s.Not != nil || s.Discriminator != nil || s.UniqueItems ||
		s.ContentEncoding != "" || len(s.DependentRequired) > 0 || s.MinProperties != nil || s.MaxProperties != nil ||
		len(s.Required) > 64 {
		return false
	}
	if s.Type == huma.TypeString && humaFormats[s.Format] {
		return false
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return false
		}
		c.patterns[s] = re
	}
	for _, e := range s.Enum {
		switch e.(type) {
		case string, float64, bool, nil:
		default:
			return false // huma compares with the decoded value: an int never matches
		}
	}
	if s.OneOf != nil {
		// Only a choice among scalar schemas, judged on one token.
		if s.Type != "" || len(s.Enum) > 0 {
			return false
		}
		for _, b := range s.OneOf {
			b = c.deref(b)
			if b == nil || b.OneOf != nil || !scalarType(b.Type) || !c.supported(b, seen) {
				return false
			}
		}
		return true
	}
	switch s.Type {
	case "", huma.TypeBoolean, huma.TypeNumber, huma.TypeInteger, huma.TypeString:
		return !(s.Type == "" && len(s.Enum) > 0)
	case huma.TypeArray:
		return len(s.Enum) == 0 && s.Items != nil && c.supported(s.Items, seen)
	case huma.TypeObject:
		if len(s.Enum) > 0 {
			return false
		}
		for _, p := range s.Properties {
			if !c.supported(p, seen) {
				return false
			}
		}
		switch a := s.AdditionalProperties.(type) {
		case nil, bool:
			return true
		case *huma.Schema:
			return c.supported(a, seen)
		}
	}
	return false
}

// humaFormats are the string formats huma validates (validateFormat) and
// admits does not: a schema with one is left to huma. admits checks
// date-time and date; huma ignores the others (int64, double...).
var humaFormats = map[string]bool{
	"date-time-http": true, "duration": true, "time": true, "email": true, "idn-email": true, "hostname": true,
	"idn-hostname": true, "ipv4": true, "ipv6": true, "ip": true, "uri": true, "uri-reference": true, "iri": true,
	"iri-reference": true, "uri-template": true, "uuid": true, "json-pointer": true, "relative-json-pointer": true, "regex": true,
}

func scalarType(t string) bool {
	return t == huma.TypeBoolean || t == huma.TypeNumber || t == huma.TypeInteger || t == huma.TypeString
}

func (c *bodyCheck) deref(s *huma.Schema) *huma.Schema {
	for s != nil && s.Ref != "" {
		s = c.registry.SchemaFromRef(s.Ref)
	}
	return s
}

// decoder is a pooled decoder with its reader: one per body is about
// 10 kB of buffers otherwise.
type decoder struct {
	dec *jsontext.Decoder
	r   bytes.Reader
}

var decoders = sync.Pool{New: func() any {
	d := &decoder{}
	d.dec = jsontext.NewDecoder(&d.r)
	return d
}}

// admits reports whether body is one JSON value that huma would decode and
// find valid against the schema. It may refuse a valid body (then huma
// judges it), never admit an invalid one: it is stricter than huma where
// that is simpler (duplicate members, invalid UTF-8, a member named in
// another case than its property).
func (c *bodyCheck) admits(body []byte) bool {
	d := decoders.Get().(*decoder)
	defer func() {
		d.r.Reset(nil)
		d.dec.Reset(&d.r)
		decoders.Put(d)
	}()
	d.r.Reset(body)
	d.dec.Reset(&d.r)
	dec := d.dec
	if !c.value(dec, c.schema) {
		return false
	}
	_, err := dec.ReadToken()
	return err == io.EOF
}

// value reads the next value of dec and reports whether it satisfies s.
func (c *bodyCheck) value(dec *jsontext.Decoder, s *huma.Schema) bool {
	s = c.deref(s)
	kind := dec.PeekKind()
	switch {
	case kind == 'n':
		if _, err := dec.ReadToken(); err != nil {
			return false
		}
		return s.OneOf == nil && (s.Nullable || s.Type == "")
	case s.Type == "" && s.OneOf == nil:
		return skip(dec) // no constraint on the value
	case kind == '{':
		return s.Type == huma.TypeObject && c.object(dec, s)
	case kind == '[':
		return s.Type == huma.TypeArray && c.array(dec, s)
	case kind == '"' || kind == '0' || kind == 't' || kind == 'f':
		raw, err := dec.ReadValue()
		return err == nil && c.scalar(s, kind, raw)
	}
	return false
}

func (c *bodyCheck) object(dec *jsontext.Decoder, s *huma.Schema) bool {
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	var present uint64 // bit i: s.Required[i] seen
	for dec.PeekKind() != '}' {
		raw, err := dec.ReadValue()
		if err != nil || jsontext.Value(raw).Kind() != '"' {
			return false
		}
		name, ok := unquote(raw)
		if !ok {
			return false
		}
		// name points into dec's buffer: used only before the next read.
		prop, known := s.Properties[name]
		if !known {
			for p := range s.Properties {
				if strings.EqualFold(p, name) {
					return false // huma would take it for that property
				}
			}
			switch a := s.AdditionalProperties.(type) {
			case bool:
				if !a || !skip(dec) {
					return false
				}
			case *huma.Schema:
				if !c.value(dec, a) {
					return false
				}
			default:
				if !skip(dec) {
					return false
				}
			}
			continue
		}
		required := false
		for i, r := range s.Required {
			if r == name {
				required = true
				present |= 1 << i
			}
		}
		if dec.PeekKind() == 'n' && (!required || s.Nullable) {
			// huma passes over an optional property that is null.
			if _, err := dec.ReadToken(); err != nil {
				return false
			}
			continue
		}
		if !c.value(dec, prop) {
			return false
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for i, r := range s.Required {
		if present&(1<<i) == 0 {
			if p, ok := s.Properties[r]; !ok || !p.ReadOnly {
				return false
			}
		}
	}
	return true
}

func (c *bodyCheck) array(dec *jsontext.Decoder, s *huma.Schema) bool {
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	n := 0
	for dec.PeekKind() != ']' {
		if dec.PeekKind() == 0 {
			return false
		}
		if !c.value(dec, s.Items) {
			return false
		}
		n++
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	return (s.MinItems == nil || n >= *s.MinItems) && (s.MaxItems == nil || n <= *s.MaxItems)
}

// scalar reports whether the string, number or boolean raw satisfies s as
// huma's Validate judges it.
func (c *bodyCheck) scalar(s *huma.Schema, kind jsontext.Kind, raw []byte) bool {
	s = c.deref(s)
	if s.OneOf != nil {
		matched := 0
		for _, b := range s.OneOf {
			if c.scalar(b, kind, raw) {
				matched++
			}
		}
		return matched == 1
	}
	var str string
	var num float64
	switch kind {
	case '"':
		var ok bool
		if str, ok = unquote(raw); !ok {
			return false
		}
	case '0':
		var err error
		if num, err = strconv.ParseFloat(string(raw), 64); err != nil {
			return false // out of float64's range: encoding/json refuses it
		}
	}
	switch s.Type {
	case huma.TypeBoolean:
		if kind != 't' && kind != 'f' {
			return false
		}
	case huma.TypeNumber, huma.TypeInteger:
		if kind != '0' || !c.number(s, num) {
			return false
		}
	case huma.TypeString:
		if kind != '"' || !c.text(s, str) {
			return false
		}
	case "":
	default:
		return false
	}
	if len(s.Enum) == 0 {
		return true
	}
	for _, e := range s.Enum {
		switch e := e.(type) {
		case string:
			if kind == '"' && e == str {
				return true
			}
		case float64:
			if kind == '0' && e == num {
				return true
			}
		case bool:
			if (kind == 't' || kind == 'f') && e == (kind == 't') {
				return true
			}
		}
	}
	return false
}

func (c *bodyCheck) number(s *huma.Schema, num float64) bool {
	return (s.Type != huma.TypeInteger || num == math.Trunc(num)) &&
		(s.Minimum == nil || num >= *s.Minimum) &&
		(s.ExclusiveMinimum == nil || num > *s.ExclusiveMinimum) &&
		(s.Maximum == nil || num <= *s.Maximum) &&
		(s.ExclusiveMaximum == nil || num < *s.ExclusiveMaximum) &&
		(s.MultipleOf == nil || math.Mod(num, *s.MultipleOf) == 0)
}

func (c *bodyCheck) text(s *huma.Schema, str string) bool {
	if s.MinLength != nil && utf8.RuneCountInString(str) < *s.MinLength {
		return false
	}
	if s.MaxLength != nil && utf8.RuneCountInString(str) > *s.MaxLength {
		return false
	}
	if re := c.patterns[s]; re != nil && !re.MatchString(str) {
		return false
	}
	switch s.Format {
	case "date-time":
		if _, err := time.Parse(time.RFC3339, str); err != nil {
			if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
				return false
			}
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, str); err != nil {
			return false
		}
	}
	return true
}

// unquote returns the text of a JSON string literal. Without escapes it is
// raw's own bytes, valid until the decoder reads on: the pass judges
// hundreds of strings per body and keeps none, so it copies none.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		inner := raw[1 : len(raw)-1]
		return unsafe.String(unsafe.SliceData(inner), len(inner)), true
	}
	b, err := jsontext.AppendUnquote(nil, raw)
	return string(b), err == nil
}

// skip reads the next value of dec, which no schema constrains, and
// reports whether encoding/json would decode it: every number in range.
func skip(dec *jsontext.Decoder) bool {
	depth := 0
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		switch tok.Kind() {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '0':
			if _, err := tok.Float(); err != nil {
				return false
			}
		}
		if depth == 0 {
			return true
		}
	}
}
