package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/alarms"
	"atcp/internal/alarms/narrator/narratortest"
	"atcp/internal/app"
	"atcp/internal/auth"
	"atcp/internal/config"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/magic"
	"atcp/internal/testkit"
)

// FuzzWriteOperations sends arbitrary bodies, queries and content types to
// every write operation (POST, PUT, PATCH, DELETE) of the OpenAPI document
// on the real server, on SQLite and, with ATCP_TEST_DATABASE_URL, on
// PostgreSQL, and asserts for each input and store:
//   - no 5xx and no panic;
//   - a 4xx leaves every table as it was (testkit.Fingerprinter) and is
//     answered as documented: problem+json with a code (the OAuth
//     endpoints' own error formats where the document says so);
//   - the valid example of each operation (a seed) succeeds on the
//     fixtures, so that the seeds keep reaching past validation.
//
// Operations come from /openapi.json, so a new endpoint is fuzzed without
// changing this test; it needs a valid example in fuzzExamples and
// fixtures for new path parameters (the test fails naming what is
// missing), so that its seeds reach past validation. The input's op is an
// index into the operations sorted by path and method; adding an endpoint
// shifts the indices of the entries under testdata/fuzz, which then still
// run, on other operations.
//
// The server is built once per process. After any input that changed the
// store (a 2xx, or a failure), the fixtures' snapshot is restored, so that
// every input meets the same state and a failure written to testdata
// reproduces on its own. The platform clock is nearly frozen at
// 2026-02-01 07:00 Europe/Berlin, before the gates of the next delivery
// day, so that the seeds stay valid however long fuzzing runs.
//
//	go test -run '^$' -fuzz '^FuzzWriteOperations$' -fuzztime 60s ./internal/app/
func FuzzWriteOperations(f *testing.F) {
	// The fault-message drafts' narrator drafts every message alike.
	narrator := narratortest.Serve(f, "Störung Fuzz fuzz-a",
		"Sehr geehrte Damen und Herren,\n\ndie Anlage fuzz-a meldet keinen Status.\n\nMit freundlichen Grüßen")
	servers := []*fuzzServer{startFuzzServer(f, "sqlite", "sqlite://"+filepath.Join(f.TempDir(), "atcp.db"), narrator)}
	if testkit.PostgresURL() != "" {
		servers = append(servers, startFuzzServer(f, "postgres", testkit.PostgresSchemaURL(f), narrator))
	}
	ops := servers[0].ops
	valid := map[string]bool{}
	for _, s := range fuzzSeeds(f, ops) {
		f.Add(s.op, s.variant, s.query, s.body)
		if s.valid {
			valid[fuzzKey(s.op, s.variant, s.query, s.body)] = true
		}
	}
	f.Fuzz(func(t *testing.T, op uint16, variant uint8, query string, body []byte) {
		in := fuzzInput{op: ops[int(op)%len(ops)], variant: variant, query: query, body: body,
			valid: valid[fuzzKey(op, variant, query, body)]}
		// The stores are independent: check both at once.
		failures := make([]string, len(servers))
		var wg sync.WaitGroup
		for i, s := range servers {
			wg.Go(func() { failures[i] = s.check(in) })
		}
		wg.Wait()
		for _, msg := range failures {
			if msg != "" {
				t.Error(msg)
			}
		}
	})
}

func fuzzKey(op uint16, variant uint8, query string, body []byte) string {
	return fmt.Sprintf("%d\x00%d\x00%s\x00%s", op, variant, query, body)
}

// The fixtures the path and query parameters resolve to.
const (
	fuzzOrg         = "fuzz"
	fuzzAdminID     = "fuzz-admin"
	fuzzAdminSecret = "fuzz-admin-secret-0123456789abcdef"
	fuzzMember      = "member@fuzz.example"
	fuzzPassword    = "correct horse battery staple"
	fuzzTarget      = "target@fuzz.example" // the {email} of the user operations
	// Assets: markets, restrictions and dispatch on A; a draft
	// segmentation on B; nothing on C (deletable); an active segmentation
	// on V, whose segment a is the virtual asset V.a.
	fuzzAssetA, fuzzAssetB, fuzzAssetC, fuzzAssetV = "fuzz-a", "fuzz-b", "fuzz-c", "fuzz-v"
	// Each restriction kind has an interval starting here on A.
	fuzzLimitStart = "2026-02-02T10:00:00Z"
	fuzzRedirect   = "http://127.0.0.1:53682/callback"
	// The fixtures' organisation has this pool of A and B; its operations
	// are valid for the member, whose organisation is the default.
	fuzzPool = "fuzz-pool"
	// Onboarding: O1's workflow has its RfI gate waived, its DPL gate
	// submitted and its installation gate blocked; O3's is new, with its
	// contacts, their access links and magic-link sessions; O2 has none
	// (it is created).
	fuzzAssetO1, fuzzAssetO2, fuzzAssetO3 = "fuzz-o1", "fuzz-o2", "fuzz-o3"
)

// fuzzNow is the platform time throughout: the clock runs a million times
// slower than real time.
var fuzzNow = time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)

// fuzzAssets are the asset ids the variant picks from.
var fuzzAssets = [4]string{fuzzAssetA, fuzzAssetB, fuzzAssetC, fuzzAssetV + ".a"}

// An input's variant: bits 0-1 the fixture (the asset; the integration
// with two secrets or the one with one; the onboarding contact of the
// EPC or the asset owner, its access link and magic-link session), bit 2
// the caller (the platform administrator or a person of the fixtures'
// organisation with every scope), bits 3-4 the content type, bit 5 the
// fixture's magic-link session as the caller instead.
const (
	variantFixture = 0b000011
	variantMember  = 0b000100
	variantCTShift = 3
	variantSession = 0b100000
)

// The content types the variant picks from: what the operation documents,
// none, a charset other than UTF-8, and one it does not accept.
const (
	ctDocumented = iota
	ctNone
	ctUTF16
	ctText
)

type fuzzOp struct {
	method, path, id string
	contentType      string           // the documented request content type; empty without a body
	public           bool             // no security requirement: sent without a token
	params           []string         // path parameters
	required         []string         // required query parameters
	errorTypes       map[int][]string // documented content types of each 4xx status
}

type fuzzInput struct {
	op      fuzzOp
	variant uint8
	query   string
	body    []byte
	valid   bool // the operation's valid example, expected to succeed
}

type fuzzServer struct {
	name  string
	cfg   config.Config
	app   *app.App
	fp    *testkit.Fingerprinter
	snap  *testkit.Snapshot
	clean testkit.Fingerprint
	ops   []fuzzOp
	// ids made by the fixtures
	fcrBid, capacityBid, energyBid, backupOverride, request, fault string
	contact                                                        int64
	// onboardingGates maps the last path segment of a gate transition
	// to the [onboarding_id, gate_id] it is valid on; "" is the default.
	onboardingGates       map[string][2]string
	dplRow                string // a DPL row of O3's workflow
	document              string // a document of the default workflow, uploaded by the EPC's session
	prequalification      string // fuzz-o3's fcr prequalification, submitted
	integrations, secrets [2]string
	// The default workflow's contacts: the EPC's and the asset owner's.
	people        [2]fuzzContact
	passwordToken string // of the set-password link of fuzzTarget
	admin, member string
	tokensAt      time.Time
}

// fuzzContact is an onboarding contact with the access link of its role
// and a magic-link session of that link.
type fuzzContact struct {
	id, link, linkToken string
	session             auth.TaskGrant
	access, refresh     string
}

