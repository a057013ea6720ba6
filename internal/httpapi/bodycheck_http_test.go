package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/testkit"
)

type passPrice struct{ json.RawMessage }

func (passPrice) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{{Type: huma.TypeNumber}, {Type: huma.TypeString, MaxLength: new(4)}}}
}

type passItem struct {
	Key   *string   `json:"key,omitempty" minLength:"1" maxLength:"3"`
	Side  string    `json:"side" enum:"pos,neg"`
	At    time.Time `json:"at"`
	Price passPrice `json:"price"`
	Power float64   `json:"power" minimum:"1" maximum:"10" multipleOf:"1"`
}

type passInput struct {
	ID   string `path:"id"`
	Body struct {
		Items []passItem `json:"items" minItems:"1" maxItems:"3"`
		Mode  string     `json:"mode,omitempty" enum:"A,B"`
		Scope *struct {
			N int `json:"n"`
		} `json:"scope,omitempty"`
	}
}

type passOutput struct {
	Body struct {
		Items int `json:"items"`
	}
}

// TestOneDecodingPassAnswersAsHuma sends the same bodies to one operation
// validated by huma and to its twin marked OneDecodingPass: every answer,
// accepted or refused, must be the same.
func TestOneDecodingPassAnswersAsHuma(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	handle := func(_ context.Context, in *passInput) (*passOutput, error) {
		out := &passOutput{}
		out.Body.Items = len(in.Body.Items)
		return out, nil
	}
	httpapi.Register(h.Server, huma.Operation{OperationID: "by-huma", Method: http.MethodPost, Path: "/v1/by-huma/{id}"},
		httpapi.Scopes(auth.AssetWrite), handle)
	httpapi.Register(h.Server, httpapi.OneDecodingPass(huma.Operation{OperationID: "one-pass", Method: http.MethodPost, Path: "/v1/one-pass/{id}"}),
		httpapi.Scopes(auth.AssetWrite), handle)
	tok := h.TokenFor("acme", auth.AssetWrite)

	ok := `{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": 1.5, "power": 5}`
	bodies := []string{
		`{"items": [` + ok + `]}`, `{"items": [` + ok + `, ` + ok + `], "mode": "B", "scope": {"n": 2}}`,
		`{"items": [` + ok + `], "mode": null, "scope": null}`, `{"ITEMS": [` + ok + `]}`, `{"items": [{"Side": "neg", "at": "2026-02-01T08:00:00Z", "price": "1", "power": 1}]}`,
		``, `{`, `[]`, `null`, `"x"`, `{} {}`, `{"items": []}`, `{"items": {}}`, `{"items": [1]}`, `{"items": [{}]}`,
		`{"items": [` + ok + `, ` + ok + `, ` + ok + `, ` + ok + `]}`, `{"items": [` + ok + `], "mode": "C"}`,
		`{"items": [` + ok + `], "other": 1}`, `{"items": [` + ok + `], "scope": {"n": 1.5}}`, `{"items": [` + ok + `], "scope": {"n": 1e400}}`,
		`{"items": [{"side": "up", "at": "x", "price": true, "power": 0}]}`, `{"items": [{"side": "pos", "at": "2026-02-01T08:00:00Z", "price": "12345", "power": 11}]}`,
		`{"items": [{"key": "", "side": "pos", "at": "2026-02-01T08:00:00Z", "price": null, "power": 1.5}]}`,
		`{"items": [{"key": "long", "side": null, "at": 1, "price": [1], "power": "5"}]}`,
		`{"items": [{"side": "p\u006fs", "at": "2026-02-01T08:00:00Z", "price": "\u0031", "power": 1}]}`,
	}
	for _, body := range bodies {
		for _, ct := range []string{"application/json", "", "text/plain", "application/vnd.x+json"} {
			huma := doEdge(t, h, "/v1/by-huma/a", tok, ct, body)
			pass := doEdge(t, h, "/v1/one-pass/a", tok, ct, body)
			if huma.Status != pass.Status || !reflect.DeepEqual(withoutInstance(t, huma), withoutInstance(t, pass)) {
				t.Errorf("%s (Content-Type %q):\nhuma     %d %s\none pass %d %s", body, ct, huma.Status, huma.Body, pass.Status, pass.Body)
			}
		}
	}
}

func withoutInstance(t *testing.T, r *testkit.Response) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		return string(r.Body)
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "instance")
	}
	return v
}

// TestOneDecodingPassRefusesCheckedParameters: huma reports parameter and
// body errors in one problem, which the pass could not; an operation with
// a parameter huma may reject cannot be marked.
func TestOneDecodingPassRefusesCheckedParameters(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "huma may reject") {
			t.Fatalf("recovered %v", r)
		}
	}()
	httpapi.Register(h.Server, httpapi.OneDecodingPass(huma.Operation{OperationID: "edge-pass", Method: http.MethodPost, Path: "/v1/edge-pass/{day}"}),
		httpapi.Scopes(auth.AssetWrite), func(context.Context, *edgeInput) (*edgeOutput, error) { return nil, nil })
}
