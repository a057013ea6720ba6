package httpapi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
)

// Tag declares an operation tag with its description in the document's
// global tags, once, and returns its name for huma.Operation.Tags.
func (s *Server) Tag(name, description string) string {
	doc := s.API.OpenAPI()
	for _, t := range doc.Tags {
		if t.Name == name {
			return name
		}
	}
	doc.Tags = append(doc.Tags, &huma.Tag{Name: name, Description: description})
	return name
}

// RequestExample is the RequestBody of an operation whose JSON body has
// the example given as JSON text; huma adds the schema. Invalid JSON
// panics at registration, so any test that starts a server catches it;
// internal/app's tests check each example against its schema.
func RequestExample(jsonText string) *huma.RequestBody {
	return &huma.RequestBody{Content: map[string]*huma.MediaType{"application/json": {Example: ParseExample(jsonText)}}}
}

// ResponseExample is the Responses of an operation whose success response
// (status) has the JSON body given as JSON text; huma adds the schema.
func ResponseExample(status int, jsonText string) map[string]*huma.Response {
	return map[string]*huma.Response{
		strconv.Itoa(status): {Content: map[string]*huma.MediaType{"application/json": {Example: ParseExample(jsonText)}}},
	}
}

// ParseExample parses JSON text for an example of a hand-written operation;
// it panics on invalid JSON.
func ParseExample(jsonText string) any {
	var v any
	if err := json.Unmarshal([]byte(jsonText), &v); err != nil {
		panic("httpapi: invalid JSON example: " + err.Error() + ": " + jsonText)
	}
	return v
}

// Health is the body of /healthz.
type Health struct {
	Status string `json:"status" enum:"ok"`
}

// Readiness is the body of /readyz.
type Readiness struct {
	Checks map[string]string `json:"checks" doc:"Each check by name (store, workers): ok or failed. Why a check failed is logged, never shown."`
	Status string            `json:"status" enum:"ready,not ready"`
}

const tagOperations = "Operations"

// documentOperational adds the plain health, readiness and metrics
// handlers to the OpenAPI document.
func (s *Server) documentOperational() {
	doc := s.API.OpenAPI()
	tags := []string{s.Tag(tagOperations, "Liveness, readiness and Prometheus metrics for load balancers and monitoring; no token needed.")}
	schema := func(v any) *huma.Schema { return doc.Components.Schemas.Schema(reflect.TypeOf(v), true, "") }
	rateLimited := &huma.Response{Description: "Rate limited per client address; see Retry-After.",
		Content: map[string]*huma.MediaType{"application/problem+json": {Schema: schema(Problem{})}}}
	noToken := []map[string][]string{} // an empty list: no authentication
	doc.AddOperation(&huma.Operation{
		OperationID: "healthz", Method: http.MethodGet, Path: "/healthz", Tags: tags, Security: noToken,
		Summary:     "Liveness",
		Description: "200 while the process serves requests; it checks nothing else (see /readyz).",
		Responses: map[string]*huma.Response{
			"200": {Description: "The process is alive.", Content: map[string]*huma.MediaType{
				"application/json": {Schema: schema(Health{}), Example: Health{Status: "ok"}}}},
			"429": rateLimited,
		},
	})
	doc.AddOperation(&huma.Operation{
		OperationID: "readyz", Method: http.MethodGet, Path: "/readyz", Tags: tags, Security: noToken,
		Summary:     "Readiness",
		Description: "200 when every check passes (the store answers within 2 s, the background workers run), else 503 naming the failed checks.",
		Responses: map[string]*huma.Response{
			"200": {Description: "Ready to serve.", Content: map[string]*huma.MediaType{
				"application/json": {Schema: schema(Readiness{}),
					Example: Readiness{Status: "ready", Checks: map[string]string{"store": "ok", "workers": "ok"}}}}},
			"429": rateLimited,
			"503": {Description: "A check failed.", Content: map[string]*huma.MediaType{
				"application/json": {Schema: schema(Readiness{}),
					Example: Readiness{Status: "not ready", Checks: map[string]string{"store": "failed", "workers": "ok"}}}}},
		},
	})
	doc.AddOperation(&huma.Operation{
		OperationID: "metrics", Method: http.MethodGet, Path: "/metrics", Tags: tags, Security: noToken,
		Summary: "Prometheus metrics",
		Description: "The Prometheus text exposition format: atcp_http_requests_total and atcp_http_request_duration_seconds by route, " +
			"the background workers' metrics, and the Go runtime and process collectors.",
		Responses: map[string]*huma.Response{
			"200": {Description: "The metrics.", Content: map[string]*huma.MediaType{
				"text/plain": {Schema: &huma.Schema{Type: huma.TypeString},
					Example: "# HELP atcp_http_requests_total HTTP requests by route and status.\n" +
						"# TYPE atcp_http_requests_total counter\n" +
						"atcp_http_requests_total{method=\"GET\",route=\"GET /v1/assets/{asset_id}\",status=\"200\"} 42\n"}}},
			"429": rateLimited,
		},
	})
}

// NullableRefs lets each named property of an object schema be null as
// well as the struct its $ref names; for the TransformSchema method of a
// response type. Huma documents a pointer to a struct by the $ref alone,
// though nil is written as null. Not for request bodies: huma's own
// validation would then accept anything for the property.
func NullableRefs(s *huma.Schema, props ...string) *huma.Schema {
	for _, name := range props {
		p := s.Properties[name]
		if p == nil || p.Ref == "" {
			panic("httpapi: NullableRefs: " + name + " is not a $ref property")
		}
		s.Properties[name] = &huma.Schema{Description: p.Description, AnyOf: []*huma.Schema{{Ref: p.Ref}, {Type: "null"}}}
	}
	return s
}

// NullInEnums adds null to the enum of each nullable property of an object
// schema, for a TransformSchema method: huma's enum tag cannot name null,
// so a nullable enum would refuse the null it admits. Huma's validation
// accepts null before it looks at the enum, so requests are unaffected.
func NullInEnums(s *huma.Schema) *huma.Schema {
	for _, p := range s.Properties {
		if p.Nullable && len(p.Enum) > 0 && !slices.Contains(p.Enum, nil) {
			p.Enum = append(p.Enum, nil)
		}
	}
	return s
}

// ExampleJSON renders v as the JSON of an OpenAPI example; it panics on a
// value that cannot be encoded, which only a programming error makes.
func ExampleJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
