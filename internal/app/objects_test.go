package app_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"atcp/internal/app"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/documents"
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

// TestDocumentObjectRetention: ATCP_OBJECT_RETENTION_DAYS reaches the
// documents' housekeeping: with 7 days, the object of a document deleted
// 10 days before is removed (the default, 30, would keep it).
func TestDocumentObjectRetention(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "sqlite::memory:", t.TempDir())
	cfg.Demo, cfg.Simulate = false, false
	cfg.ObjectRetention = 7 * 24 * time.Hour
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Directory.EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	asset := assets.NewAsset("bess-1", "acme", "One", "Leipzig", assets.Standalone)
	it := assets.FullControl
	asset.IntegrationType = &it
	if err := a.Assets.EnsureAsset(ctx, asset); err != nil {
		t.Fatal(err)
	}
	actor := onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-p", Name: "Paula Platform", OrganizationID: auth.PlatformOrganization,
		Role: onboarding.RolePlatformOnboarding}
	ob, err := a.Onboarding.Create(ctx, actor, onboarding.CreateRequest{AssetID: "bess-1"})
	if err != nil {
		t.Fatal(err)
	}
	pdf := []byte("%PDF-1.7\n%%EOF\n")
	up, err := a.Documents.Presign(ctx, actor, ob.ID, documents.UploadRequest{DocumentType: "dpl_signed", GateDefinitionID: "fc_dpl",
		Filename: "a.pdf", ContentType: documents.PDF, SizeBytes: int64(len(pdf))})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Objects.Put(ctx, up.Document.ObjectKey, bytes.NewReader(pdf), int64(len(pdf)), documents.PDF); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Documents.Finalize(ctx, actor, ob.ID, up.Document.ID); err != nil {
		t.Fatal(err)
	}
	if err := a.Documents.Delete(ctx, actor, ob.ID, up.Document.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := a.Documents.Housekeep(ctx, a.Clock.Now().Add(10*24*time.Hour)); err != nil || n != 1 {
		t.Fatalf("housekeep 10 days after the deletion removed %d: %v", n, err)
	}
	if _, err := a.Objects.Stat(ctx, up.Document.ObjectKey); !errs.Is(err, errs.NotFound) {
		t.Fatalf("the object is still stored: %v", err)
	}
}
