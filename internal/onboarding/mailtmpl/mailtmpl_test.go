package mailtmpl

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"atcp/internal/onboarding/branding"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func acmeBranding() branding.Branding {
	return branding.Branding{
		OrganizationID: "acme", DisplayName: "Acme Onboarding", PrimaryColor: "#0a7cff", SupportEmail: "onboarding@acme.example",
		DefaultLanguage: "de", BannerKey: "org/acme/branding/banner/ab12", BannerContentType: "image/png",
		Templates: map[string]branding.Template{"en": {Subject: "Welcome aboard, {contact_name}: {asset_name}",
			Intro: "{organization_name} invites you as {role}.\n\nPlease finish by {deadline}."}},
	}
}

func common(lang string) Common {
	return Common{Language: lang, Branding: acmeBranding(), ContactName: "Erika Müller", OrganizationName: "Acme Storage",
		AssetName: "BESS Cottbus 2", Role: "epc"}
}

// golden compares m with testdata/name.golden (rewritten with -update).
func golden(t *testing.T, name string, m Message) {
	t.Helper()
	got := fmt.Sprintf("Type: %s\nLanguage: %s\nSubject: %s\nFrom-Name: %s\nReply-To: %s\nBanner: %s %s\n\n--- text ---\n%s--- html ---\n%s",
		m.Type, m.Language, m.Subject, m.FromName, m.ReplyTo, m.BannerKey, m.BannerContentType, m.Text, m.HTML)
	file := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (go test -update rewrites it):\n%s", name, file, got)
	}
}

func TestGolden(t *testing.T) {
	expires := time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC) // 01:30 CET, the night the clocks go forward
	for _, lang := range []string{"de", "en"} {
		m, err := RenderAccessLink(AccessLink{Common: common(lang), URL: "https://console.atcp.example/onboarding/magic#aml_abc",
			ExpiresAt: expires, Deadline: "2026-04-15"})
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "access_link."+lang, m)

		m, err = RenderReminder(Reminder{Common: common(lang), GateTitle: "Installation", Deadline: "2026-04-15",
			TaskURL: "https://console.atcp.example/onboarding/tasks/o1"})
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "reminder."+lang, m)

		m, err = RenderGateChanged(GateChanged{Common: common(lang), GateTitle: "Datenpunktliste", Status: GateChangesRequested,
			Note: "Register 40001 fehlt.\nBitte ergänzen.", TaskURL: "https://console.atcp.example/onboarding/tasks/o1"})
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "gate_changed."+lang, m)

		m, err = RenderComment(Comment{Common: common(lang), GateTitle: "Installation", Author: "Max Weber",
			Body: "Fotos sind hochgeladen."})
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "comment."+lang, m)
	}
}

func TestLanguageAndOverrides(t *testing.T) {
	in := AccessLink{Common: common(""), URL: "https://x.example/#aml_1", ExpiresAt: time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)}
	m, _ := RenderAccessLink(in)
	if m.Language != "de" || m.Subject != "Ihr Zugang zur Inbetriebnahme von BESS Cottbus 2" || !strings.Contains(m.Text, "01.07.2026, 12:00 Uhr CEST") {
		t.Errorf("the branding's default language: %s %q\n%s", m.Language, m.Subject, m.Text)
	}
	in.Language = "en"
	m, _ = RenderAccessLink(in)
	if m.Subject != "Welcome aboard, Erika Müller: BESS Cottbus 2" || !strings.Contains(m.Text, "Acme Storage invites you as EPC contractor.\n\nPlease finish by .") {
		t.Errorf("the organisation's template: %q\n%s", m.Subject, m.Text)
	}
	// The link, the expiry and the support address stay whatever the template says.
	for _, must := range []string{"https://x.example/#aml_1", "1 July 2026, 12:00 CEST", "onboarding@acme.example"} {
		if !strings.Contains(m.Text, must) || !strings.Contains(m.HTML, must) {
			t.Errorf("%q missing", must)
		}
	}
	// No branding at all: the built-in defaults, no Reply-To, no banner.
	in.Branding = branding.Branding{}
	m, _ = RenderAccessLink(in)
	if m.FromName != DefaultDisplayName || m.ReplyTo != "" || m.BannerKey != "" || strings.Contains(m.HTML, "cid:") ||
		!strings.Contains(m.HTML, DefaultColor) || m.Language != "en" {
		t.Errorf("defaults: %+v", m)
	}
	if _, err := RenderGateChanged(GateChanged{Common: common("en"), Status: "waived"}); err == nil {
		t.Error("a gate status without a mail rendered")
	}
}

func TestEscaping(t *testing.T) {
	c := common("en")
	c.ContactName = `<script>alert("x")</script>`
	c.AssetName = "BESS\r\nBcc: victim@example.com"
	c.Branding.DisplayName = "Acme\nBcc: x@example.com"
	m, err := RenderComment(Comment{Common: c, Author: `<img src=x onerror=alert(1)>`, Body: "a < b & c\n</blockquote><b>bold</b>",
		TaskURL: "javascript:alert(1)"})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<img src=x", "<b>", "javascript:"} {
		if strings.Contains(m.HTML, bad) {
			t.Errorf("the HTML part holds %q:\n%s", bad, m.HTML)
		}
	}
	for _, want := range []string{"&lt;script&gt;", "&lt;img src=x onerror=alert(1)&gt;", "a &lt; b &amp; c"} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("the HTML part lacks %q:\n%s", want, m.HTML)
		}
	}
	if strings.Contains(m.Text, "javascript:") || strings.Contains(m.HTML, "<a ") {
		t.Errorf("a script URL became a link")
	}
	// Plain text is text: the name stays as written.
	if !strings.Contains(m.Text, `Hello <script>alert("x")</script>,`) {
		t.Errorf("text part:\n%s", m.Text)
	}
	// Header values stay on one line.
	if strings.ContainsAny(m.Subject, "\r\n") || strings.ContainsAny(m.FromName, "\r\n") {
		t.Errorf("header injection: %q, %q", m.Subject, m.FromName)
	}
	if m.Subject != "New comment on the onboarding of BESS Bcc: victim@example.com" || m.FromName != "Acme Bcc: x@example.com" {
		t.Errorf("one-line values: %q, %q", m.Subject, m.FromName)
	}
	// A colour from outside the validated form cannot break out of CSS.
	c.Branding.PrimaryColor = `red;}</style><script>x()</script>`
	m, _ = RenderReminder(Reminder{Common: c, GateTitle: "g", Deadline: "2026-01-01"})
	if strings.Contains(m.HTML, "<script") || strings.Contains(m.HTML, "</style>") {
		t.Errorf("the colour escaped its attribute:\n%s", m.HTML)
	}
}
