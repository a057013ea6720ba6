package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// checkedPrice is a custom schema of the kind the bid bodies use: a
// number or a short string.
type checkedPrice struct{ json.RawMessage }

func (checkedPrice) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{{Type: huma.TypeNumber}, {Type: huma.TypeString, MaxLength: new(4)}}}
}

type checkedItem struct {
	Key      *string      `json:"key,omitempty" minLength:"1" maxLength:"3"`
	Side     string       `json:"side" enum:"pos,neg"`
	At       time.Time    `json:"at"`
	Day      string       `json:"day,omitempty" format:"date"`
	Price    checkedPrice `json:"price"`
	Power    float64      `json:"power" minimum:"1" maximum:"10" multipleOf:"1"`
	Ratio    float64      `json:"ratio,omitempty" exclusiveMinimum:"0" exclusiveMaximum:"1"`
	Count    int          `json:"count,omitempty"`
	Code     string       `json:"code,omitempty" pattern:"^[a-z]+$"`
	Flag     bool         `json:"flag,omitempty"`
	Note     *string      `json:"note,omitempty" nullable:"true"`
	Anything any          `json:"anything,omitempty"`
}

type checkedBody struct {
	Items  []checkedItem     `json:"items" minItems:"1" maxItems:"3"`
	Mode   string            `json:"mode,omitempty" enum:"A,B"`
	Scope  *checkedScope     `json:"scope,omitempty"`
	Labels map[string]int    `json:"labels,omitempty"`
	Tags   []string          `json:"tags,omitempty" nullable:"false"`
	Extra  map[string]string `json:"extra,omitempty"`
}

type checkedScope struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

func newCheckedBody(t testing.TB) *bodyCheck {
	t.Helper()
	registry := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	c := &bodyCheck{}
	c.use(registry, registry.Schema(reflect.TypeFor[checkedBody](), true, "checkedBody"))
	if !c.streamed {
		t.Fatal("the test schema should be judged in one pass")
	}
	return c
}

// humaAccepts is what huma answered before OneDecodingPass: the body
// decodes and its generic value has no validation error.
func (c *bodyCheck) humaAccepts(body []byte) bool {
	var parsed any
	if err := json.Unmarshal(body, &parsed); err != nil {
		return false
	}
	pb := huma.NewPathBuffer(nil, 0)
	pb.Push("body")
	res := &huma.ValidateResult{}
	huma.Validate(c.registry, c.schema, pb, huma.ModeWriteToServer, parsed, res)
	return len(res.Errors) == 0
}

const checkedOK = `{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 12.5, "power": 5}`

// validBodies are bodies the pass must admit itself (else the fast path
// would never be taken).
var validBodies = []string{
	`{"items": [` + checkedOK + `]}`,
	` {"items": [` + checkedOK + `, ` + checkedOK + `], "mode": "B"} `,
	`{"items": [{"key": "k", "side": "neg", "at": "2026-02-01T08:00:00.5+01:00", "day": "2026-02-02", "price": "1.25", "power": 10,
		"ratio": 0.5, "count": 3, "code": "abc", "flag": true, "note": null, "anything": {"x": [1, "y", null, 1e300]}}],
		"scope": {"start": "2026-02-01T00:00:00Z", "end": "2026-02-02T00:00:00Z"}, "labels": {"a": 1}, "tags": ["t"], "extra": {"k": "v"}}`,
	`{"items": [{"key": null, "side": "pos", "at": "2026-02-01T08:00:00Z", "price": -3, "power": 1, "note": "n"}], "scope": null}`,
	`{"items": [` + checkedOK + `], "mode": null}`,
	`{"items": [{"side": "p\u006fs", "at": "2026-02-01T08:00:00Z", "price": "\u00e9", "power": 1}]}`,
}

