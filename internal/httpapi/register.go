package httpapi

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
)

// Access states who may call an operation.
type Access struct {
	scopes []auth.Scope
}

// Scopes requires an authenticated caller holding every scope given.
func Scopes(scopes ...auth.Scope) Access { return Access{scopes: scopes} }

// Authenticated requires a valid token and no particular scope.
var Authenticated = Access{}

// Register adds an operation to the API with its access rule: the rule is
// both enforced and written into the OpenAPI document (security requirement
// and x-required-scopes).
func Register[I, O any](s *Server, op huma.Operation, access Access, handler func(context.Context, *I) (*O, error)) {
	names := make([]string, len(access.scopes))
	for i, sc := range access.scopes {
		names[i] = string(sc)
	}
	op.Security = []map[string][]string{{SecurityScheme: names}}
	if op.Extensions == nil {
		op.Extensions = map[string]any{}
	}
	op.Extensions["x-required-scopes"] = names
	if len(names) > 0 {
		op.Description = strings.TrimSpace(op.Description + "\n\nRequired scopes: " + strings.Join(names, ", ") + ".")
	}
	in := reflect.TypeFor[I]()
	_, withBody := in.FieldByName("Body")
	op.Errors = withEdgeErrors(op.Errors, len(names) > 0, withBody, in.NumField() > 0)
	var body *bodyCheck
	if withBody && op.Metadata[oneDecodingPass] == true {
		op.SkipValidateBody = true
		body = &bodyCheck{}
	}
	op.Middlewares = append(huma.Middlewares{s.authorize(access.scopes), s.inspector(body)}, op.Middlewares...)
	if !isTable[O]() {
		huma.Register(huma.API(jsonOnly{s.API}), op, handler)
	} else {
		huma.Register(s.API, op, handler)
		s.documentCSV(op)
	}
	if body != nil {
		body.prepare(s.API, op.Method, op.Path)
	}
}

// withEdgeErrors adds the statuses every operation may answer before its
// handler runs: authentication, rate limits, outages, and inspect's.
func withEdgeErrors(listed []int, scoped, withBody, withInput bool) []int {
	// 503: an outage of the store, also while checking the token.
	want := []int{http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusServiceUnavailable}
	if withBody {
		// inspect: invalid UTF-8, duplicate members, a charset other than UTF-8.
		want = append(want, http.StatusBadRequest, http.StatusUnsupportedMediaType)
	}
	if withInput {
		want = append(want, http.StatusUnprocessableEntity) // inspect: instants out of range
	}
	if scoped {
		want = append(want, http.StatusForbidden)
	}
	out := append([]int(nil), listed...)
	for _, st := range want {
		found := false
		for _, l := range out {
			found = found || l == st
		}
		if !found {
			out = append(out, st)
		}
	}
	return out
}

func (s *Server) authorize(required []auth.Scope) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		caller := callerFrom(ctx.Context())
		if caller != nil && caller.unchecked {
			// Neither 401 (the token may well be good) nor 500: the client
			// should retry (the problem carries Retry-After).
			_ = huma.WriteErr(s.API, ctx, http.StatusServiceUnavailable, "", errs.E(errs.Unavailable, errs.CodeStoreUnavailable,
				"the access token cannot be checked while the store is unavailable; retry after the number of seconds in Retry-After"))
			return
		}
		if caller == nil || caller.principal == nil {
			detail := "a bearer access token is required"
			if caller != nil && caller.tokenErr {
				detail = "the access token is invalid or expired"
			}
			ctx.SetHeader("WWW-Authenticate", `Bearer realm="atcp", error="invalid_token"`)
			_ = huma.WriteErr(s.API, ctx, http.StatusUnauthorized, detail)
			return
		}
		if !caller.principal.Scopes.Has(required...) {
			missing := []string{}
			for _, sc := range required {
				if !caller.principal.Scopes.Has(sc) {
					missing = append(missing, string(sc))
				}
			}
			ctx.SetHeader("WWW-Authenticate", `Bearer realm="atcp", error="insufficient_scope", scope="`+strings.Join(missing, " ")+`"`)
			_ = huma.WriteErr(s.API, ctx, http.StatusForbidden, "the token lacks the scope(s) "+strings.Join(missing, ", "))
			return
		}
		next(ctx)
	}
}

// Principal returns the authenticated caller of an operation registered
// with Register; it is never nil inside such a handler.
func Principal(ctx context.Context) *auth.Principal { return auth.FromContext(ctx) }
