package embedded_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/clock"
	"atcp/internal/objstore/embedded"
	"atcp/internal/testkit"
)

// keyLines returns the lines of the key file.
func keyLines(t *testing.T, dir string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, embedded.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(raw))
}

// fetch calls url and returns the status and the problem's code, if any.
func fetch(t *testing.T, method, url, contentType string, body io.Reader) (int, string) {
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
	defer res.Body.Close()
	var p struct {
		Code string `json:"code"`
	}
	if res.StatusCode != http.StatusOK {
		json.NewDecoder(res.Body).Decode(&p)
	}
	return res.StatusCode, p.Code
}

// TestKeyRotation: a rotation puts a new key first and keeps the current
// one second; a running store signs with the new key within a second,
// URLs signed with the previous key keep working, and those of a key
// dropped by two rotations are refused.
func TestKeyRotation(t *testing.T) {
	var log testkit.LogBuffer
	f := newFixture(t, embedded.WithKeyLog(slog.New(slog.NewTextHandler(&log, nil))))
	ctx := context.Background()
	key := "org/acme/onboarding/o1/doc/d1"
	if err := f.store.Put(ctx, key, strings.NewReader("%PDF-"), 5, "application/pdf"); err != nil {
		t.Fatal(err)
	}
	first := keyLines(t, f.dir)
	if len(first) != 1 {
		t.Fatalf("a new key file holds %d keys", len(first))
	}
	get1, _ := f.store.PresignGet(ctx, key, "a.pdf", 5*time.Minute)
	put1, _ := f.store.PresignPut(ctx, "org/acme/onboarding/o1/doc/d2", "application/pdf", 5, 15*time.Minute)

	if err := embedded.RotateKey(f.dir); err != nil {
		t.Fatal(err)
	}
	second := keyLines(t, f.dir)
	if len(second) != 2 || second[1] != first[0] || second[0] == first[0] {
		t.Fatalf("after a rotation the file holds %d keys; the previous one second: %v", len(second), len(second) == 2 && second[1] == first[0])
	}
	fi, err := os.Stat(filepath.Join(f.dir, embedded.KeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file after a rotation: %v, %v", fi, err)
	}
	if left, _ := filepath.Glob(filepath.Join(f.dir, embedded.KeyFile+".tmp-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	// Within a second of the last look the file is not looked at again.
	if again, _ := f.store.PresignGet(ctx, key, "a.pdf", 5*time.Minute); again.URL != get1.URL {
		t.Fatal("the store looked at the key file again within a second")
	}

	f.clock.Advance(embedded.KeyCheckEvery)
	if status, _ := fetch(t, http.MethodGet, get1.URL, "", nil); status != http.StatusOK {
		t.Fatalf("a GET signed before the rotation: %d", status)
	}
	if status, _ := fetch(t, http.MethodPut, put1.URL, "application/pdf", strings.NewReader("%PDF-")); status != http.StatusOK {
		t.Fatalf("a PUT signed before the rotation: %d", status)
	}
	// The running store now signs like a store opened after the rotation.
	fresh, err := embedded.Open(f.dir, f.srv.URL, f.clock)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	get2, _ := f.store.PresignGet(ctx, key, "a.pdf", 5*time.Minute)
	if want, _ := fresh.PresignGet(ctx, key, "a.pdf", 5*time.Minute); get2.URL != want.URL {
		t.Fatal("the running store does not sign with the new key")
	}

	if err := embedded.RotateKey(f.dir); err != nil {
		t.Fatal(err)
	}
	if third := keyLines(t, f.dir); len(third) != 2 || third[1] != second[0] {
		t.Fatalf("after a second rotation the file holds %d keys", len(third))
	}
	f.clock.Advance(embedded.KeyCheckEvery)
	if status, code := fetch(t, http.MethodGet, get1.URL, "", nil); status != http.StatusForbidden || code != "url_refused" {
		t.Fatalf("a GET signed with a key dropped by two rotations: %d %q", status, code)
	}
	if status, _ := fetch(t, http.MethodGet, get2.URL, "", nil); status != http.StatusOK {
		t.Fatalf("a GET signed with the previous key: %d", status)
	}

	logged := log.String()
	if strings.Count(logged, "object store URL signing keys reloaded") != 2 {
		t.Errorf("the reloads are not logged: %s", logged)
	}
	for _, k := range append(keyLines(t, f.dir), first...) {
		if strings.Contains(strings.ToLower(logged), k) {
			t.Fatalf("the log shows a key: %s", logged)
		}
	}
}

// TestMalformedKeyFile: a damaged key file is refused at start with a
// message naming the file and the line, never its content.
func TestMalformedKeyFile(t *testing.T) {
	good := strings.Repeat("0123456789abcdef", 4)
	other := strings.Repeat("fedcba9876543210", 4)
	clk := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, c := range []struct{ name, content, want string }{
		{"empty", "", "holds no key"},
		{"blank lines", "\n \n", "holds no key"},
		{"short", "short", "line 1 is not a 256-bit key"},
		{"not hex", strings.Repeat("zz", 32), "line 1 is not a 256-bit key"},
		{"too long", good + "00", "line 1 is not a 256-bit key"},
		{"a bad second line", good + "\n" + other[:63] + "\n", "line 2 is not a 256-bit key"},
		{"three keys", good + "\n" + other + "\n" + good + "\n", "holds 3 keys; at most 2"},
		{"not a key file", strings.Repeat(good+"\n", 100), "larger than a key file"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, embedded.KeyFile), []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := embedded.Open(dir, "http://a", clk)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Join(dir, embedded.KeyFile)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), good) || strings.Contains(err.Error(), other[:63]) {
			t.Errorf("%s: the error shows a key: %v", c.name, err)
		}
		if rerr := embedded.RotateKey(dir); rerr == nil || rerr.Error() != err.Error() {
			t.Errorf("%s: rotated a damaged file: %v", c.name, rerr)
		}
	}
	for name, content := range map[string]string{
		"one key": good, "CRLF": good + "\r\n", "two keys": strings.ToUpper(good) + "\n" + other + "\n\n",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, embedded.KeyFile), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := embedded.Open(dir, "http://a", clk)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		s.Close()
	}
	if err := embedded.RotateKey(t.TempDir()); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("rotated a missing key file: %v", err)
	}
}

