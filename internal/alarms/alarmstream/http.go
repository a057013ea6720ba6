package alarmstream

import (
	"atcp/internal/alarms"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
)

// Subprotocol is the WebSocket subprotocol a browser offers, followed by
// its access token, since it cannot set an Authorization header:
// new WebSocket(url, ["bearer", token]). The server selects it.
const Subprotocol = "bearer"

type streamInput struct {
	OrganizationID string `query:"organization_id" maxLength:"64" doc:"Stream only this organisation's events. Optional: a caller sees its own organisation's events, a platform administrator every organisation's unless it names one; naming another organisation is 403."`
	After          int64  `query:"after" minimum:"0" doc:"Resume: first replay every visible event with a larger event_id, then stream live. Without it the stream starts with the next event recorded."`
}

const tagStream = "Alarm stream"

// Register adds GET /v1/alarms/stream.
func Register(s *httpapi.Server, h *Hub) {
	tags := []string{s.Tag(tagStream, "Live alarm events over a WebSocket, resumable from an event id (docs/alarms-stream.md).")}
	schema := s.API.OpenAPI().Components.Schemas.Schema(reflectEvent, true, "")
	op := huma.Operation{
		OperationID: "streamAlarmEvents", Method: http.MethodGet, Path: "/v1/alarms/stream", Tags: tags,
		Summary: "Stream alarm events (WebSocket)",
		Description: "A WebSocket (RFC 6455) handshake. Once upgraded, the server sends each alarm event of the caller's " +
			"organisations as one text message (the JSON object of an alarm list item, schema AlarmEvent) in event_id order, " +
			"within about a second of it being recorded, and ignores what the client sends. The bearer token goes in the " +
			"Authorization header or, from a browser, as the subprotocols `bearer` and the token " +
			"(`new WebSocket(url, [\"bearer\", token])`). After a disconnect, reconnect with ?after=<last event_id received>: " +
			"nothing is missed or repeated. The server closes with 1001 when it shuts down, 1008 when the client reads too " +
			"slowly, and 1000 after one hour (reconnect with a fresh token); the close reason names the after= to resume with.",
		DefaultStatus: http.StatusSwitchingProtocols,
		Responses: map[string]*huma.Response{
			"101": {Description: "Switched to the WebSocket protocol; the messages are AlarmEvent objects.",
				Headers: map[string]*huma.Param{
					"Upgrade":              {Description: "websocket", Schema: &huma.Schema{Type: huma.TypeString}},
					"Sec-WebSocket-Accept": {Description: "The handshake's answer (RFC 6455).", Schema: &huma.Schema{Type: huma.TypeString}},
				},
				Content: map[string]*huma.MediaType{"application/json": {Schema: schema}}},
		},
		Errors: []int{http.StatusForbidden, http.StatusUpgradeRequired, http.StatusTooManyRequests, http.StatusServiceUnavailable},
	}
	httpapi.Register(s, op, httpapi.Scopes(auth.AlarmRead), func(ctx context.Context, in *streamInput) (*huma.StreamResponse, error) {
		p := httpapi.Principal(ctx)
		if in.OrganizationID != "" && !p.CanSeeOrganization(in.OrganizationID) {
			return nil, errs.Forbiddenf(alarms.CodeOrganizationNotPermitted, "you may stream only your own organisation's alarms")
		}
		return &huma.StreamResponse{Body: func(hc huma.Context) {
			r, w := humago.Unwrap(hc)
			h.serve(w, r, *p, in.OrganizationID, in.After)
		}}, nil
	})
}

func problem(w http.ResponseWriter, r *http.Request, status int, code errs.Code, detail string) {
	p := httpapi.NewProblem(status, detail)
	p.Code = code
	httpapi.WriteProblem(w, r, p)
}

// isUpgrade reports whether r asks for a WebSocket.
func isUpgrade(r *http.Request) bool {
	has := func(header, token string) bool {
		for _, v := range r.Header.Values(header) {
			for _, t := range strings.Split(v, ",") {
				if strings.EqualFold(strings.TrimSpace(t), token) {
					return true
				}
			}
		}
		return false
	}
	return has("Connection", "upgrade") && has("Upgrade", "websocket")
}

