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
	"runtime/debug"
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

// statusRecorder remembers what a handler wrote, for logs and metrics, and
// holds the status line back until the first byte of the body: a handler
// that fails after choosing its status (huma sets 200, then encodes the
// body) can still be answered with a 500 problem instead of a 200 with a
// broken body.
type statusRecorder struct {
	http.ResponseWriter
	pending int // the status chosen, not yet sent
	status  int // the status sent
	bytes   int
}

func (s *statusRecorder) WriteHeader(code int) {
	if code < 200 {
		s.ResponseWriter.WriteHeader(code) // informational: sent at once
		if code == http.StatusSwitchingProtocols {
			s.status = code // final: the connection is handed over (WebSocket)
		}
		return
	}
	if s.pending == 0 && s.status == 0 {
		s.pending = code
	}
}

// commit sends the status chosen (200 if none).
func (s *statusRecorder) commit() {
	if s.status != 0 {
		return
	}
	s.status = s.pending
	if s.status == 0 {
		s.status = http.StatusOK
	}
	s.ResponseWriter.WriteHeader(s.status)
}

// committed reports whether the status line has been sent.
func (s *statusRecorder) committed() bool { return s.status != 0 }

// discard forgets the status and the headers chosen but not sent, keeping
// the request id.
func (s *statusRecorder) discard() {
	s.pending = 0
	h := s.Header()
	id := h.Get("X-Request-ID")
	clear(h)
	h.Set("X-Request-ID", id)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.commit()
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// FlushError sends what is written so far (http.ResponseController.Flush).
func (s *statusRecorder) FlushError() error {
	s.commit()
	return http.NewResponseController(s.ResponseWriter).Flush()
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

type clientIPKey struct{}

// ClientIP returns the peer address of the request ctx belongs to, for
// limits an operation keeps per client (the unauthenticated magic-link
// exchange); as clientIP, a proxy's address behind a proxy.
func ClientIP(ctx context.Context) string {
	ip, _ := ctx.Value(clientIPKey{}).(string)
	return ip
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

// logRequest writes the access log line and the metrics of a request.
func (s *Server) logRequest(ctx context.Context, r *http.Request, rec *statusRecorder, caller *callerState, start time.Time) {
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
		slog.String("request_id", RequestID(ctx)), slog.String("method", r.Method), slog.String("route", route),
		slog.String("path", r.URL.Path), slog.Int("status", rec.status), slog.Int("bytes", rec.bytes),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000), slog.String("subject", subject),
		slog.String("remote", clientIP(r)))
}

// authorization is the request's Authorization header or, on a WebSocket
// handshake without one, "Bearer <token>" from the subprotocols
// "bearer, <token>": a browser cannot set headers on a WebSocket.
func authorization(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" || !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return h
	}
	protocols := strings.Split(strings.Join(r.Header.Values("Sec-WebSocket-Protocol"), ","), ",")
	if len(protocols) == 2 && strings.TrimSpace(protocols[0]) == "bearer" {
		return "Bearer " + strings.TrimSpace(protocols[1])
	}
	return ""
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
		ctx = context.WithValue(ctx, clientIPKey{}, clientIP(r))

		caller := &callerState{}
		if h := authorization(r); h != "" {
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
			aborted := false
			if v := recover(); v != nil {
				aborted = v == http.ErrAbortHandler
				if !aborted {
					s.log.ErrorContext(ctx, "panic serving request", "request_id", id, "panic", v, "stack", string(debug.Stack()))
					if rec.committed() {
						// Part of a response is out: cut the connection so that
						// the client cannot take it for a whole one.
						aborted = true
					} else {
						rec.discard()
						WriteProblem(rec, r, NewProblem(http.StatusInternalServerError, "internal error; quote the request id when reporting it"))
					}
				}
			}
			rec.commit()
			s.logRequest(ctx, r, rec, caller, start)
			if aborted {
				panic(http.ErrAbortHandler)
			}
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
