package brandinghttp_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"

	"atcp/internal/auth"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/branding/brandinghttp"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type env struct {
	*onboardingtest.Kit
	svc   *branding.Service
	admin string // a platform administrator
}

func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	k := onboardingtest.New(t, b, onboardingtest.Config{})
	svc := branding.NewService(branding.Deps{Store: b.OnboardingBranding(), Organizations: b.Directory(), Objects: k.Objects(), Clock: k.Clock})
	brandinghttp.Register(k.Server, svc)
	return env{Kit: k, svc: svc, admin: k.AdminToken()}
}

func settings() map[string]any {
	return map[string]any{
		"display_name": "Acme Onboarding", "primary_color": "#0A7CFF", "support_email": "onboarding@acme.example",
		"magic_link_default_language": "en",
		"magic_link_email_templates":  map[string]any{"de": map[string]any{"subject": "Zugang für {contact_name}"}},
	}
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 600, 80))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// upload PUTs a banner of contentType with the token and If-Match.
func (e env) upload(t *testing.T, token, org, contentType, ifMatch string, body []byte) *testkit.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, e.URL+"/v1/onboarding-branding/"+org+"/email-banner", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	return e.Send(req)
}

func (e env) put(t *testing.T, token, org, ifMatch string, body any) *testkit.Response {
	t.Helper()
	if ifMatch == "" {
		return e.Do("PUT", "/v1/onboarding-branding/"+org, token, body)
	}
	return e.Do("PUT", "/v1/onboarding-branding/"+org, token, body, "If-Match", ifMatch)
}

func TestBrandingLifecycle(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		// Never set: every member null, no ETag.
		res := e.Do("GET", "/v1/onboarding-branding/acme", e.AcmeRO, nil).Expect(t, 200, "")
		m := res.Map(t)
		br := m["branding"].(map[string]any)
		if m["organization_id"] != "acme" || m["organization_name"] != "Acme GmbH" || len(br) != 7 || res.Header.Get("ETag") != "" {
			t.Fatalf("never set: %s %v", res, res.Header)
		}
		for k, v := range br {
			if v != nil {
				t.Errorf("%s = %v, want null", k, v)
			}
		}

		res = e.put(t, e.Acme, "acme", "", settings()).Expect(t, 200, "")
		tag := res.Header.Get("ETag")
		got := res.Map(t)
		if tag == "" || got["display_name"] != "Acme Onboarding" || got["primary_color"] != "#0a7cff" || got["logo_url"] != nil ||
			got["email_banner_url"] != nil || got["magic_link_default_language"] != "en" {
			t.Fatalf("put: %s", res)
		}
		if tpl := got["magic_link_email_templates"].(map[string]any); tpl["de"].(map[string]any)["subject"] != "Zugang für {contact_name}" || tpl["en"] != nil {
			t.Fatalf("templates: %v", tpl)
		}
		res = e.Do("GET", "/v1/onboarding-branding/acme", e.admin, nil).Expect(t, 200, "")
		if res.Header.Get("ETag") != tag {
			t.Fatalf("GET ETag %q, PUT %q", res.Header.Get("ETag"), tag)
		}

		// If-Match: the current tag is taken, a stale one refused, and
		// the refused request changes nothing.
		changed := settings()
		changed["display_name"] = "Acme Inbetriebnahme"
		res = e.put(t, e.Acme, "acme", tag, changed).Expect(t, 200, "")
		newTag := res.Header.Get("ETag")
		if newTag == tag {
			t.Fatal("the ETag did not change")
		}
		e.put(t, e.Acme, "acme", tag, settings()).Expect(t, 409, "edit_conflict")
		if got := e.Do("GET", "/v1/onboarding-branding/acme", e.Acme, nil).Map(t)["branding"].(map[string]any); got["display_name"] != "Acme Inbetriebnahme" {
			t.Fatalf("a refused PUT changed the branding: %v", got)
		}

		// The banner: stored, previewable, and the ETag moves.
		img := pngBytes(t)
		res = e.upload(t, e.Acme, "acme", "image/png", newTag, img).Expect(t, 200, "")
		bannerURL, _ := res.Map(t)["email_banner_url"].(string)
		if bannerURL == "" || res.Header.Get("ETag") == newTag || res.Map(t)["display_name"] != "Acme Inbetriebnahme" {
			t.Fatalf("banner: %s", res)
		}
		dl, err := http.Get(bannerURL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(dl.Body)
		dl.Body.Close()
		if dl.StatusCode != 200 || !bytes.Equal(body, img) {
			t.Fatalf("banner download: %d, %d bytes", dl.StatusCode, len(body))
		}
		e.upload(t, e.Acme, "acme", "image/png", newTag, img).Expect(t, 409, "edit_conflict")

		// Resolve: acme's own; beta (none) falls back to the platform's,
		// and without that to the built-in defaults.
		ctx := context.Background()
		if r, err := e.svc.Resolve(ctx, "acme"); err != nil || r.DisplayName != "Acme Inbetriebnahme" || r.BannerKey == "" {
			t.Fatalf("resolve acme: %+v, %v", r, err)
		}
		if r, err := e.svc.Resolve(ctx, "beta"); err != nil || r.Configured() || r.Language() != "de" {
			t.Fatalf("resolve beta without a platform branding: %+v, %v", r, err)
		}
		platform := settings()
		platform["display_name"] = "atcp Onboarding"
		e.put(t, e.admin, auth.PlatformOrganization, "", platform).Expect(t, 200, "")
		if r, err := e.svc.Resolve(ctx, "beta"); err != nil || r.DisplayName != "atcp Onboarding" {
			t.Fatalf("resolve beta: %+v, %v", r, err)
		}
		if data, err := e.svc.Banner(ctx, mustResolve(t, e.svc, "acme")); err != nil || !bytes.Equal(data, img) {
			t.Fatalf("banner bytes: %d, %v", len(data), err)
		}
	})
}

