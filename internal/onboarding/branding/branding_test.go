package branding

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"atcp/internal/errs"
)

func validSettings() Settings {
	return Settings{DisplayName: " Acme Onboarding ", PrimaryColor: "#0A7CFF", SupportEmail: "onboarding@acme.example",
		Templates: map[string]Template{"de": {Subject: "Zugang für {contact_name} zu {asset_name}"}, "en": {}}}
}

func TestSettingsValidate(t *testing.T) {
	got, err := validSettings().Validate()
	if err != nil {
		t.Fatal(err)
	}
	if got.DisplayName != "Acme Onboarding" || got.PrimaryColor != "#0a7cff" || got.DefaultLanguage != "de" || len(got.Templates) != 1 {
		t.Fatalf("normalised: %+v", got)
	}
	cases := []struct {
		name     string
		change   func(*Settings)
		location string
	}{
		{"blank name", func(s *Settings) { s.DisplayName = "  " }, "display_name"},
		{"long name", func(s *Settings) { s.DisplayName = strings.Repeat("ä", MaxDisplayName+1) }, "display_name"},
		{"control in name", func(s *Settings) { s.DisplayName = "a\nb" }, "display_name"},
		{"short colour", func(s *Settings) { s.PrimaryColor = "#fff" }, "primary_color"},
		{"named colour", func(s *Settings) { s.PrimaryColor = "red" }, "primary_color"},
		{"no email", func(s *Settings) { s.SupportEmail = "" }, "support_email"},
		{"display name in email", func(s *Settings) { s.SupportEmail = "Acme <a@acme.example>" }, "support_email"},
		{"no domain dot", func(s *Settings) { s.SupportEmail = "a@localhost" }, "support_email"},
		{"long email", func(s *Settings) { s.SupportEmail = strings.Repeat("a", 250) + "@b.de" }, "support_email"},
		{"http logo", func(s *Settings) { s.LogoURL = "http://acme.example/logo.png" }, "logo_url"},
		{"logo with credentials", func(s *Settings) { s.LogoURL = "https://u:p@acme.example/logo.png" }, "logo_url"},
		{"language", func(s *Settings) { s.DefaultLanguage = "fr" }, "magic_link_default_language"},
		{"template language", func(s *Settings) { s.Templates = map[string]Template{"fr": {Subject: "x"}} }, "magic_link_email_templates.fr"},
		{"unknown placeholder", func(s *Settings) { s.Templates = map[string]Template{"de": {Subject: "Hallo {name}"}} }, "magic_link_email_templates.de.subject"},
		{"long intro", func(s *Settings) { s.Templates = map[string]Template{"en": {Intro: strings.Repeat("a", MaxIntro+1)}} }, "magic_link_email_templates.en.intro"},
		{"line break in subject", func(s *Settings) { s.Templates = map[string]Template{"en": {Subject: "a\nb"}} }, "magic_link_email_templates.en.subject"},
	}
	for _, c := range cases {
		s := validSettings()
		c.change(&s)
		_, err := s.Validate()
		var e *errs.Error
		if !errors.As(err, &e) || e.Kind != errs.Invalid || len(e.Fields) != 1 || e.Fields[0].Location != c.location {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	s := validSettings()
	s.Templates = map[string]Template{"en": {Intro: "Hello {contact_name},\n\nplease {role} by {deadline} for {organization_name}."}}
	s.LogoURL = "https://acme.example/logo.png"
	if _, err := s.Validate(); err != nil {
		t.Errorf("every placeholder and a line break: %v", err)
	}
}

func TestETagAndIfMatch(t *testing.T) {
	b := Branding{OrganizationID: "acme", DisplayName: "A"}
	b.ETag = b.ComputeETag()
	c := b
	c.BannerKey = "k"
	if c.ComputeETag() == b.ETag || !strings.HasPrefix(b.ETag, `"`) {
		t.Fatalf("tags %s %s", b.ETag, c.ComputeETag())
	}
	for _, ok := range []string{"", b.ETag, "*", `"x", ` + b.ETag} {
		if err := CheckIfMatch(ok, b, true); err != nil {
			t.Errorf("If-Match %q: %v", ok, err)
		}
	}
	for _, bad := range []string{`"x"`, "W/" + b.ETag} {
		if err := CheckIfMatch(bad, b, true); !errs.Is(err, errs.Conflict) {
			t.Errorf("If-Match %q: %v", bad, err)
		}
	}
	if err := CheckIfMatch("*", Branding{}, false); !errs.Is(err, errs.Conflict) {
		t.Errorf("If-Match * without a branding: %v", err)
	}
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jpegOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const plainSVG = `<?xml version="1.0" encoding="UTF-8"?>
<!-- banner -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="600" height="80">
  <defs><linearGradient id="g"><stop offset="0" stop-color="#0a7cff"/></linearGradient></defs>
  <style>.t { fill: url(#g); font-family: sans-serif }</style>
  <rect width="600" height="80" fill="url(#g)"/>
  <use xlink:href="#g"/>
  <image href="data:image/png;base64,iVBORw0KGgo="/>
  <text class="t" x="10" y="50">Acme</text>
</svg>`

func TestCheckBanner(t *testing.T) {
	ok := []struct {
		declared string
		data     []byte
		want     string
	}{
		{"image/png", pngOf(t, 600, 80), TypePNG},
		{"image/jpeg", jpegOf(t, 600, 80), TypeJPEG},
		{"image/svg+xml", []byte(plainSVG), TypeSVG},
		{"image/svg+xml; charset=utf-8", []byte("\xef\xbb\xbf<svg xmlns='http://www.w3.org/2000/svg'/>"), TypeSVG},
		{"image/png", pngOf(t, MaxBannerDimension, 1), TypePNG},
	}
	for _, c := range ok {
		if got, err := CheckBanner(c.declared, c.data); err != nil || got != c.want {
			t.Errorf("%s: %s, %v", c.declared, got, err)
		}
	}
	svg := func(inner string) []byte {
		return []byte(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">` + inner + `</svg>`)
	}
	bad := []struct {
		name, declared string
		data           []byte
		code           errs.Code
	}{
		{"png declared as jpeg", "image/jpeg", pngOf(t, 10, 10), CodeImageTypeMismatch},
		{"svg declared as png", "image/png", []byte(plainSVG), CodeImageTypeMismatch},
		{"jpeg declared as svg", "image/svg+xml", jpegOf(t, 10, 10), CodeImageTypeMismatch},
		{"gif", "image/gif", []byte("GIF89a..."), CodeUnsupportedImage},
		{"text declared as png", "image/png", []byte("hello"), CodeUnsupportedImage},
		{"no content type", "", pngOf(t, 10, 10), CodeUnsupportedImage},
		{"html root", "image/svg+xml", []byte("<html><body/></html>"), CodeUnsupportedImage},
		{"truncated png", "image/png", pngOf(t, 10, 10)[:20], CodeUnsupportedImage},
		{"too wide", "image/png", pngOf(t, MaxBannerDimension+1, 1), CodeUnsupportedImage},
		{"broken svg", "image/svg+xml", []byte("<svg><g></svg>"), CodeUnsupportedImage},
		{"script", "image/svg+xml", svg(`<script>alert(1)</script>`), CodeSVGActiveContent},
		{"SCRIPT in a namespace", "image/svg+xml", svg(`<x:Script xmlns:x="http://www.w3.org/2000/svg"/>`), CodeSVGActiveContent},
		{"foreignObject", "image/svg+xml", svg(`<foreignObject><div/></foreignObject>`), CodeSVGActiveContent},
		{"onload", "image/svg+xml", []byte(`<svg onload="alert(1)"/>`), CodeSVGActiveContent},
		{"OnClick", "image/svg+xml", svg(`<rect OnClick="x"/>`), CodeSVGActiveContent},
		{"javascript href", "image/svg+xml", svg(`<a href=" java&#x09;script:alert(1)"><text>x</text></a>`), CodeSVGActiveContent},
		{"external xlink", "image/svg+xml", svg(`<use xlink:href="https://evil.example/x.svg#a"/>`), CodeSVGActiveContent},
		{"external image", "image/svg+xml", svg(`<image href="//evil.example/p.png"/>`), CodeSVGActiveContent},
		{"data html", "image/svg+xml", svg(`<image href="data:text/html;base64,PHNjcmlwdD4="/>`), CodeSVGActiveContent},
		{"data svg", "image/svg+xml", svg(`<image href="data:image/svg+xml;base64,PHN2Zz4="/>`), CodeSVGActiveContent},
		{"css import", "image/svg+xml", svg(`<style>@import "https://evil.example/a.css";</style>`), CodeSVGActiveContent},
		{"css url", "image/svg+xml", svg(`<style>rect { fill: url( 'https://evil.example/a' ) }</style>`), CodeSVGActiveContent},
		{"style attribute url", "image/svg+xml", svg(`<rect style="background:url(http://evil.example/t)"/>`), CodeSVGActiveContent},
		{"fill url", "image/svg+xml", svg(`<rect fill="url(https://evil.example/#g)"/>`), CodeSVGActiveContent},
		{"doctype", "image/svg+xml", []byte(`<!DOCTYPE svg [<!ENTITY x "y">]><svg>&x;</svg>`), CodeSVGActiveContent},
		{"processing instruction", "image/svg+xml", []byte(`<?xml-stylesheet href="https://evil.example/a.css"?><svg/>`), CodeSVGActiveContent},
	}
	for _, c := range bad {
		_, err := CheckBanner(c.declared, c.data)
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != c.code || e.Kind != errs.Malformed {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

func FuzzCheckBanner(f *testing.F) {
	f.Add("image/svg+xml", []byte(plainSVG))
	f.Add("image/svg+xml", []byte(`<svg onload="x"/>`))
	f.Add("image/png", []byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, declared string, data []byte) {
		mt, err := CheckBanner(declared, data)
		if err == nil && mt != TypePNG && mt != TypeJPEG && mt != TypeSVG {
			t.Fatalf("accepted as %q", mt)
		}
		var e *errs.Error
		if err != nil && (!errors.As(err, &e) || e.Kind != errs.Malformed) {
			t.Fatalf("error not a 400: %v", err)
		}
	})
}
