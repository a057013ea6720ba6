package app_test

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"net/http"
	"path/filepath"
	"testing"
)

// TestEmbeddedObjectStoreIsServed: the server opens the embedded object
// store under its data directory and serves its presigned URLs, so a
// banner uploaded through the API downloads from the URL a read gives.
func TestEmbeddedObjectStoreIsServed(t *testing.T) {
	base := startApp(t, "sqlite://"+filepath.Join(t.TempDir(), "atcp.db"))
	token := fetchToken(t, base)
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 60, 8))); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, base+"/v1/onboarding-branding/platform/email-banner", bytes.NewReader(img.Bytes()))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "image/png")
	var out struct {
		EmailBannerURL string `json:"email_banner_url"`
	}
	getJSON(t, req, http.StatusOK, &out)
	res, err := http.Get(out.EmailBannerURL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !bytes.Equal(got, img.Bytes()) {
		t.Fatalf("GET %s: %d, %d bytes", out.EmailBannerURL, res.StatusCode, len(got))
	}
	unsigned, err := http.Get(base + "/objects/org/platform/branding/banner/x")
	if err != nil {
		t.Fatal(err)
	}
	unsigned.Body.Close()
	if unsigned.StatusCode != http.StatusForbidden {
		t.Fatalf("an unsigned GET: %d", unsigned.StatusCode)
	}
}
