package contactshttp_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// deliver runs the outbox once and returns the messages the SMTP server
// received since from.
func (e env) deliver(t *testing.T, from int) []message {
	t.Helper()
	if _, err := e.delivery.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out []message
	for _, r := range e.smtp.received()[from:] {
		out = append(out, parse(t, r.data))
	}
	return out
}

func TestAccessLinks(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		ctx := context.Background()
		if _, err := e.brand.Put(ctx, &auth.Principal{OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.OnboardingWrite)}, "acme",
			branding.Settings{DisplayName: "Lausitz Speicher", PrimaryColor: "#112233", SupportEmail: "help@lausitz.example",
				DefaultLanguage: "de"}, ""); err != nil {
			t.Fatal(err)
		}
		epc := e.contact(t, "Erika Muster", "erika@epc.example", "epc", "ems_provider")
		links := "/v1/onboardings/" + e.ob + "/access-links"

		h.Do("POST", links, e.Acme, map[string]any{"contact_id": epc, "role": "tso"}).Expect(t, 422, "role_not_held")
		h.Do("POST", links, e.Acme, map[string]any{"contact_id": epc, "role": "platform"}).Expect(t, 422, "validation_failed")
		h.Do("POST", links, e.Acme, map[string]any{"contact_id": epc, "role": "epc", "expires_in_days": 91}).Expect(t, 422, "validation_failed")
		h.Do("POST", links, e.Acme, map[string]any{"contact_id": epc, "role": "epc", "message": "hi\u0000"}).Expect(t, 422, "validation_failed")
		h.Do("POST", links, e.Acme, map[string]any{"contact_id": "0190a3c4-0000-7000-8000-000000000009", "role": "epc"}).Expect(t, 404, "contact_not_found")
		h.Do("POST", links, e.AcmeRO, map[string]any{"contact_id": epc, "role": "epc"}).Expect(t, 403, "insufficient_scope")
		h.Do("POST", links, e.Beta, map[string]any{"contact_id": epc, "role": "epc"}).Expect(t, 404, "onboarding_not_found")
		if n := len(e.outbox.events()); n != 0 {
			t.Fatalf("%d mails enqueued by refused requests", n)
		}

		r := h.Do("POST", links, e.Acme, map[string]any{"contact_id": epc, "role": "epc", "language": "en", "message": "Please start <b>today</b>."}).
			Expect(t, 201, "")
		l := r.Map(t)
		linkID := l["link_id"].(string)
		if l["status"] != "active" || l["contact_email"] != "erika@epc.example" || l["send_count"] != float64(1) || l["delivery_status"] != "queued" ||
			strings.Contains(r.String(), "aml_") || r.Header.Get("Location") != links+"/"+linkID {
			t.Fatalf("issued %s", r)
		}

		msgs := e.deliver(t, 0)
		if len(msgs) != 1 {
			t.Fatalf("%d mails", len(msgs))
		}
		m := msgs[0]
		if m.header.Get("To") != "<erika@epc.example>" || !strings.Contains(m.header.Get("From"), "Lausitz Speicher") ||
			!strings.Contains(m.header.Get("From"), "onboarding@atcp.example") || !strings.Contains(m.header.Get("Reply-To"), "help@lausitz.example") {
			t.Fatalf("headers %v", m.header)
		}
		text, html := m.parts["text/plain"], m.parts["text/html"]
		if !strings.HasPrefix(text, "Hello Erika Muster,") {
			t.Fatalf("not in the link's language: %q", text)
		}
		token := tokenPattern.FindString(text)
		if token == "" || !strings.Contains(text, "https://console.example/onboarding/magic#"+token) || !strings.Contains(html, token) ||
			!strings.Contains(text, "Please start <b>today</b>.") || strings.Contains(html, "<b>today</b>") || !strings.Contains(html, "#112233") {
			t.Fatalf("text %q\nhtml %q", text, html)
		}
		// Sent: the outbox row no longer holds the token.
		sent := e.outbox.events()[0]
		d, err := b.Events().Delivery(ctx, "acme", sent.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d.SentAt == nil || d.Body != "" || d.Mail != nil || d.Subject == "" || d.Recipient != "erika@epc.example" {
			t.Fatalf("delivered row %+v", d)
		}

		var ex struct {
			AccessToken string         `json:"access_token"`
			Role        string         `json:"role"`
			ContactName string         `json:"contact_name"`
			Branding    map[string]any `json:"branding"`
		}
		h.Do("POST", "/v1/onboarding-magic/"+token+"/exchange", "", nil).Expect(t, 200, "").JSON(t, &ex)
		if ex.Role != "epc" || ex.ContactName != "Erika Muster" || ex.Branding["display_name"] != "Lausitz Speicher" {
			t.Fatalf("exchanged %+v", ex)
		}
		task := "/v1/onboarding-tasks/" + e.ob + "/contacts"
		var tc struct {
			Contacts     []map[string]any `json:"contacts"`
			SupportEmail string           `json:"support_email"`
		}
		h.Do("GET", task, ex.AccessToken, nil).Expect(t, 200, "").JSON(t, &tc)
		if len(tc.Contacts) != 0 || tc.SupportEmail != "help@lausitz.example" {
			t.Fatalf("task contacts %+v", tc)
		}
		h.Do("GET", task+"?role=ems_provider", ex.AccessToken, nil).Expect(t, 404, "task_not_found")
		h.Do("GET", "/v1/onboarding-tasks/"+e.betaOb+"/contacts", ex.AccessToken, nil).Expect(t, 404, "task_not_found")
		h.Do("GET", links, ex.AccessToken, nil).Expect(t, 403, "magic_link_session_not_allowed")

		var list struct {
			AccessLinks []map[string]any `json:"access_links"`
			Total       int              `json:"total"`
		}
		h.Do("GET", links+"?status=active&role=epc", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 1 || list.AccessLinks[0]["open_session_count"] != float64(1) || list.AccessLinks[0]["use_count"] != float64(1) ||
			list.AccessLinks[0]["delivery_status"] != "sent" {
			t.Fatalf("list %+v", list)
		}
		h.Do("GET", links+"?status=revoked", e.Platform, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 0 {
			t.Fatalf("revoked %+v", list)
		}
		h.Do("GET", links+"?status=gone", e.Acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", links+"?contact_id=x%00", e.Acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", links, e.None, nil).Expect(t, 403, "insufficient_scope")
		h.Do("GET", links, e.Beta, nil).Expect(t, 404, "onboarding_not_found")

		// A mail the server refuses for good is failed.
		gone := e.contact(t, "Nobody", "nobody@refused.example", "tso")
		h.Do("POST", links, e.Acme, map[string]any{"contact_id": gone, "role": "tso"}).Expect(t, 201, "")
		e.deliver(t, 1)
		h.Do("GET", links+"?contact_id="+gone, e.Acme, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 1 || list.AccessLinks[0]["delivery_status"] != "failed" {
			t.Fatalf("refused mail %+v", list)
		}

		// Resend: a new token; the old one keeps working without rotate.
		one := links + "/" + linkID
		l = h.Do("POST", one+"/resend", e.Acme, nil).Expect(t, 200, "").Map(t)
		if l["send_count"] != float64(2) || l["delivery_status"] != "queued" {
			t.Fatalf("resent %v", l)
		}
		msgs = e.deliver(t, 1)
		token2 := tokenPattern.FindString(msgs[0].parts["text/plain"])
		if len(msgs) != 1 || token2 == "" || token2 == token {
			t.Fatalf("resent mail %v", msgs)
		}
		h.Do("POST", "/v1/onboarding-magic/"+token+"/exchange", "", nil).Expect(t, 200, "")
		h.Do("POST", one+"/resend", e.Acme, map[string]any{"rotate": true, "language": "de"}).Expect(t, 200, "")
		h.Do("POST", "/v1/onboarding-magic/"+token2+"/exchange", "", nil).Expect(t, 404, "link_not_found")
		h.Do("POST", one+"/resend", e.Acme, nil).Expect(t, 200, "")
		h.Do("POST", one+"/resend", e.Acme, nil).Expect(t, 200, "")
		rl := h.Do("POST", one+"/resend", e.Acme, nil).Expect(t, 429, "resend_rate_limited")
		if rl.Header.Get("Retry-After") != "3600" {
			t.Fatalf("Retry-After %q", rl.Header.Get("Retry-After"))
		}
		// A platform hour does not lift it (TestSendLimit).
		h.Clock.Advance(time.Hour + time.Second)
		h.Do("POST", one+"/resend", e.Acme, nil).Expect(t, 429, "resend_rate_limited")
		h.Do("POST", one+"/resend", e.Acme, map[string]any{"language": "fr"}).Expect(t, 422, "validation_failed")
		h.Do("POST", one+"/resend", e.AcmeRO, nil).Expect(t, 403, "insufficient_scope")
		h.Do("POST", "/v1/onboardings/"+e.betaOb+"/access-links/"+linkID+"/resend", e.Platform, nil).Expect(t, 404, "access_link_not_found")
		h.Do("POST", links+"/nope/resend", e.Acme, nil).Expect(t, 404, "access_link_not_found")
		h.Do("POST", one+"/resend", e.Beta, nil).Expect(t, 404, "onboarding_not_found")

		// Revoke: the session's next request is 401.
		h.Do("POST", one+"/revoke", e.AcmeRO, nil).Expect(t, 403, "insufficient_scope")
		h.Do("POST", one+"/revoke", e.Beta, nil).Expect(t, 404, "onboarding_not_found")
		h.Do("POST", links+"/0190a3c4-0000-7000-8000-000000000009/revoke", e.Acme, nil).Expect(t, 404, "access_link_not_found")
		h.Do("POST", one+"/revoke", e.Acme, map[string]any{"reason": "wrong\u0000"}).Expect(t, 422, "validation_failed")
		l = h.Do("POST", one+"/revoke", e.Acme, map[string]any{"reason": "wrong person"}).Expect(t, 200, "").Map(t)
		if l["status"] != "revoked" || l["open_session_count"] != float64(0) {
			t.Fatalf("revoked %v", l)
		}
		h.Do("POST", one+"/revoke", e.Acme, nil).Expect(t, 200, "")
		h.Do("GET", task, ex.AccessToken, nil).Expect(t, 401, "")
		h.Do("POST", one+"/resend", e.Acme, nil).Expect(t, 409, "link_revoked")

		// Removing the role, deleting the contact and cancelling revoke.
		issue := func(role string) (string, string) {
			t.Helper()
			from := len(e.smtp.received())
			id := h.Do("POST", links, e.Acme, map[string]any{"contact_id": epc, "role": role}).Expect(t, 201, "").Map(t)["link_id"].(string)
			got := e.deliver(t, from)
			return id, tokenPattern.FindString(got[len(got)-1].parts["text/plain"])
		}
		_, tok := issue("epc")
		s := h.Do("POST", "/v1/onboarding-magic/"+tok+"/exchange", "", nil).Expect(t, 200, "").Map(t)
		h.Do("PATCH", "/v1/onboardings/"+e.ob+"/contacts/"+epc, e.Acme, map[string]any{"roles": []string{"ems_provider"}}).Expect(t, 200, "")
		h.Do("GET", task, s["access_token"].(string), nil).Expect(t, 401, "")
		h.Do("POST", "/v1/onboarding-magic/"+tok+"/exchange", "", nil).Expect(t, 404, "link_not_found")
		_, tok = issue("ems_provider")
		h.Do("DELETE", "/v1/onboardings/"+e.ob+"/contacts/"+epc, e.Acme, nil).Expect(t, 204, "")
		h.Do("POST", "/v1/onboarding-magic/"+tok+"/exchange", "", nil).Expect(t, 404, "link_not_found")

		other := e.contact(t, "Max Beispiel", "max@owner.example", "asset_owner")
		from := len(e.smtp.received())
		h.Do("POST", links, e.Acme, map[string]any{"contact_id": other, "role": "asset_owner"}).Expect(t, 201, "")
		got := e.deliver(t, from)
		m = got[len(got)-1]
		// No language on the link or the contact: the branding's default.
		if !strings.Contains(m.parts["text/plain"], "Guten Tag Max Beispiel,") {
			t.Fatalf("default-language mail %q", m.parts["text/plain"])
		}
		tok = tokenPattern.FindString(m.parts["text/plain"])
		s = h.Do("POST", "/v1/onboarding-magic/"+tok+"/exchange", "", nil).Expect(t, 200, "").Map(t)
		h.Do("POST", "/v1/onboardings/"+e.ob+"/cancel", e.Platform, map[string]any{"reason": "stop"}).Expect(t, 200, "")
		h.Do("GET", task, s["access_token"].(string), nil).Expect(t, 401, "")
		h.Do("POST", "/v1/onboarding-magic/"+tok+"/exchange", "", nil).Expect(t, 404, "link_not_found")
		h.Do("POST", links, e.Acme, map[string]any{"contact_id": other, "role": "asset_owner"}).Expect(t, 409, "onboarding_closed")

		var audit struct {
			Entries []map[string]any `json:"entries"`
		}
		r = h.Do("GET", "/v1/onboardings/"+e.ob+"/audit?target_type=access_link&limit=1000", e.Acme, nil).Expect(t, 200, "")
		r.JSON(t, &audit)
		if strings.Contains(r.String(), "aml_") || len(audit.Entries) == 0 {
			t.Fatalf("audit %s", r)
		}
		issued := audit.Entries[len(audit.Entries)-1]
		if issued["action"] != "link.issued" || issued["actor"].(map[string]any)["id"] != "u-acme" {
			t.Fatalf("first link entry %v", issued)
		}
	})
}

// TestSendLimit: a link is mailed at most MaxSendsPerHour times (issue
// and resends) within an hour of security time, whatever the platform
// clock does, also when resends race; Retry-After is when the oldest send
// leaves the hour.
func TestSendLimit(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		// acme mints a token again once the security clock moved past the
		// setup's tokens' hour.
		acme := func() string {
			e.Mint()
			return e.Acme
		}
		epc := e.contact(t, "Erika Muster", "erika@epc.example", "epc")
		links := "/v1/onboardings/" + e.ob + "/access-links"
		one := links + "/" + h.Do("POST", links, e.Acme, map[string]any{"contact_id": epc, "role": "epc"}).Expect(t, 201, "").Map(t)["link_id"].(string)

		// The issue was the first send: of 8 racing resends, 4 pass.
		var passed, limited atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				r := h.Do("POST", one+"/resend", e.Acme, nil)
				switch {
				case r.Status == 200:
					passed.Add(1)
				case r.Status == 429 && r.Header.Get("Retry-After") == "3600":
					limited.Add(1)
				default:
					t.Errorf("racing resend: %d %s %v", r.Status, r.Body, r.Header)
				}
			})
		}
		wg.Wait()
		if passed.Load() != contacts.MaxSendsPerHour-1 || limited.Load() != 9-contacts.MaxSendsPerHour {
			t.Fatalf("%d racing resends passed and %d were limited, want %d and %d", passed.Load(), limited.Load(),
				contacts.MaxSendsPerHour-1, 9-contacts.MaxSendsPerHour)
		}

		// Platform time records, security time limits.
		h.Clock.Advance(24 * time.Hour)
		h.Do("POST", one+"/resend", e.Acme, nil).Expect(t, 429, "resend_rate_limited")
		h.Security.Advance(59*time.Minute + 30*time.Second)
		if r := h.Do("POST", one+"/resend", acme(), nil).Expect(t, 429, "resend_rate_limited"); r.Header.Get("Retry-After") != "30" {
			t.Fatalf("Retry-After %q half a minute before the hour", r.Header.Get("Retry-After"))
		}
		// Retry-After rounds up: a request sent after it is not refused.
		h.Security.Advance(28*time.Second + 600*time.Millisecond)
		if r := h.Do("POST", one+"/resend", acme(), nil).Expect(t, 429, "resend_rate_limited"); r.Header.Get("Retry-After") != "2" {
			t.Fatalf("Retry-After %q 1.4 s before the hour", r.Header.Get("Retry-After"))
		}
		h.Security.Advance(1400 * time.Millisecond)
		if got := h.Do("POST", one+"/resend", acme(), nil).Expect(t, 200, "").Map(t); got["send_count"] != float64(contacts.MaxSendsPerHour+1) {
			t.Fatalf("resent an hour later %v", got)
		}
	})
}

