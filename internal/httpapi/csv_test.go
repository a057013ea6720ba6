package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/testkit"
)

type rowsBody struct {
	Rows []struct {
		Name string `json:"name"`
		Note string `json:"note"`
	} `json:"rows"`
}

func (b rowsBody) CSVHeader() []string { return []string{"name", "note"} }
func (b rowsBody) CSVRows() [][]string {
	out := make([][]string, len(b.Rows))
	for i, r := range b.Rows {
		out[i] = []string{r.Name, r.Note}
	}
	return out
}

type rowsOutput struct{ Body rowsBody }

type rowsInput struct {
	Fail bool `query:"fail"`
}

// TestCSVForm: a Table body answers text/csv to a client asking for it,
// JSON otherwise; its errors stay problem+json; an operation without a
// CSV form answers JSON even to a client asking for CSV.
func TestCSVForm(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	register(h)
	httpapi.Register(h.Server, huma.Operation{OperationID: "rows", Method: http.MethodGet, Path: "/v1/rows"},
		httpapi.Scopes(auth.ReportRead), func(ctx context.Context, in *rowsInput) (*rowsOutput, error) {
			if in.Fail {
				return nil, errs.NotFoundf("no rows")
			}
			out := &rowsOutput{}
			out.Body.Rows = append(out.Body.Rows, struct {
				Name string `json:"name"`
				Note string `json:"note"`
			}{"a", "x, \"quoted\""})
			return out, nil
		})
	token := h.TokenFor("acme", auth.ReportRead, auth.AssetWrite)
	get := func(path, accept string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		w := httptest.NewRecorder()
		h.Server.ServeHTTP(w, req)
		return w
	}
	w := get("/v1/rows", "text/csv")
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/csv" || w.Body.String() != "name,note\r\na,\"x, \"\"quoted\"\"\"\r\n" {
		t.Fatalf("csv: %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
	w = get("/v1/rows", "")
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || !json.Valid(w.Body.Bytes()) {
		t.Fatalf("json: %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
	w = get("/v1/rows?fail=true", "text/csv")
	if w.Code != 404 || w.Header().Get("Content-Type") != "application/problem+json" || !json.Valid(w.Body.Bytes()) {
		t.Fatalf("problem: %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
	req := httptest.NewRequest(http.MethodPost, "/v1/echo", strings.NewReader(`{"name":"ok"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/csv")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.Server.ServeHTTP(rec, req)
	if ct := rec.Header().Get("Content-Type"); rec.Code != 200 || ct != "application/json" || !json.Valid(rec.Body.Bytes()) {
		t.Fatalf("an operation without a CSV form answered %d %q %s", rec.Code, ct, rec.Body)
	}
	doc := h.Server.API.OpenAPI()
	if doc.Paths["/v1/rows"].Get.Responses["200"].Content["text/csv"] == nil {
		t.Fatal("the CSV form is not in the OpenAPI document")
	}
	if doc.Paths["/v1/echo"].Post.Responses["200"].Content["text/csv"] != nil {
		t.Fatal("an operation without a CSV form lists text/csv")
	}
}