// TestDamagedKeyFileAtRuntime: a key file damaged while the server runs
// leaves the keys in force (the URLs keep working), is logged once and
// without key material, and a repaired file is picked up.
func TestDamagedKeyFileAtRuntime(t *testing.T) {
	var log testkit.LogBuffer
	f := newFixture(t, embedded.WithKeyLog(slog.New(slog.NewTextHandler(&log, nil))))
	ctx := context.Background()
	key := "org/acme/branding/banner/abc"
	if err := f.store.Put(ctx, key, strings.NewReader("x"), 1, "image/png"); err != nil {
		t.Fatal(err)
	}
	before := keyLines(t, f.dir)
	down, _ := f.store.PresignGet(ctx, key, "b.png", 5*time.Minute)
	file := filepath.Join(f.dir, embedded.KeyFile)
	if err := os.WriteFile(file, []byte(before[0][:40]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		f.clock.Advance(embedded.KeyCheckEvery)
		if status, _ := fetch(t, http.MethodGet, down.URL, "", nil); status != http.StatusOK {
			t.Fatalf("a URL after the key file was damaged: %d", status)
		}
	}
	if n := strings.Count(log.String(), "cannot reload"); n != 1 {
		t.Fatalf("the damage is logged %d times: %s", n, log.String())
	}
	repaired := hex.EncodeToString(bytes.Repeat([]byte{7}, 32))
	if err := os.WriteFile(file, []byte(repaired+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(embedded.KeyCheckEvery)
	if status, code := fetch(t, http.MethodGet, down.URL, "", nil); status != http.StatusForbidden || code != "url_refused" {
		t.Fatalf("a URL of a key no longer in the file: %d %q", status, code)
	}
	if logged := log.String(); strings.Contains(logged, before[0][:40]) || strings.Contains(logged, repaired) {
		t.Fatalf("the log shows key material: %s", logged)
	}
}

// TestConcurrentSigningDuringRotation: requests sign and verify while the
// key file changes (for the race detector); across one rotation every URL
// verifies, whichever key signed it.
func TestConcurrentSigningDuringRotation(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := "org/acme/branding/banner/abc"
	if err := f.store.Put(ctx, key, strings.NewReader("x"), 1, "image/png"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				p, err := f.store.PresignGet(ctx, key, "b.png", 5*time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				res, err := http.Get(p.URL)
				if err != nil {
					t.Error(err)
					return
				}
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					t.Errorf("a fresh URL: %d", res.StatusCode)
					return
				}
			}
		})
	}
	time.Sleep(5 * time.Millisecond)
	if err := embedded.RotateKey(f.dir); err != nil {
		t.Error(err)
	}
	for range 3 {
		f.clock.Advance(embedded.KeyCheckEvery)
		time.Sleep(5 * time.Millisecond)
	}
	wg.Wait()
}