// refusedBodies are bodies the pass must not admit: huma refuses most
// of them, and takes a few only by leniencies the pass leaves to it
// (another case than the property's, an unknown member's escape).
var refusedBodies = []string{
	``, `{`, `[]`, `null`, `"x"`, `1`, `{"items": []}`, `{"items": null, "mode": "A"} x`, `{"items": [` + checkedOK + `]}{}`,
	`{}`, `{"items": {}}`, `{"items": [1]}`, `{"items": [{}]}`,
	`{"items": [` + checkedOK + `, ` + checkedOK + `, ` + checkedOK + `, ` + checkedOK + `]}`,
	`{"items": [` + checkedOK + `], "mode": "C"}`,
	`{"items": [` + checkedOK + `], "other": 1}`,
	`{"items": [` + checkedOK + `], "Mode": "A"}`,
	`{"items": [` + checkedOK + `], "labels": {"a": "1"}}`,
	`{"items": [` + checkedOK + `], "labels": {"a": 1e400}}`,
	`{"items": [` + checkedOK + `], "scope": {"start": "2026-02-01T00:00:00Z"}}`,
	`{"items": [` + checkedOK + `], "scope": {"start": "2026-02-01T00:00:00Z", "end": "tomorrow"}}`,
	`{"items": [` + checkedOK + `], "tags": [1]}`,
	`{"items": [` + checkedOK + `], "items": [` + checkedOK + `]}`,
}

// itemVariants each break one item of an otherwise valid body, or keep it
// valid in an unusual way.
var itemVariants = []string{
	`{"side": "up", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5}`,
	`{"side": null, "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5}`,
	`{"side": "pos", "at": "2026-02-01 08:00", "price": 1, "power": 5}`,
	`{"side": "pos", "at": 1, "price": 1, "power": 5}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": "12345", "power": 5}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": true, "power": 5}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": null, "power": 5}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": [1], "power": 5}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 0}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 11}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 1.5}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": "5"}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 1e999}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "ratio": 0}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "ratio": 1}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "count": 1.5}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "code": "ABC"}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "key": ""}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "key": "long"}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "key": "éé"}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "day": "2026-02-30"}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "flag": "true"}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "note": 1}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "Side": "neg"}`,
	`{"SIDE": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5}`,
	`{"s\u0069de": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "extra": 1}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "anything": [1e400]}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "anything": null}`,
	`{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1, "power": 5, "note": "\ud800"}`,
}

// TestBodyCheckAgreesWithHuma: the one-pass validation admits the valid
// bodies itself, and admits nothing huma refuses.
func TestBodyCheckAgreesWithHuma(t *testing.T) {
	c := newCheckedBody(t)
	for _, b := range validBodies {
		if !c.humaAccepts([]byte(b)) {
			t.Errorf("huma refuses the valid body %s", b)
		}
		if !c.admits([]byte(b)) {
			t.Errorf("the pass does not admit the valid body %s", b)
		}
	}
	bodies := append([]string(nil), refusedBodies...)
	for _, v := range itemVariants {
		bodies = append(bodies, `{"items": [`+checkedOK+`, `+v+`]}`)
	}
	for _, b := range bodies {
		if c.admits([]byte(b)) && !c.humaAccepts([]byte(b)) {
			t.Errorf("the pass admits %s, which huma refuses", b)
		}
	}
	for _, b := range refusedBodies {
		if c.admits([]byte(b)) {
			t.Errorf("the pass admits %s", b)
		}
	}
}

// FuzzBodyCheck: whatever the body, the pass admits it only when huma
// accepts it.
func FuzzBodyCheck(f *testing.F) {
	for _, b := range validBodies {
		f.Add(b)
	}
	for _, b := range refusedBodies {
		f.Add(b)
	}
	for _, v := range itemVariants {
		f.Add(`{"items": [` + v + `]}`)
	}
	c := newCheckedBody(f)
	f.Fuzz(func(t *testing.T, body string) {
		if c.admits([]byte(body)) && !c.humaAccepts([]byte(body)) {
			t.Fatalf("the pass admits %q, which huma refuses", body)
		}
	})
}

// TestBodyCheckSchemaSupport: a schema with a keyword the pass does not
// judge leaves every body to huma.
func TestBodyCheckSchemaSupport(t *testing.T) {
	for name, s := range map[string]*huma.Schema{
		"anyOf":        {AnyOf: []*huma.Schema{{Type: huma.TypeString}}},
		"uniqueItems":  {Type: huma.TypeArray, UniqueItems: true},
		"uuid":         {Type: huma.TypeString, Format: "uuid"},
		"int enum":     {Type: huma.TypeInteger, Enum: []any{1, 2}},
		"object oneOf": {OneOf: []*huma.Schema{{Type: huma.TypeObject}, {Type: huma.TypeString}}},
		"nested":       {Type: huma.TypeObject, Properties: map[string]*huma.Schema{"a": {Type: huma.TypeString, Format: "email"}}},
	} {
		c := &bodyCheck{}
		c.use(huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer), s)
		if c.streamed {
			t.Errorf("%s: judged in one pass", name)
		}
	}
}