func mustResolve(t *testing.T, svc *branding.Service, org string) branding.Branding {
	t.Helper()
	b, err := svc.Resolve(context.Background(), org)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBrandingErrors(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		img := pngBytes(t)
		// 404: another organisation and an unknown one alike.
		for _, org := range []string{"beta", "nobody"} {
			e.Do("GET", "/v1/onboarding-branding/"+org, e.Acme, nil).Expect(t, 404, "organization_not_found")
			e.put(t, e.Acme, org, "", settings()).Expect(t, 404, "organization_not_found")
			e.upload(t, e.Acme, org, "image/png", "", img).Expect(t, 404, "organization_not_found")
		}
		e.Do("GET", "/v1/onboarding-branding/nobody", e.admin, nil).Expect(t, 404, "organization_not_found")
		e.put(t, e.admin, "nobody", "", settings()).Expect(t, 404, "organization_not_found")
		// The platform reaches every organisation.
		e.put(t, e.admin, "beta", "", settings()).Expect(t, 200, "")

		// 403: a missing scope.
		e.Do("GET", "/v1/onboarding-branding/acme", e.None, nil).Expect(t, 403, "insufficient_scope")
		e.put(t, e.AcmeRO, "acme", "", settings()).Expect(t, 403, "insufficient_scope")
		e.upload(t, e.AcmeRO, "acme", "image/png", "", img).Expect(t, 403, "insufficient_scope")
		e.Do("GET", "/v1/onboarding-branding/acme", "", nil).Expect(t, 401, "invalid_token")

		// 422 names the field; 400 for a malformed body.
		for field, bad := range map[string]any{
			"display_name": "", "primary_color": "blue", "support_email": "Acme <a@acme.example>",
			"logo_url": "http://acme.example/l.png", "magic_link_default_language": "fr",
			"magic_link_email_templates.de.subject": map[string]any{"de": map[string]any{"subject": "Hallo {name}"}},
		} {
			body := settings()
			key, _, _ := strings.Cut(field, ".")
			body[key] = bad
			res := e.put(t, e.Acme, "acme", "", body).Expect(t, 422, "validation_failed")
			if !strings.Contains(string(res.Body), `"body.`+field+`"`) {
				t.Errorf("%s: %s", field, res)
			}
		}
		body := settings()
		delete(body, "support_email")
		e.put(t, e.Acme, "acme", "", body).Expect(t, 422, "validation_failed")
		req, _ := http.NewRequest(http.MethodPut, e.URL+"/v1/onboarding-branding/acme", strings.NewReader(`{"display_name":`))
		req.Header.Set("Authorization", "Bearer "+e.Acme)
		req.Header.Set("Content-Type", "application/json")
		e.Send(req).Expect(t, 400, "")
		// If-Match before any branding exists.
		e.put(t, e.Acme, "acme", `"abc"`, settings()).Expect(t, 409, "edit_conflict")

		// The banner's refusals, none of which stores anything.
		e.upload(t, e.Acme, "acme", "image/jpeg", "", img).Expect(t, 400, "image_type_mismatch")
		e.upload(t, e.Acme, "acme", "image/gif", "", []byte("GIF89a")).Expect(t, 400, "unsupported_image")
		// Without a Content-Type the edge reads the body as JSON.
		e.upload(t, e.Acme, "acme", "", "", img).Expect(t, 400, "invalid_utf8")
		e.upload(t, e.Acme, "acme", "image/svg+xml", "", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)).
			Expect(t, 400, "svg_active_content")
		e.upload(t, e.Acme, "acme", "application/json", "", []byte(`{"a":1}`)).Expect(t, 400, "unsupported_image")
		// 2 MB is accepted (a PNG with trailing bytes), one byte more is 413.
		big := append(append([]byte{}, img...), make([]byte, branding.MaxBannerBytes-len(img))...)
		e.upload(t, e.Acme, "acme", "image/png", "", big).Expect(t, 200, "")
		e.upload(t, e.Acme, "acme", "image/png", "", append(big, 0)).Expect(t, 413, "request_too_large")
		// SVG is accepted when it holds nothing active.
		res := e.upload(t, e.Acme, "acme", "image/svg+xml", "", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><rect width="5" height="5"/></svg>`)).
			Expect(t, 200, "")
		if res.Map(t)["email_banner_url"] == nil {
			t.Fatalf("svg banner: %s", res)
		}
		// A banner keeps the settings.
		res = e.upload(t, e.admin, "beta", "image/png", "", img).Expect(t, 200, "")
		if res.Map(t)["display_name"] != "Acme Onboarding" {
			t.Fatalf("beta after banner: %s", res)
		}
	})
}
