package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"atcp/internal/app"
)

// servedOpenAPI returns /openapi.json of a demo server.
func servedOpenAPI(t *testing.T) []byte {
	t.Helper()
	resp, err := http.Get(startApp(t, "sqlite::memory:") + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %v", resp.StatusCode, err)
	}
	return body
}

// loadKin loads the document with kin-openapi, references resolved.
func loadKin(t *testing.T, data []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatalf("kin-openapi cannot load the document: %v", err)
	}
	return doc
}

// TestOpenAPIDocumentIsValid: kin-openapi and libopenapi (with its
// validator, against the OpenAPI 3.1 schema) accept the served document.
// CI also lints it with Redocly CLI and Spectral (tools/openapi-lint).
func TestOpenAPIDocumentIsValid(t *testing.T) {
	data := servedOpenAPI(t)

	doc := loadKin(t, data)
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Errorf("kin-openapi: %v", err)
	}

	lib, err := libopenapi.NewDocument(data)
	if err != nil {
		t.Fatalf("libopenapi cannot read the document: %v", err)
	}
	if _, err := lib.BuildV3Model(); err != nil {
		t.Errorf("libopenapi cannot build the model: %v", err)
	}
	v, errList := validator.NewValidator(lib)
	if len(errList) > 0 {
		t.Fatalf("libopenapi-validator: %v", errList)
	}
	if ok, problems := v.ValidateDocument(); !ok {
		for _, p := range problems {
			t.Errorf("libopenapi-validator: %s: %s", p.Message, p.Reason)
			for _, f := range p.SchemaValidationErrors {
				t.Errorf("  at %s: %s", f.KeywordLocation, f.Reason)
			}
		}
	}
}

// TestOpenAPIDocumentsEverything: the plain handlers are in it,
// every tag of an operation is declared with a description, and every
// price says its unit.
func TestOpenAPIDocumentsEverything(t *testing.T) {
	doc := loadKin(t, servedOpenAPI(t))

	plain := map[string]string{"/healthz": "application/json", "/readyz": "application/json", "/metrics": "text/plain",
		"/set-password": "text/html"}
	for path, contentType := range plain {
		op := doc.Paths.Find(path)
		if op == nil || op.Get == nil {
			t.Errorf("GET %s is not documented", path)
			continue
		}
		if op.Get.Responses.Status(http.StatusOK).Value.Content.Get(contentType) == nil {
			t.Errorf("GET %s: 200 is not documented as %s", path, contentType)
		}
	}

	declared := map[string]bool{}
	for _, tag := range doc.Tags {
		if strings.TrimSpace(tag.Description) == "" {
			t.Errorf("tag %q has no description", tag.Name)
		}
		declared[tag.Name] = true
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if len(op.Tags) == 0 {
				t.Errorf("%s %s has no tag", method, path)
			}
			for _, tag := range op.Tags {
				if !declared[tag] {
					t.Errorf("%s %s: tag %q is not declared", method, path, tag)
				}
			}
		}
	}

	unit := regexp.MustCompile(`EUR/MW per block|EUR/MW/h|EUR/MWh`)
	for name, schema := range doc.Components.Schemas {
		for prop, ref := range schema.Value.Properties {
			if !strings.Contains(prop, "price") || strings.HasSuffix(prop, "_source") {
				continue
			}
			desc := ref.Value.Description
			if !unit.MatchString(desc) {
				t.Errorf("%s.%s: the description %q names no unit (EUR/MW per block, EUR/MW/h or EUR/MWh)", name, prop, desc)
			}
		}
	}
}

// TestOpenAPINullPointers: a pointer field without omitempty is written as
// null when nil, so its schema must admit null (huma's does not for a
// pointer to a struct or to a type with its own schema), its enum too.
func TestOpenAPINullPointers(t *testing.T) {
	a, err := app.New(context.Background(), testConfig(t, "sqlite::memory:", t.TempDir()), slog.New(slog.DiscardHandler), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	reg := a.Server.API.OpenAPI().Components.Schemas
	admitsNull := func(s *huma.Schema) bool {
		if s.Nullable || s.Type == "null" {
			return true
		}
		for _, sub := range append(append([]*huma.Schema{}, s.AnyOf...), s.OneOf...) {
			if sub.Type == "null" {
				return true
			}
		}
		return false
	}
	checked := 0
	for name, schema := range reg.Map() {
		typ := reg.TypeFromRef("#/components/schemas/" + name)
		if typ == nil || typ.Kind() != reflect.Struct {
			continue
		}
		for _, f := range reflect.VisibleFields(typ) {
			jsonName, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || f.Anonymous || jsonName == "-" || f.Type.Kind() != reflect.Pointer || strings.Contains(opts, "omitempty") {
				continue
			}
			if jsonName == "" {
				jsonName = f.Name
			}
			if p := schema.Properties[jsonName]; p != nil {
				checked++
				if !admitsNull(p) {
					t.Errorf("%s.%s (%s) may be null, but its schema does not admit null", name, jsonName, f.Type)
				}
				if len(p.Enum) > 0 && !slices.Contains(p.Enum, nil) {
					t.Errorf("%s.%s (%s) may be null, but its enum does not list null", name, jsonName, f.Type)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d pointer fields checked", checked)
	}
}
