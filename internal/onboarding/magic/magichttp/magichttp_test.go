package magichttp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
	"atcp/internal/onboarding/magic"
	"atcp/internal/onboarding/magic/magichttp"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// targets is a fake LinkTargets: every target stands.
type targets struct{}

func (targets) Check(context.Context, string, string, string, string) (magic.Target, bool, error) {
	return magic.Target{ContactName: "Erik Weber", ContactEmail: "e.weber@solarbau.example",
		Branding: map[string]any{"display_name": "Lausitz Speicher"}}, true, nil
}

type server struct {
	*onboardingtest.Kit
	svc *magic.Service
}

// newServer serves the magic-link endpoints with the real credential
// check (magic-link sessions asked of the store on every request), a
// task operation (GET /v1/task-probe) and a scoped one (GET /v1/probe).
func newServer(t *testing.T, b store.Backend) *server {
	t.Helper()
	check := identity.NewCredentialCheck(b.Credentials())
	k := onboardingtest.New(t, b, onboardingtest.Config{Harness: []testkit.HarnessOption{func(o *httpapi.Options) { o.Credentials = check }}})
	check.SetTaskSessions(magic.NewSessionCheck(b.OnboardingMagic(), k.Security))
	svc := magic.NewService(b.OnboardingMagic(), targets{}, k.Tokens, k.Clock, k.Security)
	magichttp.Register(k.Server, svc, k.Security)
	probe := func(ctx context.Context, _ *struct{}) (*struct{}, error) { return &struct{}{}, nil }
	httpapi.Register(k.Server, huma.Operation{OperationID: "task-probe", Method: http.MethodGet, Path: "/v1/task-probe"},
		httpapi.TaskOr(auth.OnboardingRead), probe)
	httpapi.Register(k.Server, huma.Operation{OperationID: "probe", Method: http.MethodGet, Path: "/v1/probe"},
		httpapi.Authenticated, probe)
	return &server{Kit: k, svc: svc}
}

func (s *server) link(t *testing.T, contact string) (string, magic.Link) {
	t.Helper()
	raw, l, err := s.svc.IssueLink(context.Background(), magic.LinkSpec{OrganizationID: "acme", OnboardingID: "ob-1", ContactID: contact, Role: "epc"})
	if err != nil {
		t.Fatal(err)
	}
	return raw, l
}

type exchanged struct {
	AccessToken  string         `json:"access_token"`
	IDToken      string         `json:"id_token"`
	RefreshToken string         `json:"refresh_token"`
	TokenType    string         `json:"token_type"`
	ExpiresAt    int64          `json:"expires_at"`
	SessionID    string         `json:"session_id"`
	OnboardingID string         `json:"onboarding_id"`
	Role         string         `json:"role"`
	ContactName  string         `json:"contact_name"`
	ContactEmail string         `json:"contact_email"`
	Branding     map[string]any `json:"branding"`
}

func (s *server) exchange(t *testing.T, raw string) exchanged {
	t.Helper()
	var ex exchanged
	r := s.Do("POST", "/v1/onboarding-magic/"+raw+"/exchange", "", nil).Expect(t, 200, "")
	r.JSON(t, &ex)
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("tokens without Cache-Control no-store: %v", r.Header)
	}
	return ex
}

func TestExchange(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		s := newServer(t, b)
		raw, l := s.link(t, "c-1")
		ex := s.exchange(t, raw)
		if ex.TokenType != "Bearer" || ex.OnboardingID != "ob-1" || ex.Role != "epc" || ex.ContactName != "Erik Weber" ||
			ex.ContactEmail != "e.weber@solarbau.example" || ex.Branding["display_name"] != "Lausitz Speicher" || ex.SessionID == "" ||
			ex.ExpiresAt != testkit.SecurityStart.Add(time.Hour).Unix() || !strings.HasPrefix(ex.RefreshToken, "amr_") || ex.IDToken == "" {
			t.Fatalf("exchange %+v", ex)
		}
		// The task principal reaches task operations and nothing else.
		s.Do("GET", "/v1/task-probe", ex.AccessToken, nil).Expect(t, 204, "")
		s.Do("GET", "/v1/probe", ex.AccessToken, nil).Expect(t, 403, "magic_link_session_not_allowed")

		// Unknown, expired and revoked links get one answer.
		unknown, _ := magic.NewLinkToken()
		want := s.Do("POST", "/v1/onboarding-magic/"+unknown+"/exchange", "", nil).Expect(t, 404, "link_not_found").Map(t)
		revoked, rl := s.link(t, "c-2")
		if _, err := s.svc.RevokeLink(context.Background(), "acme", "ob-1", rl.ID, ""); err != nil {
			t.Fatal(err)
		}
		s.Security.Advance(30 * 24 * time.Hour)
		for name, token := range map[string]string{"expired": raw, "revoked": revoked} {
			got := s.Do("POST", "/v1/onboarding-magic/"+token+"/exchange", "", nil).Expect(t, 404, "link_not_found").Map(t)
			delete(got, "instance")
			delete(want, "instance")
			if len(got) != len(want) || got["detail"] != want["detail"] || got["title"] != want["title"] {
				t.Errorf("%s: %v, unknown: %v", name, got, want)
			}
		}
		_ = l
		s.Do("POST", "/v1/onboarding-magic/aml_tooshort/exchange", "", nil).Expect(t, 400, "malformed_token")
		s.Do("POST", "/v1/onboarding-magic/"+strings.Replace(unknown, "aml_", "xyz_", 1)+"/exchange", "", nil).Expect(t, 400, "malformed_token")
	})
}

