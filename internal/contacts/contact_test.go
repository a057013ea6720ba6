package contacts_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"atcp/internal/contacts"
	"atcp/internal/errs"
)

func TestCheckEmail(t *testing.T) {
	for _, ok := range []string{
		"ops@example.com", "nacht.schicht+bess@lausitz.example", "a@b", "ÄÖÜ@müller.example",
		strings.Repeat("a", 64) + "@" + strings.Repeat("b", 181) + ".example",
	} {
		if msg := contacts.CheckEmail(ok); msg != "" {
			t.Errorf("%q refused: %s", ok, msg)
		}
	}
	for _, bad := range []string{
		"", "ops", "ops@", "@example.com", " ops@example.com", "ops@example.com ", "Ops <ops@example.com>",
		"<ops@example.com>", "ops@example.com (night)", "a@example.com, b@example.com", `"night shift"@example.com`,
		"ops@exa mple.com", "ops@example.com\n", "ops\x00@example.com",
		strings.Repeat("a", 64) + "@" + strings.Repeat("b", 182) + ".example",
	} {
		if contacts.CheckEmail(bad) == "" {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCheckWebhookURL(t *testing.T) {
	for _, ok := range []string{
		"https://hooks.slack.com/services/T0/B0/xyz", "https://chat.example:8443/hooks/abc?x=1#f", "HTTPS://Hooks.Example/x",
		"http://127.0.0.1:8080/hook", "http://127.1.2.3/hook", "http://localhost/hook", "http://LOCALHOST:9/", "http://[::1]:9/hook",
		"https://hooks.example/" + strings.Repeat("x", contacts.MaxWebhookURLLength-22),
	} {
		if msg := contacts.CheckWebhookURL(ok); msg != "" {
			t.Errorf("%q refused: %s", ok, msg)
		}
	}
	for _, bad := range []string{
		"", "hooks.slack.com/services/x", "/services/x", "https://", "https:///x", "http://hooks.slack.com/x",
		"http://10.0.0.1/x", "http://[::2]/x", "http://localhost.example/x", "ftp://hooks.example/x", "ws://localhost/x",
		"mailto:ops@example.com", "https://user:pw@hooks.example/x", "https://user@hooks.example/x", "https://hooks.example/a b",
		"https://hooks.example/\x7f", " https://hooks.example/x", "https://hooks.example:port/x", "https://[::1/x",
		"https://hooks.example/" + strings.Repeat("x", contacts.MaxWebhookURLLength-21),
	} {
		if contacts.CheckWebhookURL(bad) == "" {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestChannels(t *testing.T) {
	for _, c := range []struct {
		contact contacts.Contact
		want    []string
	}{
		{contacts.Contact{Name: "Phone only", Phone: "+49 30 1", Notifiable: true}, []string{}},
		{contacts.Contact{Name: "Mail", Email: "a@b.example"}, []string{"email"}},
		{contacts.Contact{Name: "Chat", ChatWebhookURL: "https://h.example/x"}, []string{"chat"}},
		{contacts.Contact{Name: "Both", Email: "a@b.example", ChatWebhookURL: "https://h.example/x"}, []string{"email", "chat"}},
	} {
		got := c.contact.Channels()
		if !slices.Equal(got, c.want) || got == nil || c.contact.Reachable() != (len(c.want) > 0) {
			t.Errorf("%s: channels %v, reachable %v", c.contact.Name, got, c.contact.Reachable())
		}
	}
}

func TestValidate(t *testing.T) {
	valid := contacts.Contact{Name: "Leitwarte", Role: "control room", Company: "Acme", Email: "a@b.example", Phone: "+49 30 1",
		ChatWebhookURL: "https://h.example/x"}
	if err := valid.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (contacts.Contact{Name: "Only a name"}).Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		change func(*contacts.Contact)
		fields []string
	}{
		{"no name", func(c *contacts.Contact) { c.Name = "" }, []string{"name"}},
		{"blank name", func(c *contacts.Contact) { c.Name = " \t" }, []string{"name"}},
		{"name with a control character", func(c *contacts.Contact) { c.Name = "a\x1bb" }, []string{"name"}},
		{"invalid UTF-8", func(c *contacts.Contact) { c.Company = "\xff" }, []string{"company"}},
		{"name too long", func(c *contacts.Contact) { c.Name = strings.Repeat("ü", contacts.MaxNameLength+1) }, []string{"name"}},
		{"blank role", func(c *contacts.Contact) { c.Role = "  " }, []string{"role"}},
		{"phone too long", func(c *contacts.Contact) { c.Phone = strings.Repeat("1", contacts.MaxPhoneLength+1) }, []string{"phone"}},
		{"every field", func(c *contacts.Contact) {
			*c = contacts.Contact{Name: "\n", Role: "\x00", Company: " ", Email: "x", Phone: "\r", ChatWebhookURL: "http://x.example"}
		}, []string{"name", "role", "company", "email", "phone", "chat_webhook_url"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ct := valid
			c.change(&ct)
			err := ct.Validate()
			var e *errs.Error
			if !errors.As(err, &e) || e.Kind != errs.Invalid {
				t.Fatalf("error %v", err)
			}
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Location)
			}
			if !slices.Equal(got, c.fields) {
				t.Fatalf("fields %v, want %v", got, c.fields)
			}
		})
	}
}
