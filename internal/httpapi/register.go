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

// Access states who may call an operation. An onboarding magic-link
// session (auth.Principal.Task) is refused by every access but TaskOr and
// TaskSession: it may only reach its task endpoints (docs/onboarding.md
// section 1).
type Access struct {
	scopes []auth.Scope
	mode   accessMode
}

type accessMode int

const (
	byScopes    accessMode = iota // users and integrations with the scopes
	taskOr                        // a magic-link session, or users and integrations with the scopes
	taskSession                   // a magic-link session only
	public                        // no token needed
)

// Scopes requires an authenticated caller holding every scope given.
func Scopes(scopes ...auth.Scope) Access { return Access{scopes: scopes} }

// Authenticated requires a valid token and no particular scope.
var Authenticated = Access{}

// TaskOr admits a magic-link session, whatever its onboarding and role
// (the handler checks both), or another caller holding every scope given
// (the preview of platform and organisation users).
func TaskOr(scopes ...auth.Scope) Access { return Access{scopes: scopes, mode: taskOr} }

// TaskSession admits magic-link sessions only (their logout).
var TaskSession = Access{mode: taskSession}

// Public needs no token: the magic-link exchange and refresh, which a
// contact calls before holding one. A token sent along is not required.
var Public = Access{mode: public}

// Register adds an operation to the API with its access rule: the rule is
// both enforced and written into the OpenAPI document (security requirement
// and x-required-scopes).
func Register[I, O any](s *Server, op huma.Operation, access Access, handler func(context.Context, *I) (*O, error)) {
	names := make([]string, len(access.scopes))
	for i, sc := range access.scopes {
		names[i] = string(sc)
	}
	op.Security = []map[string][]string{{SecurityScheme: names}}
	if access.mode == public {
		op.Security = []map[string][]string{}
	}
	if op.Extensions == nil {
		op.Extensions = map[string]any{}
	}
	op.Extensions["x-required-scopes"] = names
	if len(names) > 0 {
		op.Description = strings.TrimSpace(op.Description + "\n\nRequired scopes: " + strings.Join(names, ", ") + ".")
	}
	switch access.mode {
	case byScopes:
		op.Description = strings.TrimSpace(op.Description + "\n\nNot for onboarding magic-link sessions: 403 " +
			string(CodeMagicLinkSessionNotAllowed) + ".")
	case taskOr:
		op.Description = strings.TrimSpace(op.Description + "\n\nAlso open to an onboarding magic-link session, for its own onboarding and role.")
	case taskSession:
		op.Description = strings.TrimSpace(op.Description + "\n\nOnly for an onboarding magic-link session: other callers get 403 " +
			string(CodeMagicLinkSessionRequired) + ".")
	}
	in := reflect.TypeFor[I]()
	_, withBody := in.FieldByName("Body")
	op.Errors = withEdgeErrors(op.Errors, access.mode, withBody, in.NumField() > 0)
	var body *bodyCheck
	if withBody && op.Metadata[oneDecodingPass] == true {
		op.SkipValidateBody = true
		body = &bodyCheck{}
	}
	op.Middlewares = append(huma.Middlewares{s.authorize(access), s.inspector(body)}, op.Middlewares...)
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
func withEdgeErrors(listed []int, mode accessMode, withBody, withInput bool) []int {
	// 503: an outage of the store, also while checking the token.
	want := []int{http.StatusTooManyRequests, http.StatusServiceUnavailable}
	if mode != public {
		want = append(want, http.StatusUnauthorized)
	}
	if withBody {
		// inspect: invalid UTF-8, duplicate members, a charset other than UTF-8.
		want = append(want, http.StatusBadRequest, http.StatusUnsupportedMediaType)
	}
	if withInput {
		want = append(want, http.StatusUnprocessableEntity) // inspect: instants out of range
	}
	if mode != public {
		// A missing scope, or a caller of the wrong kind (a magic-link
		// session, or none where only one may call).
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

func (s *Server) authorize(access Access) func(huma.Context, func(huma.Context)) {
	required := access.scopes
	return func(ctx huma.Context, next func(huma.Context)) {
		if access.mode == public {
			next(ctx)
			return
		}
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
		switch task := caller.principal.IsTaskSession(); {
		case task && access.mode == byScopes:
			_ = huma.WriteErr(s.API, ctx, http.StatusForbidden, "", errs.E(errs.Forbidden, CodeMagicLinkSessionNotAllowed,
				"an onboarding magic-link session may only call the task endpoints of its onboarding"))
			return
		case task:
			next(ctx) // taskOr, taskSession: the handler checks the onboarding and the role
			return
		case access.mode == taskSession:
			_ = huma.WriteErr(s.API, ctx, http.StatusForbidden, "", errs.E(errs.Forbidden, CodeMagicLinkSessionRequired,
				"only an onboarding magic-link session may call this operation"))
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
