package app_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"atcp/internal/app"
)

// rawMailbox is an SMTP server keeping every accepted message with its
// recipients, so a test can read what a contact would read.
type rawMailbox struct {
	mu   sync.Mutex
	msgs []rawMail
}

type rawMail struct {
	to   []string
	data []byte
}

func (m *rawMailbox) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &rawMailboxSession{m: m}, nil
}

func (m *rawMailbox) all() []rawMail {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.msgs)
}

type rawMailboxSession struct {
	m  *rawMailbox
	to []string
}

func (s *rawMailboxSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *rawMailboxSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *rawMailboxSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.m.mu.Lock()
	s.m.msgs = append(s.m.msgs, rawMail{to: s.to, data: b})
	s.m.mu.Unlock()
	return nil
}
func (s *rawMailboxSession) Reset()        { s.to = nil }
func (s *rawMailboxSession) Logout() error { return nil }

// mailText decodes a message's text parts (multipart walked, transfer
// encodings undone) and its subject, as a mail client shows them.
func mailText(t *testing.T, data []byte) string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("mail: %v", err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	var out strings.Builder
	out.WriteString(subject + "\n")
	var walk func(header map[string][]string, body io.Reader)
	walk = func(header map[string][]string, body io.Reader) {
		h := mail.Header(header)
		mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
		if err != nil {
			mediaType = "text/plain"
		}
		switch enc := strings.ToLower(h.Get("Content-Transfer-Encoding")); enc {
		case "quoted-printable":
			body = quotedprintable.NewReader(body)
		case "base64":
			body = base64.NewDecoder(base64.StdEncoding, body)
		}
		if strings.HasPrefix(mediaType, "multipart/") {
			r := multipart.NewReader(body, params["boundary"])
			for {
				p, err := r.NextRawPart()
				if err != nil {
					return
				}
				walk(p.Header, p)
			}
		}
		if strings.HasPrefix(mediaType, "text/") {
			b, _ := io.ReadAll(body)
			out.Write(b)
			out.WriteString("\n")
		}
	}
	walk(msg.Header, msg.Body)
	return out.String()
}

var accessLinkToken = regexp.MustCompile(`aml_[A-Za-z0-9_-]{43}`)

// TestOnboardingEndToEnd walks one full_control battery from its
// creation to live through the HTTP API only: the platform creates the
// workflow and mails access links, the external contacts exchange them
// and work their gates, the platform reviews each gate, records the
// prequalification and passes go-live; the market refuses the asset's
// bid until then. On each store.
func TestOnboardingEndToEnd(t *testing.T) {
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) { onboardingEndToEnd(t, url(t)) })
	}
}