// startFuzzServer builds the server on dbURL, creates the fixtures through
// the API and takes the snapshot every input starts from.
func startFuzzServer(f *testing.F, name, dbURL, narratorURL string) *fuzzServer {
	s := &fuzzServer{name: name}
	s.cfg = testConfig(f, dbURL, f.TempDir())
	s.cfg.NarratorURL = narratorURL
	// The simulator is on for its fault injection; without Run its
	// control loop never runs.
	s.cfg.Demo, s.cfg.Simulate = false, true
	s.cfg.ClockStart, s.cfg.ClockSpeed = &fuzzNow, 1e-6
	// One issuer across rebuilds, so that the fixtures' tokens stay valid.
	s.cfg.BaseURL = "http://atcp.fuzz"
	if err := s.build(); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.app.Close() })
	ctx := context.Background()
	if err := s.app.Clients.EnsureIntegration(ctx, auth.PlatformOrganization, fuzzAdminID, "fuzz", fuzzAdminSecret,
		auth.NewScopeSet(auth.AllScopes...)); err != nil {
		f.Fatal(err)
	}
	var err error
	if s.admin, err = s.clientToken(); err != nil {
		f.Fatal(err)
	}
	s.ops = s.operations(f)
	s.fixtures(f)
	for _, op := range s.ops {
		if _, missing := s.target(fuzzInput{op: op}); len(missing) > 0 {
			f.Errorf("%s %s: no fixture for %s in fuzzServer.pathValue or queryValue: its seeds do not reach past validation",
				op.method, op.path, strings.Join(missing, ", "))
		}
	}

	if s.snap, err = s.fp.Snapshot(ctx); err != nil {
		f.Fatal(err)
	}
	if s.clean, err = s.fp.Fingerprint(ctx); err != nil {
		f.Fatal(err)
	}
	return s
}

// build makes the app on the configured store. It is served in process,
// without Run: Run would start the background workers, whose simulated
// market moves bids on its own, and the change feeds, whose caches would
// outlive a restored snapshot.
func (s *fuzzServer) build() error {
	a, err := app.New(context.Background(), s.cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		return err
	}
	s.app = a
	s.fp, err = testkit.NewFingerprinter(context.Background(), a.Store)
	return err
}

// do sends one request to the server in process.
func (s *fuzzServer) do(method, target, token, contentType string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://atcp.fuzz"+target, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	s.app.Server.ServeHTTP(rec, req)
	return rec
}

// must sends a fixture request and decodes its answer into v.
func (s *fuzzServer) must(tb testing.TB, method, target, token, body string, v any) {
	tb.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	rec := s.do(method, target, token, ct, []byte(body))
	if rec.Code/100 != 2 {
		tb.Fatalf("%s: fixture %s %s: %d %s", s.name, method, target, rec.Code, rec.Body)
	}
	if v != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
			tb.Fatalf("%s %s: %v: %s", method, target, err, rec.Body)
		}
	}
}

func (s *fuzzServer) form(target string, form url.Values) *httptest.ResponseRecorder {
	return s.do(http.MethodPost, target, "", "application/x-www-form-urlencoded", []byte(form.Encode()))
}

func (s *fuzzServer) clientToken() (string, error) {
	rec := s.form("/oauth2/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {fuzzAdminID}, "client_secret": {fuzzAdminSecret}})
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &tok); err != nil || tok.AccessToken == "" {
		return "", fmt.Errorf("client token: %d %s", rec.Code, rec.Body)
	}
	return tok.AccessToken, nil
}