func TestExchangeSessionLimitAndRateLimit(t *testing.T) {
	s := newServer(t, testkit.OpenSQLite(t))
	raw, _ := s.link(t, "c-1")
	for range magic.MaxOpenSessions {
		s.exchange(t, raw)
		s.Security.Advance(6 * time.Second) // within the rate limit of the address and the link
	}
	s.Do("POST", "/v1/onboarding-magic/"+raw+"/exchange", "", nil).Expect(t, 409, "link_session_limit")

	// 10 attempts a minute per address: unknown links too.
	s.Security.Advance(time.Minute)
	var last *testkit.Response
	for range 11 {
		unknown, _ := magic.NewLinkToken()
		last = s.Do("POST", "/v1/onboarding-magic/"+unknown+"/exchange", "", nil)
	}
	last.Expect(t, 429, "rate_limited")
	if last.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}

	// Refresh: 10 attempts a minute per session, whatever the address.
	s.Security.Advance(time.Minute)
	body := map[string]any{"session_id": "00000000-0000-4000-8000-000000000000", "refresh_token": "amr_x"}
	for range 10 {
		s.Do("POST", "/v1/onboarding-magic/refresh", "", body).Expect(t, 409, "session_ended")
	}
	s.Do("POST", "/v1/onboarding-magic/refresh", "", body).Expect(t, 429, "rate_limited")
}

type refreshed struct {
	AccessToken  string `json:"access_token"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresAt    int64  `json:"expires_at"`
}

func TestRefreshAndLogout(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		s := newServer(t, b)
		raw, _ := s.link(t, "c-1")
		ex := s.exchange(t, raw)

		s.Security.Advance(30 * time.Minute)
		var r1 refreshed
		r := s.Do("POST", "/v1/onboarding-magic/refresh", "", map[string]any{"session_id": ex.SessionID, "refresh_token": ex.RefreshToken}).
			Expect(t, 200, "")
		r.JSON(t, &r1)
		if r1.RefreshToken == ex.RefreshToken || r1.TokenType != "Bearer" || r1.ExpiresAt != testkit.SecurityStart.Add(90*time.Minute).Unix() ||
			r.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("refresh %+v", r1)
		}
		s.Do("GET", "/v1/task-probe", r1.AccessToken, nil).Expect(t, 204, "")
		s.Do("GET", "/v1/task-probe", ex.AccessToken, nil).Expect(t, 204, "")

		// The rotated token again: the session ends and its tokens stop at once.
		s.Do("POST", "/v1/onboarding-magic/refresh", "", map[string]any{"session_id": ex.SessionID, "refresh_token": ex.RefreshToken}).
			Expect(t, 409, "session_ended")
		s.Do("GET", "/v1/task-probe", r1.AccessToken, nil).Expect(t, 401, "invalid_token")
		s.Do("POST", "/v1/onboarding-magic/refresh", "", map[string]any{"session_id": ex.SessionID, "refresh_token": r1.RefreshToken}).
			Expect(t, 409, "session_ended")

		s.Do("POST", "/v1/onboarding-magic/refresh", "", map[string]any{"session_id": ex.SessionID}).Expect(t, 422, "validation_failed")
		s.Do("POST", "/v1/onboarding-magic/refresh", "", map[string]any{"session_id": "", "refresh_token": "x"}).Expect(t, 422, "validation_failed")
		s.Do("POST", "/v1/onboarding-magic/refresh", "", `{"session_id":`).Expect(t, 400, "")

		// Logout ends the calling session only.
		a := s.exchange(t, raw)
		other := s.exchange(t, raw)
		s.Do("POST", "/v1/onboarding-magic/logout", a.AccessToken, nil).Expect(t, 204, "")
		s.Do("GET", "/v1/task-probe", a.AccessToken, nil).Expect(t, 401, "invalid_token")
		s.Do("POST", "/v1/onboarding-magic/logout", a.AccessToken, nil).Expect(t, 401, "invalid_token")
		s.Do("GET", "/v1/task-probe", other.AccessToken, nil).Expect(t, 204, "")
		s.Do("POST", "/v1/onboarding-magic/refresh", "", map[string]any{"session_id": a.SessionID, "refresh_token": a.RefreshToken}).
			Expect(t, 409, "session_ended")
		s.Do("POST", "/v1/onboarding-magic/logout", "", nil).Expect(t, 401, "invalid_token")
	})
}

// TestLogoutNeedsASession: another caller's token is refused with 403.
func TestLogoutNeedsASession(t *testing.T) {
	b := testkit.OpenSQLite(t)
	h := testkit.NewHarness(t, b)
	svc := magic.NewService(b.OnboardingMagic(), targets{}, h.Tokens, h.Clock, h.Security)
	magichttp.Register(h.Server, svc, h.Security)
	h.Do("POST", "/v1/onboarding-magic/logout", h.AdminToken(), nil).Expect(t, 403, "magic_link_session_required")
}
