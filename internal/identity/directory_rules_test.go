package identity

import (
	"net/mail"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"atcp/internal/auth"
)

func TestNormalizeEmail(t *testing.T) {
	valid := map[string]string{
		"alice@example.com":               "alice@example.com",
		"Alice@Example.COM":               "alice@example.com",
		"  bob@acme.test \t":              "bob@acme.test",
		"first.last+tag@sub.acme.de":      "first.last+tag@sub.acme.de",
		"o'brien@example.ie":              "o'brien@example.ie",
		"x_y-z!#$%&*/=?^`{|}~@a.io":       "x_y-z!#$%&*/=?^`{|}~@a.io",
		"user@xn--mnchen-3ya.de":          "user@xn--mnchen-3ya.de",
		"a@b-c.d2":                        "a@b-c.d2",
		strings.Repeat("l", 64) + "@x.de": strings.Repeat("l", 64) + "@x.de",
	}
	for in, want := range valid {
		got, err := NormalizeEmail(in)
		if err != nil || got != want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	invalid := []string{
		"", "   ", "alice", "alice@", "@example.com", "alice@example", "a@b@example.com",
		"a..b@example.com", ".a@example.com", "a.@example.com", "a b@example.com",
		"Alice <alice@example.com>", `"a b"@example.com`, "a@[192.0.2.1]", "a@192.0.2.1",
		"a@-x.com", "a@x-.com", "a@ex_ample.com", "a@example..com", "a@.example.com", "a@example.com.",
		"ä@example.com", "a@münchen.de", "a(comment)@example.com", "a@exa\nmple.com",
		strings.Repeat("l", 65) + "@x.de",
		"a@" + strings.Repeat("b", 64) + ".de",
		"a@" + strings.Repeat(strings.Repeat("b", 60)+".", 5) + "de",
	}
	for _, in := range invalid {
		if got, err := NormalizeEmail(in); err == nil {
			t.Errorf("NormalizeEmail(%q) = %q, want an error", in, got)
		}
	}
}

func FuzzNormalizeEmail(f *testing.F) {
	for _, s := range []string{"alice@example.com", "A@B.CD", "a..b@x.de", "\"q\"@x.de", "x@[1.2.3.4]", "Name <a@b.de>", "ü@x.de"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		email, err := NormalizeEmail(raw)
		if err != nil {
			return
		}
		if email != strings.ToLower(email) || len(email) > EmailMaxLength || strings.TrimSpace(email) != email {
			t.Fatalf("NormalizeEmail(%q) = %q: not lower case, trimmed and bounded", raw, email)
		}
		if again, err := NormalizeEmail(email); err != nil || again != email {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", raw, email, again, err)
		}
		// Whatever is accepted is a plain RFC 5322 address that mail
		// clients read back unchanged.
		addr, err := mail.ParseAddress(email)
		if err != nil || addr.Address != email || addr.Name != "" {
			t.Fatalf("accepted %q, which net/mail reads as %+v, %v", email, addr, err)
		}
	})
}