// serve upgrades the request and streams until the peer leaves, the
// subscriber falls behind, the stream's lifetime ends or the hub stops.
func (h *Hub) serve(w http.ResponseWriter, r *http.Request, p auth.Principal, org string, after int64) {
	if !isUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		problem(w, r, http.StatusUpgradeRequired, CodeUpgradeRequired, "GET /v1/alarms/stream is a WebSocket: send a WebSocket handshake")
		return
	}
	waitCtx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	sub, through, err := h.subscribe(waitCtx, p.Subject, p.Visibility(), org)
	cancel()
	switch {
	case errors.Is(err, errTooMany):
		problem(w, r, http.StatusTooManyRequests, CodeTooManyStreams,
			fmt.Sprintf("you already hold %d alarm streams on this server: close one first", h.o.MaxPerCaller))
		return
	case err != nil:
		problem(w, r, http.StatusServiceUnavailable, httpapi.CodeUnavailable, "the alarm stream is not available; retry shortly")
		return
	}
	defer h.unsubscribe(sub)
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: []string{Subprotocol},
		// Any origin: the stream is authorised by a bearer token the page
		// must present itself, never by a cookie, so a foreign page cannot
		// ride on a user's session.
		OriginPatterns: []string{"*"},
	})
	if err != nil {
		return // Accept has answered
	}
	defer conn.CloseNow()
	resume := r.URL.Query().Has("after")
	code, reason := h.stream(conn.CloseRead(r.Context()), conn, &p, sub, resume, after, through)
	if code >= 0 {
		_ = conn.Close(code, reason)
	}
}

// stream replays (when resuming) and then sends the live events; it
// returns how to close, a negative code when the peer has gone.
func (h *Hub) stream(ctx context.Context, conn *websocket.Conn, p *auth.Principal, sub *subscriber, resume bool, after, through int64) (websocket.StatusCode, string) {
	last := after // the largest id sent, or asked to resume after
	resumeAt := func(why string) string { return fmt.Sprintf("%s; reconnect with after=%d", why, last) }
	send := func(data []byte) error {
		wctx, cancel := context.WithTimeout(ctx, h.o.WriteTimeout)
		defer cancel()
		return conn.Write(wctx, websocket.MessageText, data)
	}
	for resume && last < through {
		list, err := h.o.Store.VisibleEventsAfter(ctx, sub.vis, sub.org, last, through, h.o.Batch)
		if err != nil {
			if ctx.Err() != nil {
				return -1, ""
			}
			h.o.Logger.Warn("alarm stream: replay failed", "error", err)
			return websocket.StatusTryAgainLater, resumeAt("the store is unavailable")
		}
		if len(list) == 0 {
			break
		}
		for _, e := range list {
			m, err := encode(e)
			if err == nil {
				err = send(m.data)
			}
			if err != nil {
				return -1, ""
			}
			last = e.ID
		}
	}
	ping := time.NewTicker(h.o.Ping)
	defer ping.Stop()
	lifetime := time.NewTimer(h.o.MaxLifetime)
	defer lifetime.Stop()
	for {
		select {
		case m := <-sub.ch:
			if m.id <= last {
				continue // replayed already, or before the resume point
			}
			if err := send(m.data); err != nil {
				return -1, ""
			}
			last = m.id
		case <-sub.dropped:
			return websocket.StatusPolicyViolation, resumeAt("too slow: events waited unread")
		case <-h.stopping:
			return websocket.StatusGoingAway, resumeAt("server shutting down")
		case <-lifetime.C:
			return websocket.StatusNormalClosure, resumeAt("stream lifetime reached; use a fresh token")
		case <-ping.C:
			pctx, cancel := context.WithTimeout(ctx, h.o.WriteTimeout)
			err := conn.Ping(pctx)
			cancel()
			if err != nil {
				return -1, ""
			}
			if h.o.Credentials != nil {
				// A store that cannot tell keeps the stream: as for a
				// request, only a definite no ends it.
				if ok, err := h.o.Credentials.InForce(ctx, p); err == nil && !ok {
					return websocket.StatusPolicyViolation, "the token is no longer in force (revoked, or its scopes withdrawn): sign in again"
				}
			}
		case <-ctx.Done():
			return -1, ""
		}
	}
}