// fuzzSignIn is the sign-in form of the member with PKCE; the verifier
// is fixed so that the seed that signs in is a constant.
func fuzzSignIn() (url.Values, string) {
	verifier := strings.Repeat("v", 48)
	sum := sha256.Sum256([]byte(verifier))
	return url.Values{"response_type": {"code"}, "client_id": {"atcp-console"}, "redirect_uri": {fuzzRedirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {"s"}, "email": {fuzzMember}, "password": {fuzzPassword}}, verifier
}

// personToken signs the member in with the authorization code flow.
func (s *fuzzServer) personToken() (string, error) {
	form, verifier := fuzzSignIn()
	rec := s.form("/oauth2/authorize", form)
	loc, err := url.Parse(rec.Header().Get("Location"))
	if rec.Code != http.StatusSeeOther || err != nil || loc.Query().Get("code") == "" {
		return "", fmt.Errorf("sign-in: %d %q %s", rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	rec = s.form("/oauth2/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"redirect_uri": {fuzzRedirect}, "client_id": {"atcp-console"}, "code_verifier": {verifier}})
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &tok); err != nil || tok.AccessToken == "" {
		return "", fmt.Errorf("code exchange: %d %s", rec.Code, rec.Body)
	}
	return tok.AccessToken, nil
}

// operations lists the write operations of the OpenAPI document, sorted by
// path and method.
func (s *fuzzServer) operations(tb testing.TB) []fuzzOp {
	rec := s.do(http.MethodGet, "/openapi.json", "", "", nil)
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string           `json:"operationId"`
			Security    []map[string]any `json:"security"`
			Parameters  []struct {
				Name     string `json:"name"`
				In       string `json:"in"`
				Required bool   `json:"required"`
			} `json:"parameters"`
			RequestBody *struct {
				Content map[string]any `json:"content"`
			} `json:"requestBody"`
			Responses map[string]struct {
				Content map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		tb.Fatalf("openapi.json: %v", err)
	}
	var ops []fuzzOp
	for path, byMethod := range doc.Paths {
		for method, o := range byMethod {
			method = strings.ToUpper(method)
			if !slices.Contains([]string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}, method) {
				continue
			}
			op := fuzzOp{method: method, path: path, id: o.OperationID, errorTypes: map[int][]string{},
				public: len(o.Security) == 0 || slices.ContainsFunc(o.Security, func(r map[string]any) bool { return len(r) == 0 })}
			if o.RequestBody != nil {
				cts := slices.Sorted(maps.Keys(o.RequestBody.Content))
				op.contentType = cts[0]
			}
			for _, p := range o.Parameters {
				switch {
				case p.In == "path":
					op.params = append(op.params, p.Name)
				case p.In == "query" && p.Required:
					op.required = append(op.required, p.Name)
				}
			}
			for status, r := range o.Responses {
				var code int
				if _, err := fmt.Sscan(status, &code); err == nil && code/100 == 4 {
					for ct := range r.Content {
						op.errorTypes[code] = append(op.errorTypes[code], ct)
					}
				}
			}
			ops = append(ops, op)
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].path != ops[j].path {
			return ops[i].path < ops[j].path
		}
		return ops[i].method < ops[j].method
	})
	if len(ops) < 40 {
		tb.Fatalf("only %d write operations in the OpenAPI document", len(ops))
	}
	return ops
}

// pathValue resolves a path parameter of path to fixture number n.
func (s *fuzzServer) pathValue(path, name string, n uint8) (string, bool) {
	switch name {
	case "asset_id":
		return fuzzAssets[n], true
	case "bid_id":
		switch {
		case strings.Contains(path, "/markets/fcr/"):
			return s.fcrBid, true
		case strings.Contains(path, "/markets/afrr/capacity/"):
			return s.capacityBid, true
		case strings.Contains(path, "/markets/afrr/energy/"):
			return s.energyBid, true
		case strings.Contains(path, "/backup_markets/afrr/"):
			return s.backupOverride, true
		}
	case "integration_id":
		return s.integrations[n%2], true
	case "secret_id":
		return s.secrets[n%2], true
	case "email":
		return fuzzTarget, true
	case "request_id":
		return s.request, true
	case "contact_id":
		if strings.HasPrefix(path, "/v1/onboardings/") {
			return s.people[n%2].id, true
		}
		return strconv.FormatInt(s.contact, 10), true
	case "link_id":
		return s.people[n%2].link, true
	case "token":
		return s.people[n%2].linkToken, true
	case "fault_id":
		return s.fault, true
	case "pool_id":
		return fuzzPool, true
	case "onboarding_id", "gate_id":
		ids, ok := s.onboardingGates[path[strings.LastIndex(path, "/")+1:]]
		if !ok {
			ids = s.onboardingGates[""]
		}
		if name == "onboarding_id" {
			return ids[0], true
		}
		return ids[1], true
	case "document_id":
		return s.document, true
	case "prequalification_id":
		return s.prequalification, true
	case "organization_id":
		return fuzzOrg, true
	case "row_id":
		return s.dplRow, true
	case "tso":
		return "50HZ", true
	case "alarm_key":
		return fuzzAssets[n] + ":" + alarms.RuleTelemetry, true
	}
	return "", false
}

// queryValue resolves a required query parameter of path to a fixture:
// the start of A's interval of a restriction kind, the delivery day of
// the capacity bids, the hour of the energy bids.
func queryValue(path, name string) (string, bool) {
	bids := strings.HasSuffix(path, "/bids")
	energy := strings.Contains(path, "/energy/")
	switch {
	case name == "start_time" && energy:
		return "2026-02-01T08:00:00Z", true
	case name == "end_time" && energy:
		return "2026-02-01T09:00:00Z", true
	case name == "start_time" && bids:
		return "2026-02-01T23:00:00Z", true
	case name == "end_time" && bids:
		return "2026-02-02T23:00:00Z", true
	case name == "start_time":
		return fuzzLimitStart, true
	}
	return "", false
}

// target is the request target of in: the path with fixture ids, and the
// input's query, or without one the fixtures' values of the required
// query parameters. A parameter without a fixture gets a made-up value
// (and the operation answers 404 or 422 to most inputs); missing says
// which.
func (s *fuzzServer) target(in fuzzInput) (target string, missing []string) {
	path := in.op.path
	for _, p := range in.op.params {
		v, ok := s.pathValue(in.op.path, p, in.variant&variantFixture)
		if !ok {
			v, missing = "fuzz-"+p, append(missing, "path parameter "+p)
		}
		path = strings.ReplaceAll(path, "{"+p+"}", url.PathEscape(v))
	}
	query := in.query
	if query == "" {
		q := url.Values{}
		for _, p := range in.op.required {
			v, ok := queryValue(in.op.path, p)
			if !ok {
				v, missing = "fuzz", append(missing, "query parameter "+p)
			}
			q.Set(p, v)
		}
		query = q.Encode()
	}
	if query != "" {
		path += "?" + wireQuery(query)
	}
	return path, missing
}

// bind puts the fixtures named by placeholders in body: the onboarding
// contact's {fixture.contact_id} and its session's {fixture.session_id}
// and {fixture.refresh_token} of fixture n (as in the path), and
// {fixture.set_password_token}. The fixtures differ between the stores,
// the seeds do not.
func (s *fuzzServer) bind(body []byte, n uint8) []byte {
	p := s.people[n%2]
	return []byte(strings.NewReplacer("{fixture.contact_id}", p.id, "{fixture.session_id}", p.session.SessionID,
		"{fixture.refresh_token}", p.refresh, "{fixture.set_password_token}", s.passwordToken).Replace(string(body)))
}

// wireQuery escapes the bytes no request line can carry, so that the
// handler sees what a client could send.
func wireQuery(q string) string {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c <= ' ' || c >= 0x7f || c == '#' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (in fuzzInput) contentType() string {
	ct := in.op.contentType
	if ct == "" && len(in.body) > 0 {
		ct = "application/json"
	}
	switch (in.variant >> variantCTShift) & 3 {
	case ctNone:
		return ""
	case ctUTF16:
		return ct + "; charset=utf-16"
	case ctText:
		return "text/plain; charset=utf-8"
	}
	return ct
}

// check sends in to s and checks the answer and the store; it returns
// what failed, or "". It may run alongside the other store's check.
func (s *fuzzServer) check(in fuzzInput) (failure string) {
	if time.Since(s.tokensAt) > fuzzTokenRenewal {
		if err := s.renewTokens(); err != nil {
			return s.name + ": " + err.Error()
		}
	}
	token := s.admin
	switch {
	case in.op.public:
		token = ""
	case in.variant&variantSession != 0:
		token = s.people[(in.variant&variantFixture)%2].access
	case in.variant&variantMember != 0:
		token = s.member
	}
	target, _ := s.target(in)
	body := s.bind(in.body, in.variant&variantFixture)
	what := fmt.Sprintf("%s: %s %s (%s, variant %#x, content type %q, body %s)", s.name, in.op.method, target, in.op.id,
		in.variant, in.contentType(), clip(body))
	rec, panicked := s.serve(in.op.method, target, token, in.contentType(), body)
	changed, err := s.changed()
	if err != nil {
		return what + ": " + err.Error()
	}
	if len(changed) > 0 {
		// Whatever is reported below, the next input starts from the
		// fixtures again.
		defer func() {
			if err := s.restore(); err != nil {
				failure += "\n" + s.name + ": " + err.Error()
			}
		}()
	}
	status, answer := rec.Code, clip(rec.Body.Bytes())
	switch {
	case panicked != "":
		return fmt.Sprintf("%s: the handler panicked: %s", what, panicked)
	case status >= 500:
		return fmt.Sprintf("%s: %d %s", what, status, answer)
	case status >= 400 && len(changed) > 0:
		return fmt.Sprintf("%s: %d but the store changed (tables %v): %s", what, status, changed, answer)
	case status >= 400:
		if msg := documentedError(in.op, rec); msg != "" {
			return fmt.Sprintf("%s: %d %s", what, status, msg)
		}
	}
	// A seed that stops succeeding no longer fuzzes past validation.
	// Rate limits depend on the inputs before.
	if in.valid && status >= 400 && status != http.StatusTooManyRequests {
		return fmt.Sprintf("%s: the valid example is refused: %d %s", what, status, answer)
	}
	return ""
}

// Access tokens expire after an hour of real time (the security clock
// does not follow the platform's): a long fuzzing run renews them.
const fuzzTokenRenewal = 30 * time.Minute

// renewTokens gets new tokens for the callers and, as signing in writes,
// snapshots the store again; the store is at the fixtures, as between
// any two inputs. The sessions' access tokens are minted as a refresh
// would, not refreshed: the inputs use up the refresh's rate limit.
func (s *fuzzServer) renewTokens() error {
	admin, err := s.clientToken()
	if err != nil {
		return err
	}
	member, err := s.personToken()
	if err != nil {
		return err
	}
	for i := range s.people {
		p := &s.people[i]
		if p.access, _, err = s.app.Tokens.IssueAccess(auth.Principal{OrganizationID: fuzzOrg, Task: &p.session}); err != nil {
			return err
		}
	}
	snap, err := s.fp.Snapshot(context.Background())
	if err != nil {
		return err
	}
	clean, err := s.fp.Fingerprint(context.Background())
	if err != nil {
		return err
	}
	s.admin, s.member, s.snap, s.clean, s.tokensAt = admin, member, snap, clean, time.Now()
	return nil
}

// serve runs the handler and reports a panic instead of dying of it, so
// that the store is restored and the next seed runs.
func (s *fuzzServer) serve(method, target, token, contentType string, body []byte) (rec *httptest.ResponseRecorder, panicked string) {
	defer func() {
		if p := recover(); p != nil {
			rec, panicked = httptest.NewRecorder(), fmt.Sprintf("%v\n%s", p, debug.Stack())
		}
	}()
	return s.do(method, target, token, contentType, body), ""
}

// documentedError checks a 4xx against the operation's document:
// problem+json with the status and a code unless the document names
// another content type for the status (the OAuth endpoints).
func documentedError(op fuzzOp, rec *httptest.ResponseRecorder) string {
	ct := rec.Header().Get("Content-Type")
	media := strings.TrimSpace(strings.Split(ct, ";")[0])
	allowed := op.errorTypes[rec.Code]
	if len(allowed) == 0 {
		allowed = []string{"application/problem+json"}
	}
	if !slices.Contains(allowed, media) {
		return fmt.Sprintf("content type %q, want one of %v: %s", ct, allowed, clip(rec.Body.Bytes()))
	}
	switch media {
	case "application/problem+json":
		var p struct {
			Code   string `json:"code"`
			Status int    `json:"status"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Code == "" || p.Status != rec.Code {
			return fmt.Sprintf("not a problem with a code and status %d (%v): %s", rec.Code, err, clip(rec.Body.Bytes()))
		}
	case "application/json":
		var e struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
			return fmt.Sprintf("not an OAuth error (%v): %s", err, clip(rec.Body.Bytes()))
		}
	}
	return ""
}

// changed lists the tables that differ from the fixtures.
func (s *fuzzServer) changed() ([]string, error) {
	fp, err := s.fp.Fingerprint(context.Background())
	if err != nil {
		return nil, fmt.Errorf("fingerprint: %w", err)
	}
	return s.clean.Changed(fp), nil
}

// restore puts the fixtures back after the tables changed. The asset
// cache (always on with SQLite, the one cache of the app that works
// without its change feed) would keep assets the snapshot no longer has:
// the app is rebuilt when assets changed.
func (s *fuzzServer) restore() error {
	changed, err := s.fp.Restore(context.Background(), s.snap)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if s.app.Assets.CachingReads() && slices.Contains(changed, "assets") {
		s.app.Close()
		return s.build()
	}
	return nil
}

func clip(b []byte) string {
	const max = 300
	if len(b) > max {
		return fmt.Sprintf("%q... (%d bytes)", b[:max], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// fixtures creates, through the API, what the path parameters resolve to.
func (s *fuzzServer) fixtures(tb testing.TB) {
	ctx := context.Background()
	admin := s.admin
	s.must(tb, "POST", "/v1/organizations", admin, `{"organization_id":"fuzz","name":"Fuzz"}`, nil)
	if err := s.app.Directory.EnsureUser(ctx, fuzzOrg, fuzzMember, fuzzPassword, auth.NewScopeSet(auth.AllScopes...)); err != nil {
		tb.Fatal(err)
	}
	var err error
	if s.member, err = s.personToken(); err != nil {
		tb.Fatal(err)
	}
	s.tokensAt = time.Now()
	for _, id := range []string{fuzzAssetA, fuzzAssetB, fuzzAssetC, fuzzAssetV} {
		status := "live"
		if id == fuzzAssetC {
			status = "maintenance" // live assets cannot be deleted
		}
		s.must(tb, "POST", "/v1/assets", admin, fmt.Sprintf(`{"asset_id":%q,"asset_name":"Fuzz %s","asset_type":"standalone",
			"location":"Kiel","organisation_id":"fuzz","usable_power_capacity_mw":10,"usable_energy_capacity_mwh":20,
			"fcr_enabled":true,"fcr_prequalified_capacity_mw":10,"afrr_enabled":true,"afrr_prequalified_capacity_pos_mw":5,
			"afrr_prequalified_capacity_neg_mw":10,"control_enabled":true,"asset_operational_status":%q}`, id, id, status), nil)
	}
	var bids struct {
		Bids []struct {
			ID string `json:"id"`
		} `json:"bids"`
	}
	a := "/v1/assets/" + fuzzAssetA
	s.must(tb, "POST", a+"/markets/fcr/bids", admin, `{"bids":[{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z",
		"capacity_price_eur_per_mw":"40.00","offered_power_mw":5}]}`, &bids)
	s.fcrBid = bids.Bids[0].ID
	s.must(tb, "POST", a+"/markets/afrr/capacity/bids", admin, `{"bids":[{"start_time":"2026-02-01T23:00:00Z",
		"end_time":"2026-02-02T03:00:00Z","product":"neg","capacity_price_eur_per_mw":"10.00","energy_price_eur_per_mwh":"50.00",
		"offered_power_mw":5}]}`, &bids)
	s.capacityBid = bids.Bids[0].ID
	s.must(tb, "POST", a+"/markets/afrr/energy/bids", admin, `{"bids":[{"start_time":"2026-02-01T08:00:00Z",
		"end_time":"2026-02-01T08:15:00Z","product":"neg","energy_price_eur_per_mwh":"60.00","offered_power_mw":5}]}`, &bids)
	s.energyBid = bids.Bids[0].ID
	var created struct {
		ID string `json:"id"`
	}
	s.must(tb, "POST", a+"/backup_markets/afrr/bids", admin, `{"product":"neg","start_time":"2026-02-01T12:00:00Z",
		"end_time":"2026-02-01T12:15:00Z","price":"85.50"}`, &created)
	s.backupOverride = created.ID
	for _, kind := range []string{"power_limits", "energy_limits", "unavailability"} {
		bounds := map[string]string{"power_limits": `"upper_limit_mw":5,`, "energy_limits": `"upper_limit_mwh":15,`}[kind]
		s.must(tb, "POST", a+"/"+kind, admin, `{"start_time":"`+fuzzLimitStart+`","end_time":"2026-02-02T12:00:00Z",`+bounds+
			`"reason":"maintenance"}`, nil)
	}
	s.must(tb, "POST", a+"/restriction_requests", s.member, `{"kind":"power_limit","start_time":"2026-02-04T10:00:00Z",
		"end_time":"2026-02-04T11:00:00Z","upper_limit_mw":5,"reason":"grid_event"}`, &created)
	s.request = created.ID
	s.must(tb, "POST", a+"/dispatch/immediate", admin, `{"end_time":"2026-02-01T07:00:00Z","set_power_mw":5}`, nil)
	var fault struct {
		FaultID string `json:"fault_id"`
	}
	s.must(tb, "POST", a+"/simulator/faults", admin, `{"kind":"soc_drift","duration_seconds":86400}`, &fault)
	s.fault = fault.FaultID
	segments := `{"mode":"proportional","segments":[{"segment_id":"a","name":"A","share":0.5},{"segment_id":"b","name":"B","share":0.5}]}`
	s.must(tb, "PUT", "/v1/assets/"+fuzzAssetB+"/segmentation", admin, segments, nil)
	s.must(tb, "PUT", "/v1/assets/"+fuzzAssetV+"/segmentation", admin, segments, nil)
	s.must(tb, "POST", "/v1/assets/"+fuzzAssetV+"/segmentation/activate", admin, "", nil)
	var contact struct {
		ContactID int64 `json:"contact_id"`
	}
	s.must(tb, "POST", a+"/contacts", admin, `{"name":"Leitwarte","email":"leitwarte@fuzz.example","is_emergency":true}`, &contact)
	s.contact = contact.ContactID
	workflows := map[string][2]string{}
	for _, id := range []string{fuzzAssetO1, fuzzAssetO2, fuzzAssetO3} {
		s.must(tb, "POST", "/v1/assets", admin, fmt.Sprintf(`{"asset_id":%q,"asset_name":"Fuzz %s","asset_type":"standalone",
			"location":"Kiel","organisation_id":"fuzz","asset_integration_type":"full_control","usable_power_capacity_mw":5,"tso":"50HZ"}`, id, id), nil)
		if id == fuzzAssetO2 {
			continue
		}
		var workflow struct {
			OnboardingID string `json:"onboarding_id"`
			Gates        []struct {
				ID string `json:"id"`
			} `json:"gates"`
		}
		s.must(tb, "POST", "/v1/onboardings", admin, `{"asset_id":"`+id+`"}`, &workflow)
		gate := func(i int) [2]string { return [2]string{workflow.OnboardingID, workflow.Gates[i].ID} }
		rows := "/v1/onboardings/" + workflow.OnboardingID + "/dpl-rows"
		if id == fuzzAssetO3 {
			// Its RfI gate holds every required field, so that it can be submitted.
			s.must(tb, "PUT", "/v1/onboardings/"+workflow.OnboardingID+"/gates/"+workflow.Gates[0].ID+"/fields", admin, fuzzRfI, nil)
			workflows[""] = gate(0)
			var row struct {
				RowID string `json:"row_id"`
			}
			s.must(tb, "POST", rows, admin, fuzzDPLRow("soc", "percent", "read", 1), &row)
			s.dplRow = row.RowID
			var p struct {
				PrequalificationID string `json:"prequalification_id"`
			}
			s.must(tb, "POST", "/v1/onboardings/"+workflow.OnboardingID+"/prequalifications", admin, `{"product":"fcr","requested_mw":4}`, &p)
			s.prequalification = p.PrequalificationID
			continue
		}
		// The DPL gate is submitted with a row for every required point.
		for i, p := range [][3]string{{"bess_power_mw", "MW", "read"}, {"soc", "percent", "read"}, {"bess_power_setpoint_mw", "MW", "write"},
			{"grid_power_mw", "MW", "read"}, {"available_charge_energy", "MWh", "read"}, {"available_discharge_energy", "MWh", "read"},
			{"frequency_hz", "Hz", "read"}, {"lan_connected_device_1", "bool", "read"}} {
			s.must(tb, "POST", rows, admin, fuzzDPLRow(p[0], p[1], p[2], i), nil)
		}
		g := "/v1/onboardings/" + workflow.OnboardingID + "/gates/"
		s.must(tb, "POST", g+workflow.Gates[0].ID+"/waive", admin, `{"note":"fixture"}`, nil)
		s.must(tb, "POST", g+workflow.Gates[1].ID+"/submit", admin, "", nil)
		s.must(tb, "POST", g+workflow.Gates[2].ID+"/block", admin, `{"reason":"fixture"}`, nil)
		workflows["reopen"], workflows["pass"], workflows["request-changes"], workflows["unblock"] = gate(0), gate(1), gate(1), gate(2)
	}
	s.onboardingGates = workflows
	s.onboardingPeople(tb, workflows[""][0])
	s.must(tb, "POST", "/v1/pools?organization_id="+fuzzOrg, admin, `{"pool_id":"`+fuzzPool+`","list_asset_ids":["`+fuzzAssetA+`","`+fuzzAssetB+`"]}`, nil)

	// Integration 0 has two secrets (the most it may have), so that one
	// can be deleted; integration 1 has one, so that one can be added.
	for i := range s.integrations {
		var integration struct {
			IntegrationID string `json:"integration_id"`
		}
		s.must(tb, "POST", "/v1/integrations", admin, fmt.Sprintf(`{"name":"fuzz-%d","scopes":["asset.read"],"organization_id":"fuzz"}`, i), &integration)
		s.integrations[i] = integration.IntegrationID
		var secret struct {
			SecretID string `json:"secret_id"`
		}
		if i == 0 {
			s.must(tb, "POST", "/v1/integrations/"+s.integrations[i]+"/secrets", admin, "", &secret)
		} else {
			var secrets []struct {
				SecretID string `json:"secret_id"`
			}
			s.must(tb, "GET", "/v1/integrations/"+s.integrations[i]+"/secrets", admin, "", &secrets)
			secret.SecretID = secrets[0].SecretID
		}
		s.secrets[i] = secret.SecretID
	}
	var invited struct {
		SetPasswordURL string `json:"set_password_url"`
	}
	s.must(tb, "POST", "/v1/users", admin, `{"email":"`+fuzzTarget+`","organization_id":"fuzz","scopes":["asset.read"]}`, &invited)
	link, err := url.Parse(invited.SetPasswordURL)
	if err != nil || link.Query().Get("token") == "" {
		tb.Fatalf("set-password link %q: %v", invited.SetPasswordURL, err)
	}
	s.passwordToken = link.Query().Get("token")

	// A's TELEMETRY-001 is open (only the engine opens alarms: through
	// the store) and muted.
	key := alarms.Key{AssetID: fuzzAssetA, RuleID: alarms.RuleTelemetry}
	rule, _ := alarms.RuleByID(alarms.RuleTelemetry)
	if _, err := s.app.Store.Alarms().Apply(ctx, alarms.Batch{Updates: []alarms.Update{{Key: key, Visibility: auth.Visibility{All: true},
		Decide: alarms.DecideOpen(alarms.Opening{Rule: rule, Key: key, OrganizationID: fuzzOrg, At: fuzzNow,
			AlarmID: alarms.NewAlarmID(fuzzNow), Evidence: alarms.Evidence{Facts: []string{"stale"}}})}}}); err != nil {
		tb.Fatal(err)
	}
	s.must(tb, "PUT", "/v1/alarms/"+key.String()+"/mute", admin, `{"reason":"fixture","duration_seconds":86400}`, nil)
}

// onboardingPeople gives workflow id its contacts, the EPC's and the
// asset owner's, each with an access link of its role (whose raw token
// only its e-mail holds) and a magic-link session, and a document the
// EPC's session uploaded: the task side's delete is the uploader's, and
// finalizing it again changes nothing.
func (s *fuzzServer) onboardingPeople(tb testing.TB, id string) {
	ctx := context.Background()
	base := "/v1/onboardings/" + id
	for i, c := range [2]struct{ name, email, role string }{
		{"Erik Weber", "epc@fuzz.example", "epc"}, {"Anna Berg", "owner@fuzz.example", "asset_owner"},
	} {
		var contact struct {
			ContactID string `json:"contact_id"`
		}
		s.must(tb, "POST", base+"/contacts", s.admin, fmt.Sprintf(`{"name":%q,"email":%q,"roles":[%q]}`, c.name, c.email, c.role), &contact)
		var link struct {
			LinkID    string `json:"link_id"`
			SendCount int    `json:"send_count"`
		}
		s.must(tb, "POST", base+"/access-links", s.admin, fmt.Sprintf(`{"contact_id":%q,"role":%q}`, contact.ContactID, c.role), &link)
		mail, err := s.app.Store.Events().Delivery(ctx, fuzzOrg, contacts.MailEventID(magic.Link{ID: link.LinkID, SendCount: link.SendCount}))
		if err != nil {
			tb.Fatalf("%s: the access link's e-mail: %v", s.name, err)
		}
		token := accessLinkToken.FindString(mail.Body)
		var ex struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
			SessionID    string `json:"session_id"`
		}
		s.must(tb, "POST", "/v1/onboarding-magic/"+token+"/exchange", "", "", &ex)
		s.people[i] = fuzzContact{id: contact.ContactID, link: link.LinkID, linkToken: token, access: ex.AccessToken, refresh: ex.RefreshToken,
			session: auth.TaskGrant{OnboardingID: id, ContactID: contact.ContactID, Role: c.role, SessionID: ex.SessionID}}
	}
	photo := []byte(fuzzJPEG())
	var upload struct {
		Document struct {
			ID string `json:"id"`
		} `json:"document"`
		UploadURL string `json:"upload_url"`
	}
	task := "/v1/onboarding-tasks/" + id + "/documents/"
	s.must(tb, "POST", task+"presigned-upload", s.people[0].access, fmt.Sprintf(`{"document_type":"installation_photo_mdevice",
		"filename":"fixture.jpg","content_type":"image/jpeg","size_bytes":%d}`, len(photo)), &upload)
	if rec := s.do(http.MethodPut, strings.TrimPrefix(upload.UploadURL, s.cfg.BaseURL), "", "image/jpeg", photo); rec.Code != http.StatusOK {
		tb.Fatalf("%s: upload %s: %d %s", s.name, upload.UploadURL, rec.Code, rec.Body)
	}
	s.must(tb, "POST", task+upload.Document.ID+"/finalize", s.people[0].access, "", nil)
	s.document = upload.Document.ID
}

// A seed of the corpus.
type fuzzSeed struct {
	op      uint16
	variant uint8
	query   string
	body    []byte
	valid   bool
}

// fuzzRfI is a value of every required field of fc_rfi.
const fuzzRfI = `{"fields":{"asset_type":"standalone","usable_power_capacity_mw":12.5,"usable_energy_capacity_mwh":25,
	"grid_connection_power_mw":15,"voltage_level_kv":20,"tso":"50hertz","grid_operator":"Stadtwerke Kiel","market_location_id":"12345678901",
	"site_coordinates":{"latitude":54.32,"longitude":10.13},"commissioning_date":"2026-05-01","battery_manufacturer":"Cells AG",
	"inverter_manufacturer":"Inv GmbH","ems_vendor":"EMS Co","ems_protocols":["iec104"],"remote_access_available":true,
	"site_contact_name":"Jan","site_contact_phone":"+4943112345","site_contact_email":"jan@fuzz.example","planned_products":["fcr"]}}`

// fuzzExamples is a valid request of each operation on the fixtures: the
// variant's fixture and caller, and the body. An operation without one is
// fuzzed from an empty object (the test logs which).
var fuzzExamples = map[string]struct {
	variant uint8
	body    string
}{
	"oauthAuthorizeSignIn": {0, ""}, // the member's sign-in form, see fuzzSeeds
	"oauthToken":           {0, "grant_type=client_credentials&client_id=" + fuzzAdminID + "&client_secret=" + fuzzAdminSecret},
	"setPassword":          {0, "token={fixture.set_password_token}&password=fuzz-new-password-1&password_confirm=fuzz-new-password-1"},

	"put-onboarding-branding": {0, `{"display_name":"Fuzz Onboarding","primary_color":"#0a7cff","support_email":"onboarding@fuzz.example",
		"magic_link_default_language":"en","magic_link_email_templates":{"de":{"subject":"Zugang für {contact_name}"}}}`},
	"put-onboarding-email-banner": {0, fuzzJPEG()},

	"createOrganization":      {0, `{"organization_id":"fuzz-new","name":"New"}`},
	"createUser":              {0, `{"email":"new@fuzz.example","organization_id":"fuzz","scopes":["asset.read"]}`},
	"deleteUser":              {0, ""},
	"issuePasswordLink":       {0, ""},
	"replaceUserScopes":       {0, `{"scopes":["asset.read","asset.write"]}`},
	"putPreferences":          {variantMember, `{"locale":"de","theme":"dark"}`},
	"createIntegration":       {0, `{"name":"new","scopes":["asset.read"],"organization_id":"fuzz"}`},
	"deleteIntegration":       {0, ""},
	"createIntegrationSecret": {1, ""},
	"deleteIntegrationSecret": {0, ""},

	"create-asset": {0, `{"asset_id":"fuzz-new","asset_name":"New","asset_type":"standalone","location":"Kiel",
		"organisation_id":"fuzz","usable_power_capacity_mw":10,"maintenance_until":"2026-03-01T00:00:00Z","latitude":54.3,"longitude":10.1}`},
	"update-asset": {0, `{"asset_name":"Renamed","description":"a battery","fcr_prequalified_capacity_mw":8}`},
	"delete-asset": {2, ""},

	"submit-fcr-bids": {0, `{"bids":[{"start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z",
		"capacity_price_eur_per_mw":"41.50","offered_power_mw":4,"idempotency_key":"k-1"}]}`},
	"update-fcr-bid":  {0, `{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","capacity_price_eur_per_mw":42,"offered_power_mw":6}`},
	"delete-fcr-bid":  {0, ""},
	"delete-fcr-bids": {0, ""},
	"submit-afrr-capacity-bids": {0, `{"mode":"REPLACE","replace_scope":{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T07:00:00Z","product":"neg"},
		"bids":[{"start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z","product":"neg",
		"capacity_price_eur_per_mw":"11.00","energy_price_eur_per_mwh":"55.00","offered_power_mw":5}]}`},
	"update-afrr-capacity-bid": {0, `{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z",
		"capacity_price_eur_per_mw":"12.00","energy_price_eur_per_mwh":"50.00","offered_power_mw":4}`},
	"delete-afrr-capacity-bid":  {0, ""},
	"delete-afrr-capacity-bids": {0, ""},
	"submit-afrr-energy-bids": {0, `{"bids":[{"start_time":"2026-02-01T08:15:00Z","end_time":"2026-02-01T08:30:00Z",
		"product":"pos","energy_price_eur_per_mwh":"-20.5","offered_power_mw":3}]}`},
	"update-afrr-energy-bid":      {0, `{"start_time":"2026-02-01T08:00:00Z","end_time":"2026-02-01T08:15:00Z","energy_price_eur_per_mwh":61,"offered_power_mw":4}`},
	"delete-afrr-energy-bid":      {0, ""},
	"delete-afrr-energy-bids":     {0, ""},
	"create-afrr-backup-override": {0, `{"product":"pos","start_time":"2026-02-01T13:00:00+01:00","end_time":"2026-02-01T14:00:00+01:00","price":"70.25","max_capacity_mw":3,"note":"test"}`},
	"delete-afrr-backup-override": {0, ""},
	"put-afrr-backup-default":     {0, `{"product":"neg","default_price":"85.50","default_max_capacity_mw":4}`},

	"create-power_limit":          {0, `{"start_time":"2026-02-03T10:00:00Z","end_time":"2026-02-03T11:00:00Z","upper_limit_mw":5,"lower_limit_mw":-4,"reason":"grid_event","reason_description":"works"}`},
	"shorten-power_limit":         {0, `{"new_end_time":"2026-02-02T11:00:00Z"}`},
	"delete-power_limit":          {0, ""},
	"create-energy_limit":         {0, `{"start_time":"2026-02-03T10:00:00Z","end_time":null,"upper_limit_mwh":15,"lower_limit_mwh":2,"reason":"other"}`},
	"shorten-energy_limit":        {0, `{"new_end_time":"2026-02-02T11:00:00Z"}`},
	"delete-energy_limit":         {0, ""},
	"create-unavailability":       {0, `{"start_time":"2026-02-03T10:00:00Z","end_time":"2026-02-03T11:00:00Z","reason":"fault","availability_status":"unavailable"}`},
	"shorten-unavailability":      {0, `{"new_end_time":"2026-02-02T11:00:00Z"}`},
	"delete-unavailability":       {0, ""},
	"create-restriction-request":  {0, `{"kind":"energy_limit","start_time":"2026-02-05T10:00:00Z","end_time":"2026-02-05T11:00:00Z","upper_limit_mwh":10,"reason":"commercial"}`},
	"approve-restriction-request": {0, `{"note":"fine"}`},
	"reject-restriction-request":  {0, `{"note":"no"}`},
	"cancel-restriction-request":  {variantMember, `{"note":"changed my mind"}`},

	"put-segmentation":      {1, `{"mode":"priority","segments":[{"segment_id":"x","name":"X","share":0.7,"counterparty":"T","color":"#12ab9F"},{"segment_id":"y","name":"Y","share":0.3}]}`},
	"activate-segmentation": {1, ""},
	"delete-segmentation":   {1, ""},

	"create-asset-contact": {0, `{"name":"Neu","role":"site manager","email":"neu@fuzz.example","phone":"+49 431 1",
		"chat_webhook_url":"https://hooks.fuzz.example/x","notifiable":false}`},
	"replace-asset-contact": {0, `{"name":"Leitwarte Nord","email":"nord@fuzz.example","chat_webhook_url":"http://127.0.0.1:9/x"}`},
	"delete-asset-contact":  {0, ""},
	"acknowledge-alarm":     {0, `{"notes":"on it"}`},
	"mute-alarm":            {0, `{"reason":"noisy","duration_seconds":7200}`},
	"unmute-alarm":          {variantMember, `{"notes":"done"}`},
	"declare-asset-fault":   {0, `{"notification":null,"notes":"inverter trip"}`},
	"draft-fault-message":   {0, `{"language":"de","assessment":"Vermutlich Ausfall des Routers am Standort."}`},

	"create-immediate-dispatch":  {0, `{"start_time":"2026-02-01T06:00:00Z","end_time":"2026-02-01T06:30:00Z","set_power_mw":-3}`},
	"disable-immediate-dispatch": {0, ""},
	"put-scheduled-dispatch": {0, `{"schedules":[{"delivery_time":"2026-02-01T08:00:00Z","bess_power_mw":3},
		{"delivery_time":"2026-02-01T08:15:00Z","bess_power_mw":-2,"control_mode":"bess_only"}]}`},

	"create-onboarding": {0, `{"asset_id":"fuzz-o2","template_id":"fc_v1","started_on":"2026-02-01","target_hc_date":"2026-06-30",
		"notes":"n","gate_overrides":{"fc_rfi":{"deadline":"2026-03-01"},"fc_dpl":{"waived":true,"note":"done before"}}}`},
	"update-onboarding":               {0, `{"target_hc_date":"2026-07-01","notes":"later"}`},
	"cancel-onboarding":               {0, `{"reason":"sold"}`},
	"update-onboarding-gate":          {0, `{"deadline":"2026-03-02"}`},
	"submit-onboarding-gate":          {0, `{"note":"complete"}`},
	"request-onboarding-gate-changes": {0, `{"note":"add the phone"}`},
	"pass-onboarding-gate":            {0, `{"note":"fine"}`},
	"waive-onboarding-gate":           {0, `{"note":"not needed"}`},
	"block-onboarding-gate":           {0, `{"reason":"waiting for the DSO"}`},
	"unblock-onboarding-gate":         {0, ""},
	"reopen-onboarding-gate":          {0, `{"note":"again"}`},
	"presign-onboarding-document": {0, `{"document_type":"installation_photo_antenna","filename":"Antenne 1.jpg","content_type":"image/jpeg",
		"size_bytes":2000,"gate_definition_id":"fc_installation"}`},
	"finalize-onboarding-document":              {0, ""},
	"delete-onboarding-document":                {0, ""},
	"create-onboarding-comment":                 {0, `{"body":"Please check the antenna photo.","visibility":"internal"}`},
	"set-onboarding-reminder-policy":            {0, `{"days_before":[7,1],"overdue_every_days":2,"max_overdue_reminders":3,"enabled":true}`},
	"create-onboarding-prequalification":        {0, `{"product":"afrr_pos","requested_mw":5,"submitted_on":"2026-02-01","tso_reference":"PQ-1"}`},
	"record-onboarding-prequalification-result": {0, `{"status":"partially_granted","prequalified_mw":3,"decision_note":"ok"}`},
	"withdraw-onboarding-prequalification":      {0, `{"reason":"recorded wrongly"}`},
	"save-onboarding-gate-fields":               {0, `{"fields":{"notes":"fuzz","usable_power_capacity_mw":11,"commissioning_date":null}}`},
	"remind-onboarding-gate":                    {0, `{"message":"Bitte das RfI bis Freitag ausfüllen."}`},

	// Contacts, access links and the magic-link endpoints; bodies name
	// fixtures by placeholders (fuzzServer.bind).
	"create-onboarding-contact": {0, `{"name":"Jana Neu","email":"neu@fuzz.example","company":"Netz GmbH","roles":["tso"],"language":"en"}`},
	"update-onboarding-contact": {0, `{"name":"Erik Weber","company":"Solarbau GmbH","roles":["epc","ems_provider"]}`},
	"delete-onboarding-contact": {0, ""},
	"issue-onboarding-access-link": {0, `{"contact_id":"{fixture.contact_id}","role":"epc","language":"de","expires_in_days":14,
		"message":"Willkommen"}`},
	"revoke-onboarding-access-link":    {0, `{"reason":"wrong person"}`},
	"resend-onboarding-access-link":    {0, `{"language":"en"}`},
	"exchange-onboarding-magic-link":   {0, ""},
	"refresh-onboarding-magic-session": {0, `{"session_id":"{fixture.session_id}","refresh_token":"{fixture.refresh_token}"}`},
	"logout-onboarding-magic-session":  {variantSession, ""},

	// The task side, as the EPC's session (the asset owner's submits its RfI gate).
	"create-onboarding-task-comment":   {variantSession, `{"body":"Die Fotos sind hochgeladen."}`},
	"save-onboarding-task-gate-fields": {variantSession, `{"fields":{"usable_power_capacity_mw":11}}`},
	"submit-onboarding-task-gate":      {variantSession | 1, `{"note":"Alles ausgefüllt."}`},
	"presign-onboarding-task-document": {variantSession, `{"document_type":"installation_photo_antenna","filename":"Antenne 2.jpg",
		"content_type":"image/jpeg","size_bytes":2000}`},
	"finalize-onboarding-task-document": {variantSession, ""},
	"delete-onboarding-task-document":   {variantSession, ""},
	"task-create-onboarding-dpl-row":    {variantSession, fuzzDPLRow("grid_power_mw", "kW", "read", 7)},
	"task-update-onboarding-dpl-row":    {variantSession, fuzzDPLRow("soc", "percent", "read", 8)},
	"task-import-onboarding-dpl-rows": {variantSession, "point_name,protocol,address,data_type,unit,direction\n" +
		"soc,iec104,ca:1/ioa:9,float32,percent,read\n"},
	"task-delete-onboarding-dpl-row":         {variantSession, ""},
	"task-run-onboarding-communication-test": {variantSession, ""},

	"create-onboarding-dpl-row":         {0, fuzzDPLRow("grid_power_mw", "kW", "read", 7)},
	"update-onboarding-dpl-row":         {0, fuzzDPLRow("soc", "percent", "read", 8)},
	"import-onboarding-dpl-rows":        {0, "point_name,protocol,address,data_type,unit,direction\nsoc,iec104,ca:1/ioa:9,float32,percent,read\n"},
	"delete-onboarding-dpl-row":         {0, ""},
	"run-onboarding-communication-test": {0, ""},

	"create-pool":  {variantMember, `{"pool_id":"fuzz-new","list_asset_ids":["fuzz-c"],"allow_internal_collateralisation":true}`},
	"replace-pool": {variantMember, `{"list_asset_ids":["fuzz-b","fuzz-c"],"allow_internal_collateralisation":true}`},
	"delete-pool":  {variantMember, ""},

	"put-balancing-group-config": {0, `{"control_area_eic":"10YDE-VE-------2","source_control_area_eic":"10YDE-VE-------2",
		"target_control_area_eic":"10YDE-VE-------2","source_balancing_group_eic":"11XATCP-TEST-P1C",
		"target_balancing_group_eic":"11XATCP-TEST-D1B","note":"test values"}`},

	"inject-simulator-fault": {0, `{"kind":"communication_loss","duration_seconds":600}`},
	"clear-simulator-fault":  {0, ""},
}

// fuzzSeeds is the corpus: each operation's valid example, and its
// mutations: with a JSON body, each of jsonMutations' semantic ones and
// two of its parser-level ones in turn (what the common decoder does with
// them does not depend on the operation); with a form, formMutations;
// without a body, one of a few bodies it must ignore or refuse; with
// required query parameters, broken queries.
func fuzzSeeds(tb testing.TB, ops []fuzzOp) []fuzzSeed {
	var seeds []fuzzSeed
	turn := 0
	for i, op := range ops {
		ex, ok := fuzzExamples[op.id]
		if !ok && strings.Contains(op.contentType, "json") {
			ex.body = "{}"
		}
		body := []byte(ex.body)
		if op.id == "oauthAuthorizeSignIn" {
			form, _ := fuzzSignIn()
			body = []byte(form.Encode())
		}
		seeds = append(seeds, fuzzSeed{op: uint16(i), variant: ex.variant, body: body, valid: ok})
		if !ok {
			tb.Errorf("%s %s (%s): no valid example in fuzzExamples: its seeds do not reach past validation", op.method, op.path, op.id)
		}
		add := func(variant uint8, query string, b []byte) {
			if query != "" || variant != ex.variant || !bytes.Equal(b, body) {
				seeds = append(seeds, fuzzSeed{op: uint16(i), variant: variant, query: query, body: b})
			}
		}
		switch {
		case op.contentType == "":
			junk := [][]byte{[]byte("{"), []byte(`{"note":"\u0000"}`), []byte(strings.Repeat("x", 100_000))}
			add(ex.variant, "", junk[i%len(junk)])
		case strings.HasPrefix(op.contentType, "application/x-www-form-urlencoded"):
			for _, m := range formMutations(body) {
				add(ex.variant, "", m)
			}
		case strings.HasPrefix(op.contentType, "image/"):
			// A raw image body: truncated, as another type, as JSON.
			add(ex.variant, "", body[:len(body)/2])
			add(ex.variant|ctText<<variantCTShift, "", body)
			add(ex.variant, "", []byte(`<svg onload="x"/>`))
		case strings.HasPrefix(op.contentType, "text/csv"):
			// A CSV body: truncated, as another type, with a broken quote.
			add(ex.variant, "", body[:len(body)/2])
			add(ex.variant|ctText<<variantCTShift, "", body)
			add(ex.variant, "", append(bytes.Clone(body), "x,\"y\n"...))
		default:
			semantic, parser := jsonMutations(body)
			for _, m := range semantic {
				add(ex.variant, "", m)
			}
			for range 2 {
				m := parser[turn%len(parser)]
				turn++
				if m.contentType != ctDocumented {
					add(ex.variant|m.contentType<<variantCTShift, "", body)
				} else {
					add(ex.variant, "", m.body)
				}
			}
		}
		if len(op.required) > 0 {
			for _, q := range []string{"start_time=0000-01-01T00:00:00Z&end_time=0000-01-02T00:00:00Z",
				"start_time=%00&end_time=%zz&product=%ff", "start_time=" + strings.Repeat("9", 5000)} {
				add(ex.variant, q, body)
			}
		}
	}
	return seeds
}

// fuzzJPEG is a small valid JPEG: the banner upload's example (its first
// documented content type).
func fuzzJPEG() string {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		panic(err)
	}
	return buf.String()
}

var dateTime = regexp.MustCompile(`"\d{4}-\d{2}-\d{2}(T[^"]*)?"`)

type parserMutation struct {
	body        []byte
	contentType uint8 // the example's body with another content type
}

// jsonMutations are body's mutations that a parser or a validator must
// refuse or bound. Semantic: an empty object, a year-0 timestamp (the
// others valid, to pass their checks), late instants with nanoseconds and
// an extreme offset, and every leaf replaced: strings with a NUL
// character, of another type, a decimal beyond int64 cents; numbers at
// float64's edge and at int64's. Parser-level: deep nesting, every
// timestamp in year 0, a raw NUL byte, a duplicate key, huge strings,
// invalid UTF-8, a number beyond float64, a charset other than UTF-8,
// plain text.
func jsonMutations(body []byte) (semantic [][]byte, parser []parserMutation) {
	const raw = "FUZZ-RAW-BYTES" // replaced by invalid UTF-8 after encoding
	leaves := func(fn func(any) any) []byte {
		return bytes.ReplaceAll(mapJSONLeaves(body, fn), []byte(raw), []byte("\xff\xfe"))
	}
	strs := func(fn func(string) any) func(any) any {
		return func(v any) any {
			if s, ok := v.(string); ok {
				return fn(s)
			}
			return v
		}
	}
	nums := func(n json.Number) func(any) any {
		return func(v any) any {
			if _, ok := v.(json.Number); ok {
				return n
			}
			return v
		}
	}
	semantic = [][]byte{[]byte("{}"),
		replaceFirst(dateTime, body, `"0000-01-01T00:00:00Z"`),
		dateTime.ReplaceAll(body, []byte(`"2099-06-30T23:59:59.999999999+14:00"`)),
		leaves(strs(func(s string) any { return s + "\x00" })),
		leaves(func(v any) any {
			switch v.(type) {
			case string:
				return 12345
			case json.Number:
				return "12345"
			case bool:
				return "true"
			case nil:
				return map[string]any{}
			}
			return v
		}),
		leaves(strs(func(string) any { return "92233720368547758.07" })),
		leaves(nums("1.7976931348623157e308")),
		leaves(nums("9223372036854775807")),
	}
	for _, b := range [][]byte{
		[]byte(`{"a":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`),
		dateTime.ReplaceAll(body, []byte(`"0000-01-01T00:00:00Z"`)),
		bytes.Replace(body, []byte(`"`), []byte("\"\x00"), 1),
		append([]byte(`{"`+firstKey(body)+`":{"x":1},`), body[1:]...),
		leaves(strs(func(string) any { return strings.Repeat("x", 100_000) })),
		leaves(strs(func(s string) any { return s + raw })),
		leaves(nums("1e400")),
	} {
		parser = append(parser, parserMutation{body: b})
	}
	parser = append(parser, parserMutation{contentType: ctUTF16}, parserMutation{contentType: ctText})
	return semantic, parser
}

func replaceFirst(re *regexp.Regexp, body []byte, with string) []byte {
	loc := re.FindIndex(body)
	if loc == nil {
		return body
	}
	return slices.Concat(body[:loc[0]], []byte(with), body[loc[1]:])
}

func firstKey(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "x"
	}
	if tok, err := dec.Token(); err == nil {
		if k, ok := tok.(string); ok {
			return k
		}
	}
	return "x"
}

// mapJSONLeaves decodes body, replaces every leaf (also inside arrays and
// objects) by fn's result and encodes it again.
func mapJSONLeaves(body []byte, fn func(any) any) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return body
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
			return x
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
			return x
		}
		return fn(v)
	}
	out, err := json.Marshal(walk(v))
	if err != nil {
		return body
	}
	return out
}