func TestValidateOrganizationID(t *testing.T) {
	for _, id := range []string{"ab", "acme", "platform", "9lives", "a-b-c", "a" + strings.Repeat("b", 62)} {
		if err := ValidateOrganizationID(id); err != nil {
			t.Errorf("%q rejected: %v", id, err)
		}
	}
	for _, id := range []string{"", "a", "-acme", "Acme", "ac me", "acme_co", "ä-corp", "a" + strings.Repeat("b", 63), "acme\n"} {
		if ValidateOrganizationID(id) == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestNormalizeOrganizationName(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"Acme Energy GmbH", "Acme Energy GmbH", true},
		{"  Stadtwerke Süd  ", "Stadtwerke Süd", true},
		{strings.Repeat("ü", 200), strings.Repeat("ü", 200), true},
		{strings.Repeat("ü", 201), "", false},
		{"", "", false},
		{" \t ", "", false},
		{"Acme\x00", "", false},
		{"Acme\nEnergy", "", false},
		{"\xff", "", false},
	}
	for _, c := range cases {
		got, err := NormalizeOrganizationName(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("NormalizeOrganizationName(%q) = %q, %v; want %q ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func FuzzNormalizeOrganizationName(f *testing.F) {
	for _, s := range []string{"Acme", "  x ", "", "\x00", strings.Repeat("a", 201)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		name, err := NormalizeOrganizationName(raw)
		if err != nil {
			return
		}
		n := utf8.RuneCountInString(name)
		if n < 1 || n > OrganizationNameMaxLength || strings.TrimSpace(name) != name || !utf8.ValidString(name) {
			t.Fatalf("accepted %q as %q", raw, name)
		}
		if again, err := NormalizeOrganizationName(name); err != nil || again != name {
			t.Fatalf("not idempotent: %q -> %q, %v", name, again, err)
		}
	})
}

func TestCheckPassword(t *testing.T) {
	good := "correct horse battery"
	cases := []struct {
		name, email, password, confirm string
		wantPassword, wantConfirm      bool
	}{
		{"good", "a@x.de", good, good, false, false},
		{"exactly 12", "a@x.de", "123456789012", "123456789012", false, false},
		{"12 multibyte characters", "a@x.de", strings.Repeat("ß", 12), strings.Repeat("ß", 12), false, false},
		{"11 characters", "a@x.de", "12345678901", "12345678901", true, false},
		{"256 characters", "a@x.de", strings.Repeat("p", 256), strings.Repeat("p", 256), false, false},
		{"257 characters", "a@x.de", strings.Repeat("p", 257), strings.Repeat("p", 257), true, false},
		{"mismatch", "a@x.de", good, good + "!", false, true},
		{"short and mismatch", "a@x.de", "short", "other", true, true},
		{"the e-mail address", "alice@example.com", "Alice@Example.com", "Alice@Example.com", true, false},
		{"not UTF-8", "a@x.de", "\xff\xfe" + good, "\xff\xfe" + good, true, false},
		{"spaces kept", "a@x.de", "  " + good, good, false, true},
	}
	for _, c := range cases {
		got := CheckPassword(c.email, c.password, c.confirm)
		var gotPassword, gotConfirm bool
		if got != nil {
			gotPassword, gotConfirm = got.Password != "", got.Confirm != ""
		}
		if gotPassword != c.wantPassword || gotConfirm != c.wantConfirm {
			t.Errorf("%s: problems %+v", c.name, got)
		}
	}
}

func FuzzCheckPassword(f *testing.F) {
	f.Add("a@x.de", "correct horse battery", "correct horse battery")
	f.Add("a@x.de", "short", "short")
	f.Fuzz(func(t *testing.T, email, password, confirm string) {
		got := CheckPassword(email, password, confirm)
		n := utf8.RuneCountInString(password)
		acceptable := utf8.ValidString(password) && n >= PasswordMinLength && n <= PasswordMaxLength &&
			!(email != "" && strings.EqualFold(password, email)) && password == confirm
		if (got == nil) != acceptable {
			t.Fatalf("CheckPassword(%q, %q, %q) = %+v, acceptable %v", email, password, confirm, got, acceptable)
		}
	})
}

func TestScopeRules(t *testing.T) {
	set, unknown := UnknownScopes([]string{"asset.read", "nope", "asset.read", "", "users.write"})
	if !reflect.DeepEqual(unknown, []int{1, 3}) || !reflect.DeepEqual(set.Strings(), []string{"asset.read", "users.write"}) {
		t.Fatalf("UnknownScopes: %v %v", set.Strings(), unknown)
	}
	holder := auth.NewScopeSet(auth.AssetRead, auth.UsersWrite)
	if got := NotHeld(holder, auth.NewScopeSet(auth.AssetRead, auth.MarketWrite, auth.AlarmRead)); !reflect.DeepEqual(got, []auth.Scope{auth.AlarmRead, auth.MarketWrite}) {
		t.Fatalf("NotHeld: %v", got)
	}
	if got := NotHeld(holder, auth.ScopeSet{}); len(got) != 0 {
		t.Fatalf("NotHeld of nothing: %v", got)
	}
	added, removed := ScopeDiff(auth.NewScopeSet(auth.AssetRead, auth.UsersRead), auth.NewScopeSet(auth.UsersRead, auth.MarketRead))
	if !reflect.DeepEqual(added, []auth.Scope{auth.MarketRead}) || !reflect.DeepEqual(removed, []auth.Scope{auth.AssetRead}) {
		t.Fatalf("ScopeDiff: %v %v", added, removed)
	}
	added, removed = ScopeDiff(auth.ScopeSet{}, auth.ScopeSet{})
	if added == nil || removed == nil || len(added)+len(removed) != 0 {
		t.Fatalf("ScopeDiff of nothing must give empty, non-nil lists: %#v %#v", added, removed)
	}
}

func TestPreferenceValues(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, c := range []struct {
		v    *string
		list []string
		ok   bool
	}{
		{nil, Locales, true}, {s("en"), Locales, true}, {s("de"), Locales, true}, {s("fr"), Locales, false},
		{s("EN"), Locales, false}, {s(""), Locales, false}, {s("dark"), Themes, true}, {s("en"), Themes, false},
	} {
		if oneOf(c.v, c.list) != c.ok {
			t.Errorf("oneOf(%v, %v) != %v", c.v, c.list, c.ok)
		}
	}
}