// TestContactMailLimit: issuing a new link, which revokes the old one and
// starts a new link's count, does not reset what protects the recipient:
// at most MaxMailsPerContactHour access-link mails to one contact an hour,
// issues and resends of all its links together. Another contact is not
// held back.
func TestContactMailLimit(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		epc := e.contact(t, "Erika Muster", "erika@epc.example", "epc")
		links := "/v1/onboardings/" + e.ob + "/access-links"
		issue := func(contact string) *testkit.Response {
			return h.Do("POST", links, e.Acme, map[string]any{"contact_id": contact, "role": "epc"})
		}
		var last string
		for i := range contacts.MaxMailsPerContactHour - 1 {
			last = issue(epc).Expect(t, 201, "").Map(t)["link_id"].(string)
			if i == 0 {
				// A resend counts too.
				h.Do("POST", links+"/"+last+"/resend", e.Acme, nil).Expect(t, 200, "")
			}
		}
		// Nine issues and one resend make the limit.
		r := issue(epc).Expect(t, 429, "contact_mail_rate_limited")
		if r.Header.Get("Retry-After") != "3600" {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
		// The refused issue left the contact's active link as it was.
		var list struct {
			AccessLinks []map[string]any `json:"access_links"`
		}
		h.Do("GET", links+"?status=active&contact_id="+epc, e.Acme, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.AccessLinks) != 1 || list.AccessLinks[0]["link_id"] != last {
			t.Fatalf("active links after the refused issue: %v", list.AccessLinks)
		}
		other := e.contact(t, "Otto", "otto@epc.example", "epc")
		issue(other).Expect(t, 201, "")
		h.Clock.Advance(24 * time.Hour)
		issue(epc).Expect(t, 429, "contact_mail_rate_limited")
		h.Security.Advance(time.Hour)
		e.Mint()
		h.Do("POST", links, e.Acme, map[string]any{"contact_id": epc, "role": "epc"}).Expect(t, 201, "")
	})
}
