package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"atcp/internal/auth"
)

// Options configure a Server.
type Options struct {
	Version string
	BaseURL string
	Tokens  *auth.Tokens
	// Credentials, when set, is asked on every request with a valid token
	// whether the token is still in force; without it a token is good
	// until it expires (test servers minting tokens for made-up callers).
	Credentials CredentialChecker
	Logger      *slog.Logger
	RateLimit   float64 // requests per second per caller; 0 disables
}

// CredentialChecker decides whether a verified access token may still be
// used: its subject exists and may act, the credential it came from is
// not revoked, and the subject still holds every scope on it. An error
// means it could not tell (the store cannot be reached).
type CredentialChecker interface {
	InForce(ctx context.Context, p *auth.Principal) (bool, error)
}

// Server is the HTTP face of atcp: a net/http mux with the huma API on it,
// the outer middleware, health, readiness and metrics.
type Server struct {
	Mux     *http.ServeMux
	API     huma.API
	tokens  *auth.Tokens
	creds   CredentialChecker
	log     *slog.Logger
	limiter *limiter
	metrics *metrics
	handler http.Handler

	mu     sync.Mutex
	checks map[string]*readiness
}

// readiness is a check /readyz runs. A load balancer may poll every
// second: a failure is logged when it starts and then at most once per
// readinessLogEvery while it lasts, the recovery once.
type readiness struct {
	check func(context.Context) error

	mu      sync.Mutex
	failing bool
	logged  time.Time // when the current failure was last logged
}

// logFailure reports whether a failure seen at now is to be logged.
func (r *readiness) logFailure(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failing && now.Sub(r.logged) < readinessLogEvery {
		return false
	}
	r.failing, r.logged = true, now
	return true
}

// recovered reports whether the check was failing until now.
func (r *readiness) recovered() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	was := r.failing
	r.failing = false
	return was
}

const readinessLogEvery = 30 * time.Second

// SecurityScheme is the name of the OAuth2 scheme in the OpenAPI document.
const SecurityScheme = "oauth2"

// New builds the server; areas then register their operations on it.
func New(o Options) *Server {
	cfg := huma.DefaultConfig("atcp: Asset Trading and Control Platform", o.Version)
	cfg.CreateHooks = nil // no $schema members or Link headers in responses
	cfg.DocsPath = ""     // the docs UI would load scripts from the internet
	cfg.SchemasPath = ""
	cfg.OpenAPIPath = "/openapi"
	cfg.Formats = map[string]huma.Format{"application/json": jsonFormat, "json": jsonFormat, CSVContentType: csvFormat}
	cfg.Info.Description = "Register battery storage assets, bid them into the German balancing markets, " +
		"steer them and read their state. Every operation needs a bearer access token from " + o.BaseURL + "/oauth2/token; " +
		"the scopes each operation requires are listed under its security requirement."
	cfg.Servers = []*huma.Server{{URL: o.BaseURL, Description: "This server."}}
	cfg.Info.Contact = &huma.Contact{Name: "The operator of this atcp server", URL: o.BaseURL}
	cfg.Info.License = &huma.License{Name: "Proprietary", Identifier: "LicenseRef-Proprietary"}
	scopes := map[string]string{}
	for _, sc := range auth.AllScopes {
		scopes[string(sc)] = string(sc)
	}
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		SecurityScheme: {
			Type:        "oauth2",
			Description: "Signed JWT access tokens (ES256, 3600 s). Integrations use client credentials; people sign in with the authorization code flow and PKCE.",
			Flows: &huma.OAuthFlows{
				ClientCredentials: &huma.OAuthFlow{TokenURL: o.BaseURL + "/oauth2/token", Scopes: scopes},
				AuthorizationCode: &huma.OAuthFlow{
					AuthorizationURL: o.BaseURL + "/oauth2/authorize", TokenURL: o.BaseURL + "/oauth2/token",
					RefreshURL: o.BaseURL + "/oauth2/token", Scopes: scopes,
				},
			},
		},
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	s := &Server{Mux: http.NewServeMux(), tokens: o.Tokens, creds: o.Credentials, log: logger, metrics: newMetrics(),
		checks: map[string]*readiness{}}
	if o.RateLimit > 0 {
		s.limiter = newLimiter(o.RateLimit)
	}
	s.API = humago.New(s.Mux, cfg)
	s.handler = s.outer(s.Mux)

	s.Mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, Health{Status: "ok"})
	})
	s.Mux.HandleFunc("GET /readyz", s.readyz)
	s.Mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{}))
	s.Mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		WriteProblem(w, r, NewProblem(http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path))
	})
	s.documentOperational()
	return s
}

// ServeHTTP serves a request through the middleware.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// AddReadiness registers a check /readyz runs (store reachable, worker alive).
func (s *Server) AddReadiness(name string, check func(context.Context) error) {
	s.mu.Lock()
	s.checks[name] = &readiness{check: check}
	s.mu.Unlock()
}

// readyz answers whether each check passed. Anyone may call it, so a
// failure is only named: the error (a driver's text carries the database's
// host, port, user and name) goes to the log.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	s.mu.Lock()
	checks := make(map[string]*readiness, len(s.checks))
	for k, v := range s.checks {
		checks[k] = v
	}
	s.mu.Unlock()
	result := map[string]string{}
	status := http.StatusOK
	for name, c := range checks {
		if err := c.check(ctx); err != nil {
			result[name] = "failed"
			status = http.StatusServiceUnavailable
			// Operational time, as for the rate limits: not the platform clock.
			if c.logFailure(time.Now()) {
				s.log.WarnContext(ctx, "readiness check failed", "check", name, "request_id", RequestID(ctx), "error", err)
			}
		} else {
			result[name] = "ok"
			if c.recovered() {
				s.log.InfoContext(ctx, "readiness check passes again", "check", name, "request_id", RequestID(ctx))
			}
		}
	}
	state := "ready"
	if status != http.StatusOK {
		state = "not ready"
	}
	writeJSON(w, status, Readiness{Status: state, Checks: result})
}

// jsonFormat is huma's JSON format except that a value that cannot be
// encoded (a time beyond year 9999, a NaN) panics before a byte is written,
// so that the request ends as a logged 500 problem rather than a 200 whose
// body says "error marshaling response".
var jsonFormat = huma.Format{
	Marshal: func(w io.Writer, v any) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		err := enc.Encode(v)
		var marshaler *json.MarshalerError
		var unsupportedType *json.UnsupportedTypeError
		var unsupportedValue *json.UnsupportedValueError
		if errors.As(err, &marshaler) || errors.As(err, &unsupportedType) || errors.As(err, &unsupportedValue) {
			panic(fmt.Errorf("encoding the response: %w", err))
		}
		return err // writing failed: the client has gone
	},
	Unmarshal: json.Unmarshal,
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteJSON sends v as a JSON response, for plain handlers.
func WriteJSON(w http.ResponseWriter, status int, v any) { writeJSON(w, status, v) }
