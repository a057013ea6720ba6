package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"

	"atcp/internal/auth"
)

type requestIDKey struct{}

// RequestID returns the id of the request ctx belongs to.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

var acceptableRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WriteProblem sends p as application/problem+json.
func WriteProblem(w http.ResponseWriter, r *http.Request, p *Problem) {
	if p.Instance == "" {
		p.Instance = "urn:atcp:request:" + RequestID(r.Context())
	}
	for k, v := range p.headers {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// statusRecorder remembers what a handler wrote, for logs and metrics.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the real writer (deadlines).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// callerState carries what authentication found into the inner handlers.
type callerState struct {
	principal *auth.Principal
	tokenErr  bool // a bearer token was sent but is not valid
	// unchecked: the token is valid but whether it is still in force could
	// not be checked (the store is away).
	unchecked bool
}

type callerKey struct{}

func callerFrom(ctx context.Context) *callerState {
	c, _ := ctx.Value(callerKey{}).(*callerState)
	return c
}

// clientIP is the peer address; a deployment behind a proxy limits per
// proxy address unless the proxy enforces its own limits.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// checkCredential records p as the caller if its token is still in force.
func (s *Server) checkCredential(ctx context.Context, caller *callerState, p *auth.Principal) {
	if s.creds == nil {
		caller.principal = p
		return
	}
	ok, err := s.creds.InForce(ctx, p)
	switch {
	case err != nil:
		caller.unchecked = true
		s.log.WarnContext(ctx, "access token not checked", "request_id", RequestID(ctx), "subject", p.Subject, "error", err)
	case ok:
		caller.principal = p
	default:
		caller.tokenErr = true
	}
}

// outer wraps every request: request id, panic recovery, authentication,
// rate limiting, the access log and metrics.
func (s *Server) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Operational timing uses the machine's clock, not the platform clock:
		// a replayed day at 100x speed must not make requests look slow.
		start := time.Now()
		id := r.Header.Get("X-Request-ID")
		if !acceptableRequestID.MatchString(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-ID", id)
		ctx := context.WithValue(r.Context(), requestIDKey{}, id)

		caller := &callerState{}
		if h := r.Header.Get("Authorization"); h != "" {
			scheme, token, _ := strings.Cut(h, " ")
			if strings.EqualFold(scheme, "Bearer") && token != "" {
				if p, err := s.tokens.Verify(strings.TrimSpace(token)); err == nil {
					s.checkCredential(ctx, caller, p)
					if caller.principal != nil {
						ctx = auth.WithPrincipal(ctx, p)
					}
				} else {
					caller.tokenErr = true
				}
			} else {
				caller.tokenErr = true
			}
		}
		ctx = context.WithValue(ctx, callerKey{}, caller)
		r = r.WithContext(ctx)
		rec := &statusRecorder{ResponseWriter: w}

		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				slog.ErrorContext(ctx, "panic serving request", "request_id", id, "panic", v)
				if rec.status == 0 {
					WriteProblem(rec, r, NewProblem(http.StatusInternalServerError, "internal error; quote the request id when reporting it"))
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			elapsed := time.Since(start)
			s.metrics.observe(r.Method, route, rec.status, elapsed)
			subject := ""
			if caller.principal != nil {
				subject = caller.principal.Subject
			}
			s.log.LogAttrs(ctx, slog.LevelInfo, "request",
				slog.String("request_id", id), slog.String("method", r.Method), slog.String("route", route),
				slog.String("path", r.URL.Path), slog.Int("status", rec.status), slog.Int("bytes", rec.bytes),
				slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000), slog.String("subject", subject),
				slog.String("remote", clientIP(r)))
		}()

		if s.limiter != nil {
			key := "ip:" + clientIP(r)
			if caller.principal != nil {
				key = "sub:" + caller.principal.Subject
			}
			if !s.limiter.allow(rec.Header(), key) {
				WriteProblem(rec, r, NewProblem(http.StatusTooManyRequests, "rate limit exceeded; retry after the number of seconds in Retry-After"))
				return
			}
		}
		next.ServeHTTP(rec, r)
	})
}