// formMutations are a form body's: NUL, huge and invalid UTF-8 values, a
// broken escape, JSON, and duplicate fields.
func formMutations(body []byte) [][]byte {
	form, _ := url.ParseQuery(string(body))
	mutate := func(fn func(string) string) []byte {
		m := url.Values{}
		for k, vs := range form {
			m[k] = []string{fn(vs[0])}
		}
		return []byte(m.Encode())
	}
	return [][]byte{[]byte("%zz=1&grant_type=%"), []byte(`{"grant_type":"client_credentials"}`),
		mutate(func(v string) string { return v + "\x00" }),
		mutate(func(v string) string { return strings.Repeat(v, 1+100_000/(len(v)+1)) }),
		mutate(func(v string) string { return v + "\xff\xfe" }),
		append(append([]byte{}, body...), "&grant_type=refresh_token&client_id=atcp-console&redirect_uri=http://evil.example/"...),
	}
}

// fuzzDPLRow is a DPL row of point name at IEC 104 address ca:1/ioa:<ioa>.
func fuzzDPLRow(name, unit, direction string, ioa int) string {
	return fmt.Sprintf(`{"point_name":%q,"protocol":"iec104","address":"ca:1/ioa:%d","data_type":"float32","unit":%q,"direction":%q}`,
		name, ioa, unit, direction)
}