func onboardingEndToEnd(t *testing.T, databaseURL string) {
	box := &rawMailbox{}
	srv := smtp.NewServer(box)
	srv.ErrorLog = log.New(io.Discard, "", 0)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })

	// Not the demonstration environment, so markets check the asset's
	// status; the platform clock runs at real speed from a morning before
	// the FCR auction's gate closure, so the control loop records
	// telemetry as time passes and the bid's delivery day is still open.
	start := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	cfg := testConfig(t, databaseURL, t.TempDir())
	cfg.Demo, cfg.Simulate = false, true
	cfg.ClockStart, cfg.ClockSpeed = &start, 1
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
	cfg.SMTPURL, cfg.MailFrom = "smtp://"+l.Addr().String(), "onboarding@atcp.example"
	a, err := app.New(context.Background(), cfg, slog.New(slog.DiscardHandler), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, a)
	admin := fetchToken(t, base)

	// send makes one request and checks its status; the answer is
	// decoded into v when given.
	send := func(method, path, token, contentType string, body []byte, status int, v any) []byte {
		t.Helper()
		u := path
		if !strings.HasPrefix(path, "http") {
			u = base + path
		}
		req, _ := http.NewRequest(method, u, bytes.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != status {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, got)
		}
		if v != nil {
			if err := json.Unmarshal(got, v); err != nil {
				t.Fatalf("%s %s: decode %s: %v", method, path, got, err)
			}
		}
		return got
	}
	do := func(method, path, token, body string, status int, v any) {
		t.Helper()
		ct := ""
		if body != "" {
			ct = "application/json"
		}
		send(method, path, token, ct, []byte(body), status, v)
	}
	code := func(method, path, token, body string, status int, want string) {
		t.Helper()
		var p struct {
			Code string `json:"code"`
		}
		do(method, path, token, body, status, &p)
		if p.Code != want {
			t.Fatalf("%s %s: code %q, want %q", method, path, p.Code, want)
		}
	}

	// 1. The organisation and its battery; the market refuses a bid of
	// an asset that is not live.
	do("POST", "/v1/organizations", admin, `{"organization_id":"acme","name":"Acme Speicher"}`, 201, nil)
	do("POST", "/v1/assets", admin, `{"asset_id":"bess-e2e","asset_name":"Kiel BESS","asset_type":"standalone","location":"Kiel",
		"organisation_id":"acme","asset_integration_type":"full_control","adapter":"simulator","usable_power_capacity_mw":20,
		"usable_energy_capacity_mwh":40,"fcr_enabled":true,"afrr_enabled":true,"control_enabled":true}`, 201, nil)
	const bid = `{"bids":[{"start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z",
		"capacity_price_eur_per_mw":"41.50","offered_power_mw":4}]}`
	code("POST", "/v1/assets/bess-e2e/markets/fcr/bids", admin, bid, 409, "asset_not_live")

	type gate struct {
		ID           string `json:"id"`
		DefinitionID string `json:"definition_id"`
		Status       string `json:"status"`
	}
	var ob struct {
		OnboardingID  string `json:"onboarding_id"`
		OverallStatus string `json:"overall_status"`
		Gates         []gate `json:"gates"`
	}
	do("POST", "/v1/onboardings", admin, `{"asset_id":"bess-e2e"}`, 201, &ob)
	obPath := "/v1/onboardings/" + ob.OnboardingID
	taskPath := "/v1/onboarding-tasks/" + ob.OnboardingID
	gateID := map[string]string{}
	for _, g := range ob.Gates {
		gateID[strings.TrimPrefix(g.DefinitionID, "fc_")] = g.ID
	}
	if len(gateID) != 6 || ob.OverallStatus != "in_progress" {
		t.Fatalf("workflow: %+v", ob)
	}
	gateStatus := func() map[string]string {
		t.Helper()
		var o struct {
			Gates []gate `json:"gates"`
		}
		do("GET", obPath, admin, "", 200, &o)
		m := map[string]string{}
		for _, g := range o.Gates {
			m[strings.TrimPrefix(g.DefinitionID, "fc_")] = g.Status
		}
		return m
	}
	assetOf := func() map[string]any {
		t.Helper()
		var m map[string]any
		do("GET", "/v1/assets/bess-e2e", admin, "", 200, &m)
		return m
	}

	// 2. Contacts, a reviewer among them, and an access link for each
	// external one; the tokens come from the mails.
	people := []struct{ role, name, email, language string }{
		{"asset_owner", "Anna Eigner", "anna@acme.example", "de"},
		{"epc", "Erik Bauer", "erik@epc.example", "en"},
		{"ems_provider", "Emma Steuer", "emma@ems.example", "de"},
	}
	do("POST", obPath+"/contacts", admin, `{"name":"Paul Prüfer","email":"review@platform.example","roles":["platform_onboarding"],"language":"en"}`, 201, nil)
	links := map[string]string{}
	for _, p := range people {
		var c struct {
			ContactID string `json:"contact_id"`
		}
		do("POST", obPath+"/contacts", admin, fmt.Sprintf(`{"name":%q,"email":%q,"roles":[%q],"company":"Partner GmbH"}`, p.name, p.email, p.role), 201, &c)
		var link struct {
			LinkID string `json:"link_id"`
		}
		do("POST", obPath+"/access-links", admin, fmt.Sprintf(`{"contact_id":%q,"role":%q,"language":%q}`, c.ContactID, p.role, p.language), 201, &link)
		links[p.role] = link.LinkID
	}
	accessSubject := map[string]string{"de": "Ihr Zugang zur Inbetriebnahme von Kiel BESS", "en": "Your access to the onboarding of Kiel BESS"}
	tokens := map[string]string{}
	var linkMails int
	deadline := time.Now().Add(20 * time.Second)
	for len(tokens) < len(people) {
		if time.Now().After(deadline) {
			t.Fatalf("access-link mails: got tokens for %v, %d messages", tokens, len(box.all()))
		}
		time.Sleep(50 * time.Millisecond)
		linkMails = 0
		for _, m := range box.all() {
			text := mailText(t, m.data)
			token := accessLinkToken.FindString(text)
			if token == "" {
				continue
			}
			linkMails++
			for _, p := range people {
				if !slices.Contains(m.to, p.email) {
					continue
				}
				// Each mail is in the language its link was issued in.
				if subject := accessSubject[p.language]; !strings.Contains(text, subject) {
					t.Fatalf("mail to %s (%s) lacks %q:\n%s", p.email, p.language, subject, text)
				}
				tokens[p.role] = token
			}
		}
	}
	if linkMails < 3 {
		t.Fatalf("%d access-link mails", linkMails)
	}
	sessions := map[string]string{}
	for _, p := range people {
		var ex struct {
			AccessToken  string `json:"access_token"`
			OnboardingID string `json:"onboarding_id"`
			Role         string `json:"role"`
			ContactName  string `json:"contact_name"`
		}
		do("POST", "/v1/onboarding-magic/"+tokens[p.role]+"/exchange", "", "", 200, &ex)
		if ex.OnboardingID != ob.OnboardingID || ex.Role != p.role || ex.ContactName != p.name {
			t.Fatalf("exchange for %s: %+v", p.role, ex)
		}
		sessions[p.role] = ex.AccessToken
	}
	owner, epc, ems := sessions["asset_owner"], sessions["epc"], sessions["ems_provider"]

	// taskView checks a session's task: the gates it works on and the
	// status of each gate of the workflow.
	taskView := func(token string, wantTaskGates []string, want map[string]string) {
		t.Helper()
		var task struct {
			TaskGateIDs []string `json:"task_gate_ids"`
			Gates       []gate   `json:"gates"`
		}
		do("GET", taskPath, token, "", 200, &task)
		var ids []string
		for _, d := range wantTaskGates {
			ids = append(ids, gateID[d])
		}
		if !slices.Equal(task.TaskGateIDs, ids) {
			t.Fatalf("task_gate_ids %v, want %v (%v)", task.TaskGateIDs, ids, wantTaskGates)
		}
		for _, g := range task.Gates {
			if w, ok := want[strings.TrimPrefix(g.DefinitionID, "fc_")]; ok && g.Status != w {
				t.Fatalf("task view: gate %s is %s, want %s", g.DefinitionID, g.Status, w)
			}
		}
	}
	taskView(owner, []string{"rfi", "prequalification"}, map[string]string{"rfi": "pending", "go_live": "pending"})
	taskView(epc, []string{"rfi", "dpl", "installation", "comm_test"}, map[string]string{"installation": "pending"})
	taskView(ems, []string{"rfi", "dpl", "installation", "comm_test"}, map[string]string{"dpl": "pending"})
	// A session reaches only its task: not the manager side, not assets.
	code("POST", obPath+"/gates/"+gateID["rfi"]+"/pass", owner, "", 403, "magic_link_session_not_allowed")
	code("GET", "/v1/assets/bess-e2e", ems, "", 403, "magic_link_session_not_allowed")
	// Nor a gate of another role: the asset owner does not see the DPL
	// gate as one it may submit.
	code("POST", taskPath+"/gates/"+gateID["dpl"]+"/submit", owner, "", 404, "gate_not_found")

	submit := func(token, g string) {
		t.Helper()
		do("POST", taskPath+"/gates/"+gateID[g]+"/submit", token, "", 200, nil)
	}
	pass := func(g string) {
		t.Helper()
		do("POST", obPath+"/gates/"+gateID[g]+"/pass", admin, "", 200, nil)
	}

	// 3. The RfI: the EMS provider answers its fields (a contributor),
	// the asset owner the rest and submits; passing it writes the asset.
	rfi := strings.NewReplacer(`"usable_power_capacity_mw":12.5`, `"usable_power_capacity_mw":20`,
		`"usable_energy_capacity_mwh":25`, `"usable_energy_capacity_mwh":40`,
		`"grid_connection_power_mw":15`, `"grid_connection_power_mw":22`,
		`"planned_products":["fcr"]`, `"planned_products":["fcr","afrr_pos","afrr_neg"]`,
		`"ems_vendor":"EMS Co","ems_protocols":["iec104"],"remote_access_available":true,`, ``).Replace(fuzzRfI)
	do("PUT", taskPath+"/gates/"+gateID["rfi"]+"/fields", ems, `{"fields":{"ems_vendor":"EMS Co","ems_protocols":["iec104"],"remote_access_available":true}}`, 200, nil)
	code("POST", taskPath+"/gates/"+gateID["rfi"]+"/submit", owner, "", 422, "gate_requirements_unmet")
	do("PUT", taskPath+"/gates/"+gateID["rfi"]+"/fields", owner, rfi, 200, nil)
	submit(owner, "rfi")
	taskView(owner, []string{"rfi", "prequalification"}, map[string]string{"rfi": "submitted"})
	pass("rfi")
	if as := assetOf(); as["tso"] != "50HZ" || as["grid_connection_power_mw"] != 22.0 || as["latitude"] != 54.32 || as["asset_operational_status"] != "onboarding" {
		t.Fatalf("asset after the RfI: %v", as)
	}

	// 4. The EMS provider imports the data-point list: a row for every
	// point of the template; the export gives the same rows back.
	var tpl struct {
		DPLPoints []struct {
			PointName string `json:"point_name"`
			Unit      string `json:"unit"`
			Direction string `json:"direction"`
			Required  bool   `json:"required"`
		} `json:"dpl_points"`
	}
	do("GET", "/v1/onboarding-templates/fc_v1", admin, "", 200, &tpl)
	csv := "point_name,protocol,address,data_type,unit,direction\n"
	var points []string
	for i, p := range tpl.DPLPoints {
		csv += fmt.Sprintf("%s,iec104,ca:1/ioa:%d,float32,%s,%s\n", p.PointName, 100+i, p.Unit, p.Direction)
		points = append(points, p.PointName)
	}
	send("POST", taskPath+"/dpl-rows/import", ems, "text/csv", []byte(csv), 200, nil)
	exported := string(send("GET", taskPath+"/dpl-rows/export", ems, "", nil, 200, nil))
	for i, p := range tpl.DPLPoints {
		if !strings.Contains(exported, fmt.Sprintf("%s,", p.PointName)) || !strings.Contains(exported, fmt.Sprintf("ca:1/ioa:%d", 100+i)) {
			t.Fatalf("export lacks %s:\n%s", p.PointName, exported)
		}
	}
	if got := strings.Count(strings.TrimSpace(exported), "\n"); got != len(points) {
		t.Fatalf("export has %d rows, want %d:\n%s", got, len(points), exported)
	}
	submit(ems, "dpl")
	pass("dpl")

	// upload puts a file straight to object storage through a presigned
	// URL and finalizes it, on the task side (session) or the manager
	// side (admin).
	upload := func(side, token, gateDefinition, documentType, filename, contentType string, data []byte) string {
		t.Helper()
		var up struct {
			Document struct {
				ID string `json:"id"`
			} `json:"document"`
			UploadURL     string            `json:"upload_url"`
			UploadMethod  string            `json:"upload_method"`
			UploadHeaders map[string]string `json:"upload_headers"`
		}
		do("POST", side+"/documents/presigned-upload", token, fmt.Sprintf(`{"gate_definition_id":%q,"document_type":%q,"filename":%q,"content_type":%q,"size_bytes":%d}`,
			gateDefinition, documentType, filename, contentType, len(data)), 201, &up)
		req, _ := http.NewRequest(up.UploadMethod, up.UploadURL, bytes.NewReader(data))
		for k, v := range up.UploadHeaders {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("upload %s: %d", documentType, resp.StatusCode)
		}
		do("POST", side+"/documents/"+up.Document.ID+"/finalize", token, "", 200, nil)
		return up.Document.ID
	}
	jpeg := []byte(fuzzJPEG())
	pdf := []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")

	// 5. The EPC uploads the installation photos; passing the gate moves
	// the asset to onboarding_testing.
	upload(taskPath, epc, "fc_installation", "installation_photo_mdevice", "mdevice.jpg", "image/jpeg", jpeg)
	upload(taskPath, epc, "fc_installation", "installation_photo_antenna", "antenna.jpg", "image/jpeg", jpeg)
	taskView(epc, []string{"rfi", "dpl", "installation", "comm_test"}, map[string]string{"rfi": "passed", "dpl": "passed", "installation": "in_progress"})
	submit(epc, "installation")
	pass("installation")
	if as := assetOf(); as["asset_operational_status"] != "onboarding_testing" {
		t.Fatalf("asset after installation: %v", as["asset_operational_status"])
	}
	// The EPC's work is done: revoking its link ends its session.
	do("POST", obPath+"/access-links/"+links["epc"]+"/revoke", admin, `{"reason":"installation done"}`, 200, nil)
	do("GET", taskPath, epc, "", 401, nil)

	// 6. The communication test reads what the control loop recorded of
	// the simulated battery: wait until it recorded the new asset.
	deadline = time.Now().Add(60 * time.Second)
	for {
		var state map[string]any
		do("GET", "/v1/assets/bess-e2e/state", admin, "", 200, &state)
		if state["frequency"] != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no telemetry of the new asset: %v", state)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var test struct {
		Status    string `json:"status"`
		Connected bool   `json:"connected"`
		Points    []struct {
			PointName string `json:"point_name"`
			Result    string `json:"result"`
		} `json:"points"`
	}
	do("POST", taskPath+"/communication-tests", ems, "", 201, &test)
	if test.Status != "passed" || !test.Connected {
		t.Fatalf("communication test: %+v", test)
	}
	upload(taskPath, ems, "fc_comm_test", "test_results_signed", "test-results.pdf", "application/pdf", pdf)
	submit(ems, "comm_test")
	taskView(ems, []string{"rfi", "dpl", "installation", "comm_test"}, map[string]string{"comm_test": "submitted"})
	pass("comm_test")

	// 7. Prequalification: FCR and aFRR both ways granted, citing the
	// TSO's certificate; the BETR; the gate is the platform's own.
	cert := upload(obPath, admin, "fc_prequalification", "prequalification_certificate", "certificate.pdf", "application/pdf", pdf)
	for _, p := range []struct {
		product string
		mw      float64
	}{{"fcr", 10}, {"afrr_pos", 15}, {"afrr_neg", 20}} {
		var pq struct {
			ID string `json:"prequalification_id"`
		}
		do("POST", obPath+"/prequalifications", admin, fmt.Sprintf(`{"product":%q,"requested_mw":%g,"tso_reference":"PQ-%s"}`, p.product, p.mw, p.product), 201, &pq)
		do("POST", obPath+"/prequalifications/"+pq.ID+"/result", admin, fmt.Sprintf(`{"status":"granted","prequalified_mw":%g,"certificate_document_id":%q}`,
			p.mw, cert), 200, nil)
	}
	upload(obPath, admin, "fc_prequalification", "betr", "betr.pdf", "application/pdf", pdf)
	do("POST", obPath+"/gates/"+gateID["prequalification"]+"/submit", admin, "", 200, nil)
	pass("prequalification")
	if as := assetOf(); as["fcr_prequalified_capacity_mw"] != 10.0 || as["afrr_prequalified_capacity_pos_mw"] != 15.0 || as["afrr_prequalified_capacity_neg_mw"] != 20.0 {
		t.Fatalf("asset after prequalification: %v", as)
	}

	// 8. Go-live: the asset is live, the workflow completed, and the
	// market takes the bid it refused.
	code("POST", "/v1/assets/bess-e2e/markets/fcr/bids", admin, bid, 409, "asset_not_live")
	do("POST", obPath+"/gates/"+gateID["go_live"]+"/submit", admin, "", 200, nil)
	pass("go_live")
	if as := assetOf(); as["asset_operational_status"] != "live" {
		t.Fatalf("asset after go-live: %v", as["asset_operational_status"])
	}
	var done struct {
		OverallStatus string `json:"overall_status"`
	}
	do("GET", obPath, admin, "", 200, &done)
	if done.OverallStatus != "completed" {
		t.Fatalf("workflow after go-live: %s", done.OverallStatus)
	}
	for g, s := range gateStatus() {
		if s != "passed" {
			t.Fatalf("gate %s is %s", g, s)
		}
	}
	taskView(owner, []string{"rfi", "prequalification"}, map[string]string{"rfi": "passed", "prequalification": "passed", "go_live": "passed"})
	do("POST", "/v1/assets/bess-e2e/markets/fcr/bids", admin, bid, 201, nil)

	// The reviewer was told of each submission, the asset owner of its
	// gate's pass, each in their language.
	want := map[string]string{
		"review@platform.example": "Submitted for review: Request for information for Kiel BESS",
		"anna@acme.example":       "Abgeschlossen:",
	}
	deadline = time.Now().Add(20 * time.Second)
	for len(want) > 0 {
		for _, m := range box.all() {
			for to, subject := range want {
				if slices.Contains(m.to, to) && strings.Contains(mailText(t, m.data), subject) {
					delete(want, to)
				}
			}
		}
		if len(want) > 0 && time.Now().After(deadline) {
			t.Fatalf("mails not received: %v", want)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// 9. The audit trail holds every step.
	var audit struct {
		Entries []struct {
			Action string `json:"action"`
			Actor  struct {
				Kind string `json:"kind"`
				Role string `json:"role"`
			} `json:"actor"`
		} `json:"entries"`
		Total int `json:"total"`
	}
	do("GET", obPath+"/audit?limit=1000", admin, "", 200, &audit)
	seen := map[string]int{}
	byContact := map[string]bool{}
	for _, e := range audit.Entries {
		seen[e.Action]++
		if e.Actor.Kind == "contact" {
			byContact[e.Actor.Role] = true
		}
	}
	for action, n := range map[string]int{"onboarding.created": 1, "link.issued": 3, "link.exchanged": 3, "link.revoked": 1,
		"field.updated": 1, "gate.submitted": 6, "gate.passed": 6, "document.finalized": 5, "dpl.imported": 1, "contact.created": 4, "session.ended": 1, "communication_test.run": 1,
		"asset.updated": 1, "asset.status_changed": 2, "prequalification.created": 3, "prequalification.decided": 3,
		"asset.capacity_changed": 3, "onboarding.completed": 1} {
		if seen[action] < n {
			t.Errorf("audit: %d %s, want at least %d (all: %v)", seen[action], action, n, seen)
		}
	}
	for _, role := range []string{"asset_owner", "epc", "ems_provider"} {
		if !byContact[role] {
			t.Errorf("audit: no entry by the %s contact", role)
		}
	}
	if audit.Total != len(audit.Entries) {
		t.Errorf("audit: %d entries of %d", len(audit.Entries), audit.Total)
	}
}
