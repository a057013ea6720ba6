package app_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestOpenAPIExamples: every request body and every JSON success response
// has an example, and every example of the document validates against its
// schema.
func TestOpenAPIExamples(t *testing.T) {
	doc := loadKin(t, servedOpenAPI(t))
	validate := func(where string, schema *openapi3.SchemaRef, example any) {
		if schema == nil || schema.Value == nil {
			t.Errorf("%s: an example without a schema", where)
			return
		}
		if err := schema.Value.VisitJSON(example, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
			t.Errorf("%s: the example does not match the schema: %v", where, err)
		}
	}
	// examples returns the media type's examples by name ("" for example).
	examples := func(mt *openapi3.MediaType) map[string]any {
		out := map[string]any{}
		if mt.Example != nil {
			out[""] = mt.Example
		}
		for name, ex := range mt.Examples {
			out[name] = ex.Value.Value
		}
		return out
	}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		for method, op := range doc.Paths.Value(path).Operations() {
			where := method + " " + path
			if rb := op.RequestBody; rb != nil {
				for ct, mt := range rb.Value.Content {
					ex := examples(mt)
					if len(ex) == 0 {
						t.Errorf("%s: the %s request body has no example", where, ct)
					}
					for name, v := range ex {
						validate(where+" request "+ct+" "+name, mt.Schema, v)
					}
				}
			}
			for status, resp := range op.Responses.Map() {
				for ct, mt := range resp.Value.Content {
					ex := examples(mt)
					if len(ex) == 0 && strings.HasPrefix(status, "2") && ct == "application/json" {
						t.Errorf("%s: the %s response has no example", where, status)
					}
					for name, v := range ex {
						validate(where+" "+status+" "+ct+" "+name, mt.Schema, v)
					}
				}
			}
		}
	}
}
