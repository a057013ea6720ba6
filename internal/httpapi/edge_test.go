package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/testkit"
)

type itemIn struct {
	Name string `json:"name"`
}

type codeIn struct {
	Code string `json:"code" maxLength:"1"`
}

type edgeInput struct {
	Day  string `path:"day"`
	From string `query:"from" required:"false"`
	Body struct {
		At    time.Time `json:"at"`
		Note  string    `json:"note,omitempty" maxLength:"10"`
		Items []itemIn  `json:"items,omitempty"`
		Codes []codeIn  `json:"codes,omitempty"`
	}
}

type edgeOutput struct {
	Body struct {
		At time.Time `json:"at"`
	}
}

// registerEdge adds POST /v1/edge, which answers with its "at" shifted by
// a year less one day: from 9999-12-31 that is beyond year 9999 and cannot
// be encoded. "write-then-panic" writes a part of the body, then panics.
func registerEdge(h *testkit.Harness) {
	httpapi.Register(h.Server, huma.Operation{OperationID: "edge", Method: http.MethodPost, Path: "/v1/edge/{day}"},
		httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *edgeInput) (*edgeOutput, error) {
			out := &edgeOutput{}
			out.Body.At = in.Body.At.AddDate(1, 0, -1)
			return out, nil
		})
	h.Server.Mux.HandleFunc("GET /partial", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"half":`))
		panic("after the first byte")
	})
}

func doEdge(t *testing.T, h *testkit.Harness, path, token, contentType, body string) *testkit.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return h.Send(req)
}

func firstError(t *testing.T, r *testkit.Response) map[string]any {
	t.Helper()
	list, _ := r.Map(t)["errors"].([]any)
	if len(list) == 0 {
		t.Fatalf("no errors[]: %s", r.Body)
	}
	return list[0].(map[string]any)
}

func TestEdgeInstantsOutOfRange(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	registerEdge(h)
	tok := h.TokenFor("acme", auth.AssetWrite)
	cases := []struct {
		name, path, body string
		status           int
		location         string
	}{
		{"in range", "/v1/edge/2026-02-01", `{"at":"2026-02-01T00:00:00Z"}`, 200, ""},
		{"earliest", "/v1/edge/x", `{"at":"2000-01-01T00:00:00Z"}`, 200, ""},
		{"latest", "/v1/edge/x", `{"at":"2100-01-01T00:00:00Z"}`, 200, ""},
		{"year 0 in the body", "/v1/edge/x", `{"at":"0000-01-01T00:00:00Z"}`, 422, "body.at"},
		{"just before, by the offset", "/v1/edge/x", `{"at":"2000-01-01T00:30:00+01:00"}`, 422, "body.at"},
		{"year 9999 in the body", "/v1/edge/x", `{"at":"9999-12-31T00:00:00Z"}`, 422, "body.at"},
		{"nested in an array", "/v1/edge/x", `{"at":"2026-02-01T00:00:00Z","items":[{"name":"a"},{"name":"1999-12-31"}]}`, 422, "body.items[1].name"},
		{"a date in the query", "/v1/edge/x?from=0000-01-01", `{"at":"2026-02-01T00:00:00Z"}`, 422, "query.from"},
		{"a date in the path", "/v1/edge/2100-01-02", `{"at":"2026-02-01T00:00:00Z"}`, 422, "path.day"},
		{"not a date at all", "/v1/edge/x", `{"at":"2026-02-01T00:00:00Z","note":"0000-13-99"}`, 200, ""},
		// huma, not the range, refuses the unknown member.
		{"an object's name is not a value", "/v1/edge/x", `{"at":"2026-02-01T00:00:00Z","0000-01-01":1}`, 422, "body.0000-01-01"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := doEdge(t, h, c.path, tok, "application/json", c.body)
			if c.status == 200 {
				r.Expect(t, 200, "")
				return
			}
			r.Expect(t, c.status, "validation_failed")
			if loc := firstError(t, r)["location"]; loc != c.location {
				t.Fatalf("location %v, want %s: %s", loc, c.location, r.Body)
			}
		})
	}
}

func TestEdgeEncodingFailureIsA500Problem(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	registerEdge(h)
	tok := h.TokenFor("acme", auth.AssetWrite)
	// 2099-12-31 + 1 year - 1 day encodes; the handler cannot produce a
	// year beyond 9999 from an accepted instant, so provoke it directly.
	r := doEdge(t, h, "/v1/edge/x", tok, "application/json", `{"at":"2099-12-31T00:00:00Z"}`).Expect(t, 200, "")
	if !strings.Contains(string(r.Body), "2100-12-30") {
		t.Fatalf("body %s", r.Body)
	}
	httpapi.Register(h.Server, huma.Operation{OperationID: "far", Method: http.MethodGet, Path: "/v1/far"},
		httpapi.Authenticated, func(ctx context.Context, _ *struct{}) (*edgeOutput, error) {
			out := &edgeOutput{}
			out.Body.At = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
			return out, nil
		})
	r = h.Do("GET", "/v1/far", tok, nil).Expect(t, 500, "internal_error")
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q: %s", ct, r.Body)
	}
	if strings.Contains(string(r.Body), "marshal") {
		t.Fatalf("encoder text leaked: %s", r.Body)
	}
}

func TestEdgePanicAfterTheFirstByteCutsTheConnection(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	registerEdge(h)
	resp, err := http.Get(h.URL + "/partial")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Fatal("a response broken after its first byte arrived whole")
	}
}

func TestEdgeCharsetDuplicatesAndUTF8(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	registerEdge(h)
	tok := h.TokenFor("acme", auth.AssetWrite)
	ok := `{"at":"2026-02-01T00:00:00Z"}`
	cases := []struct {
		name, contentType, body string
		status                  int
		code                    errs.Code
		location                string
	}{
		{"plain", "application/json", ok, 200, "", ""},
		{"utf-8 named", "application/json; charset=UTF-8", ok, 200, "", ""},
		{"no content type", "", ok, 200, "", ""},
		{"utf-16", "application/json; charset=utf-16", ok, 415, "unsupported_media_type", ""},
		{"latin-1", "application/json;charset=iso-8859-1", ok, 415, "unsupported_media_type", ""},
		{"unparseable", "application/json; charset", ok, 415, "unsupported_media_type", ""},
		{"duplicate at the top", "application/json", `{"at":"2026-02-01T00:00:00Z","note":"a","note":"b"}`, 400, "duplicate_member", "body.note"},
		{"duplicate in an array's object", "application/json", `{"at":"2026-02-01T00:00:00Z","items":[{"name":"a"},{"name":"b","name":"c"}]}`, 400, "duplicate_member", "body.items[1].name"},
		{"duplicate by escape", "application/json", `{"at":"2026-02-01T00:00:00Z","note":"a","n\u006fte":"b"}`, 400, "duplicate_member", "body.note"},
		{"invalid utf-8", "application/json", "{\"at\":\"2026-02-01T00:00:00Z\",\"note\":\"\xff\"}", 400, "invalid_utf8", ""},
		{"syntax error stays huma's", "application/json", `{"at":`, 400, "malformed_request", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := doEdge(t, h, "/v1/edge/x", tok, c.contentType, c.body).Expect(t, c.status, c.code)
			if c.location != "" {
				if loc := firstError(t, r)["location"]; loc != c.location {
					t.Fatalf("location %v, want %s: %s", loc, c.location, r.Body)
				}
			}
		})
	}
	// Authentication comes first: an anonymous caller learns nothing of the body.
	doEdge(t, h, "/v1/edge/x", "", "application/json", `{"a":1,"a":2}`).Expect(t, 401, "invalid_token")
	doEdge(t, h, "/v1/edge/x", "", "application/json; charset=utf-16", ok).Expect(t, 401, "invalid_token")
}

func TestEdgeEchoedInputIsBounded(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	registerEdge(h)
	tok := h.TokenFor("acme", auth.AssetWrite)
	huge := strings.Repeat("é", 400_000) // 800 kB, under huma's 1 MiB limit
	r := doEdge(t, h, "/v1/edge/x", tok, "application/json", `{"at":"2026-02-01T00:00:00Z","note":"`+huge+`"}`).
		Expect(t, 422, "validation_failed")
	if len(r.Body) > 2000 {
		t.Fatalf("a 800 kB value came back in %d bytes", len(r.Body))
	}
	v, _ := firstError(t, r)["value"].(string)
	if want := strings.Repeat("é", 200) + "…"; v != want {
		t.Fatalf("value %q", v)
	}

	codes := make([]string, 300)
	for i := range codes {
		codes[i] = fmt.Sprintf(`{"code":"%03d"}`, i)
	}
	r = doEdge(t, h, "/v1/edge/x", tok, "application/json", `{"at":"2026-02-01T00:00:00Z","codes":[`+strings.Join(codes, ",")+`]}`).
		Expect(t, 422, "validation_failed")
	p := r.Map(t)
	if n := len(p["errors"].([]any)); n != 50 {
		t.Fatalf("%d errors listed", n)
	}
	if d := p["detail"].(string); !strings.Contains(d, "the first 50 of 300 errors are listed") {
		t.Fatalf("detail %q", d)
	}

	// A body at huma's limit is still refused as too large, not inspected.
	big := `{"at":"2026-02-01T00:00:00Z","note":"` + strings.Repeat("a", 1<<20) + `"}`
	doEdge(t, h, "/v1/edge/x", tok, "application/json", big).Expect(t, 413, "request_too_large")
}
