package embedded_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"atcp/internal/clock"
	"atcp/internal/objstore"
	"atcp/internal/objstore/embedded"
	"atcp/internal/objstore/objstoretest"
)

type fixture struct {
	store *embedded.Store
	clock *clock.Manual
	srv   *httptest.Server
	dir   string
}

func newFixture(t *testing.T, opts ...embedded.Option) fixture {
	t.Helper()
	f := fixture{clock: clock.NewManual(time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC)), dir: t.TempDir()}
	mux := http.NewServeMux()
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	s, err := embedded.Open(f.dir, f.srv.URL, f.clock, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	mux.Handle(embedded.RoutePrefix, s.Handler())
	f.store = s
	return f
}

func TestEmbedded(t *testing.T) {
	f := newFixture(t)
	objstoretest.Run(t, f.store, f.srv.Client(), objstoretest.Options{Signatures: true})
}

func send(t *testing.T, method, url, contentType string, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

func TestPresignedPutRefusals(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := "org/acme/onboarding/o1/doc/d1"
	up, err := f.store.PresignPut(ctx, key, "image/png", 10, 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if want := f.clock.Now().Add(15 * time.Minute); !up.Expires.Equal(want) {
		t.Errorf("expires %v, want %v", up.Expires, want)
	}
	cases := []struct {
		name, url, contentType string
		body                   io.Reader
		want                   int
	}{
		{"another content type", up.URL, "image/jpeg", strings.NewReader("0123456789"), http.StatusForbidden},
		{"a larger signed size", strings.Replace(up.URL, "size=10", "size=11", 1), "image/png", strings.NewReader("0123456789"), http.StatusForbidden},
		{"a changed signature", up.URL[:len(up.URL)-2] + "AA", "image/png", strings.NewReader("0123456789"), http.StatusForbidden},
		{"no signature", strings.Split(up.URL, "?")[0], "image/png", strings.NewReader("0123456789"), http.StatusForbidden},
		{"a longer expiry", strings.Replace(up.URL, "exp=", "exp=9", 1), "image/png", strings.NewReader("0123456789"), http.StatusForbidden},
		{"a declared length above the size", up.URL, "image/png", strings.NewReader("0123456789A"), http.StatusRequestEntityTooLarge},
		// No Content-Length: the limit is enforced while streaming.
		{"a streamed body above the size", up.URL, "image/png", io.MultiReader(strings.NewReader("0123456789"), strings.NewReader("AB")), http.StatusRequestEntityTooLarge},
	}
	for _, c := range cases {
		if res := send(t, http.MethodPut, c.url, c.contentType, c.body); res.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.name, res.StatusCode, c.want)
		}
		if _, err := f.store.Stat(ctx, key); err == nil {
			t.Fatalf("%s: stored an object", c.name)
		}
	}
	// The server's mux cleans a path with dot segments before the store
	// sees it; either way nothing outside the objects is touched.
	keyBefore, _ := os.ReadFile(filepath.Join(f.dir, embedded.KeyFile))
	traversing := f.srv.URL + "/objects/org/../../objstore.key?" + strings.Split(up.URL, "?")[1]
	if res := send(t, http.MethodPut, traversing, "image/png", strings.NewReader("x")); res.StatusCode == http.StatusOK {
		t.Error("a traversing path was accepted")
	}
	if keyAfter, _ := os.ReadFile(filepath.Join(f.dir, embedded.KeyFile)); !bytes.Equal(keyBefore, keyAfter) {
		t.Error("a traversing path changed the key file")
	}
	if left, _ := os.ReadDir(filepath.Join(f.dir, "objects", ".tmp")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// A shorter upload is stored: finalize compares the size.
	if res := send(t, http.MethodPut, up.URL, "image/png", strings.NewReader("01234")); res.StatusCode != http.StatusOK {
		t.Fatalf("a shorter upload: %d", res.StatusCode)
	}
	f.clock.Advance(15 * time.Minute)
	if res := send(t, http.MethodPut, up.URL, "image/png", strings.NewReader("0123456789")); res.StatusCode != http.StatusForbidden {
		t.Errorf("an expired URL: %d", res.StatusCode)
	}
	if info, _ := f.store.Stat(ctx, key); info.Size != 5 {
		t.Errorf("the expired PUT changed the object: %+v", info)
	}
}

func TestPresignedGet(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := "org/acme/branding/banner/abc"
	if err := f.store.Put(ctx, key, strings.NewReader("<svg/>"), 6, "image/svg+xml"); err != nil {
		t.Fatal(err)
	}
	down, err := f.store.PresignGet(ctx, key, `evil"; name=x.html`, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(down.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || string(body) != "<svg/>" {
		t.Fatalf("GET: %d %q", res.StatusCode, body)
	}
	for h, want := range map[string]string{
		"Content-Type": "application/octet-stream", "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox",
		"Content-Disposition": `attachment; filename*=UTF-8''evil%22%3B%20name%3Dx.html`,
	} {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	// The filename is signed: another one is refused.
	if res := send(t, http.MethodGet, strings.Replace(down.URL, "evil", "good", 1), "", nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("another filename: %d", res.StatusCode)
	}
	f.clock.Advance(5*time.Minute + time.Second)
	if res := send(t, http.MethodGet, down.URL, "", nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("expired: %d", res.StatusCode)
	}
	if res := send(t, http.MethodDelete, down.URL, "", nil); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %d", res.StatusCode)
	}
}

func TestKeyIsKeptAcrossOpens(t *testing.T) {
	dir := t.TempDir()
	clk := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := embedded.Open(dir, "http://a", clk)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fi, err := os.Stat(filepath.Join(dir, embedded.KeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	// A second instance on the same directory signs alike.
	b, err := embedded.Open(dir, "http://a", clk)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pa, _ := a.PresignGet(context.Background(), "k", "f", time.Minute)
	pb, _ := b.PresignGet(context.Background(), "k", "f", time.Minute)
	if pa.URL != pb.URL {
		t.Errorf("two instances sign differently: %s, %s", pa.URL, pb.URL)
	}
	if err := os.WriteFile(filepath.Join(dir, embedded.KeyFile), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := embedded.Open(dir, "http://a", clk); err == nil {
		t.Error("a damaged key file was accepted")
	}
}

func TestValidKey(t *testing.T) {
	for key, want := range map[string]bool{
		"org/acme/onboarding/0b9c/doc/1f2e": true, "a": true, "a.b_c-d": true,
		"": false, "/a": false, "a/": false, "a//b": false, "..": false, "a/../b": false, "./a": false, "a b": false,
		"a\x00b": false, "a\\b": false, strings.Repeat("a", objstore.MaxKeyLength+1): false,
	} {
		if got := objstore.ValidKey(key); got != want {
			t.Errorf("ValidKey(%q) = %v", key, got)
		}
	}
}

func TestPutWritesNothingOnMismatch(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.store.Put(ctx, "a/b", bytes.NewReader([]byte("kept")), 4, ""); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"abc", "abcdef"} {
		if err := f.store.Put(ctx, "a/b", strings.NewReader(body), 5, ""); err != objstore.ErrSizeMismatch {
			t.Fatalf("%q for 5 bytes: %v", body, err)
		}
	}
	if info, err := f.store.Stat(ctx, "a/b"); err != nil || info.Size != 4 {
		t.Fatalf("a mismatched put replaced the object: %+v, %v", info, err)
	}
}

// slowReader yields its bytes in small pieces with a pause before each.
type slowReader struct {
	rest  []byte
	pause time.Duration
}

func (r *slowReader) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		return 0, io.EOF
	}
	time.Sleep(r.pause)
	n := copy(p, r.rest[:min(len(r.rest), 64)])
	r.rest = r.rest[n:]
	return n, nil
}

// TestSlowUpload: an upload that takes longer than the server's read and
// write timeouts (the API's) is not cut off.
func TestSlowUpload(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC))
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = 100*time.Millisecond, 150*time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	s, err := embedded.Open(t.TempDir(), srv.URL, clk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	mux.Handle(embedded.RoutePrefix, s.Handler())
	data := bytes.Repeat([]byte("slow link "), 64) // 640 bytes in 10 pieces, 40 ms apart
	key := "org/acme/onboarding/o1/doc/slow"
	up, err := s.PresignPut(context.Background(), key, "application/pdf", int64(len(data)), 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(up.Method, up.URL, &slowReader{rest: data, pause: 40 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(data))
	req.Header.Set("Content-Type", "application/pdf")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	if info, err := s.Stat(context.Background(), key); err != nil || info.Size != int64(len(data)) {
		t.Fatalf("stored %+v %v", info, err)
	}
}
