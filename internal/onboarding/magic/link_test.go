package magic

import (
	"errors"
	"strings"
	"testing"
	"time"

	"atcp/internal/errs"
)

func TestParseLinkToken(t *testing.T) {
	raw, h := NewLinkToken()
	if len(raw) != len(LinkTokenPrefix)+43 || !strings.HasPrefix(raw, "aml_") {
		t.Fatalf("token %q", raw)
	}
	got, err := ParseLinkToken(raw)
	if err != nil || got != h {
		t.Fatalf("parse own token: %v", err)
	}
	refresh, _ := newToken(RefreshTokenPrefix)
	body := raw[4:]
	for name, bad := range map[string]string{
		"empty":            "",
		"no prefix":        body,
		"refresh token":    refresh,
		"short":            raw[:len(raw)-1],
		"long":             raw + "A",
		"padding":          raw[:len(raw)-1] + "=",
		"standard base64":  "aml_" + strings.Repeat("+", 43),
		"not canonical":    "aml_" + strings.Repeat("A", 42) + "B", // the last character carries unused bits
		"white space":      " " + raw,
		"upper-case start": "AML_" + body,
	} {
		if _, err := ParseLinkToken(bad); errs.KindOf(err) != errs.Malformed {
			t.Errorf("%s: %q gave %v", name, bad, err)
		}
	}
}

func FuzzParseLinkToken(f *testing.F) {
	raw, _ := NewLinkToken()
	f.Add(raw)
	f.Add("aml_")
	f.Add("aml_" + strings.Repeat("_", 43))
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseLinkToken(s)
		if err != nil {
			return
		}
		if len(s) != 47 || !strings.HasPrefix(s, LinkTokenPrefix) || h == (TokenHash{}) {
			t.Fatalf("accepted %q", s)
		}
	})
}

func TestLinkSpecValidate(t *testing.T) {
	good := LinkSpec{OrganizationID: "acme", OnboardingID: "ob", ContactID: "c", Role: "epc"}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		change   func(*LinkSpec)
		location string
	}{
		{func(s *LinkSpec) { s.Role = "platform" }, "body.role"},
		{func(s *LinkSpec) { s.Role = "" }, "body.role"},
		{func(s *LinkSpec) { s.Language = "fr" }, "body.language"},
		{func(s *LinkSpec) { s.ExpiresInDays = 91 }, "body.expires_in_days"},
		{func(s *LinkSpec) { s.ExpiresInDays = -1 }, "body.expires_in_days"},
		{func(s *LinkSpec) { s.ContactID = "" }, "body.contact_id"},
	}
	for _, c := range cases {
		s := good
		c.change(&s)
		var de *errs.Error
		err := s.Validate()
		if !errors.As(err, &de) || de.Kind != errs.Invalid || len(de.Fields) != 1 || de.Fields[0].Location != c.location {
			t.Errorf("%+v: %v", s, err)
		}
	}
	for _, days := range []int{0, 1, 90} {
		s := good
		s.ExpiresInDays = days
		if err := s.Validate(); err != nil {
			t.Errorf("%d days: %v", days, err)
		}
	}
	if err := (ResendSpec{Language: "xx"}).Validate(); err == nil {
		t.Error("resend language not checked")
	}
}

func TestSessionExpiryAndLinkStatus(t *testing.T) {
	now := time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC)
	if got := sessionExpiry(now, now.Add(30*24*time.Hour)); !got.Equal(now.Add(SessionIdle)) {
		t.Errorf("idle: %v", got)
	}
	if got := sessionExpiry(now, now.Add(time.Hour)); !got.Equal(now.Add(time.Hour)) {
		t.Errorf("bounded by the link: %v", got)
	}
	l := Link{ExpiresAt: now.Add(time.Hour)}
	if l.Status(now) != LinkActive || l.Status(now.Add(time.Hour)) != LinkExpired {
		t.Error("expiry")
	}
	l.RevokedAt = &now
	if l.Status(now) != LinkRevoked || l.Status(now.Add(2*time.Hour)) != LinkRevoked {
		t.Error("revoked")
	}
	s := Session{ExpiresAt: now.Add(time.Minute)}
	if !s.Open(now) || s.Open(now.Add(time.Minute)) {
		t.Error("session expiry")
	}
	s.EndedAt = &now
	if s.Open(now) {
		t.Error("ended session open")
	}
}
