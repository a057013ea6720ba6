package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/objstore/embedded"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func TestLogWriterFlushesOnIntervalAndClose(t *testing.T) {
	var out testkit.LogBuffer
	w := newLogWriter(&out, 20*time.Millisecond)
	_, _ = w.Write([]byte("first\n"))
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(out.String(), "first") {
		if time.Now().After(deadline) {
			t.Fatal("record not flushed within the interval")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, _ = w.Write([]byte("last\n"))
	w.Close()
	if out.String() != "first\nlast\n" {
		t.Fatalf("got %q", out.String())
	}
}

func TestCommands(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"version"}, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "atcp ") {
		t.Fatalf("version: %d %q", code, stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"frobnicate"}, &stdout, &stderr); code != 2 {
		t.Fatalf("unknown command exit %d", code)
	}
	stderr.Reset()
	if code := run([]string{"serve", "--help"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "ATCP_DATABASE_URL") {
		t.Fatalf("serve --help: %d %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"serve", "--clock-speed", "fast"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "clock-speed") {
		t.Fatalf("invalid setting: %d %q", code, stderr.String())
	}
}

func TestMigrateCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	if code := run([]string{"migrate", "--data-dir", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("migrate: %d %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "schema is up to date") {
		t.Fatalf("migrate said %q", stderr.String())
	}
}

func TestRotateSigningKeyCommand(t *testing.T) {
	dir := t.TempDir()
	keys := func() []auth.SigningKey {
		t.Helper()
		st, err := store.Open(context.Background(), "", dir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		k, err := st.SigningKeys(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	rotate := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"rotate-signing-key", "--data-dir", dir}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	t.Setenv("ATCP_KEY_ENCRYPTION_KEY", base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	before := time.Now()
	code, out, errOut := rotate()
	if code != 0 || !strings.Contains(out, "signs from") {
		t.Fatalf("rotate: %d %q %s", code, out, errOut)
	}
	k := keys()
	if len(k) != 2 || !strings.Contains(out, k[1].KeyID) || !k[0].RetiredAt.Equal(k[1].ActivatesAt) {
		t.Fatalf("after a rotation: %+v", k)
	}
	if d := k[1].ActivatesAt.Sub(before); d < auth.DefaultKeyActivationDelay || d > auth.DefaultKeyActivationDelay+time.Minute {
		t.Fatalf("the new key activates after %v", d)
	}
	for _, key := range k {
		if !strings.HasPrefix(key.PrivateKey, "atcp-kek-v1:") {
			t.Fatalf("key %s stored unencrypted", key.KeyID)
		}
	}

	// Without the key-encryption key the servers could not open the keys:
	// nor does the command, and it adds none.
	t.Setenv("ATCP_KEY_ENCRYPTION_KEY", "")
	if code, _, errOut := rotate(); code != 1 || !strings.Contains(errOut, "ATCP_KEY_ENCRYPTION_KEY") {
		t.Fatalf("rotate without the key-encryption key: %d %s", code, errOut)
	}
	if code, _, _ := rotate("--activate-after", "-1s"); code != 2 {
		t.Fatalf("negative delay: exit %d", code)
	}
	if len(keys()) != 2 {
		t.Fatal("a refused rotation stored a key")
	}

	t.Setenv("ATCP_KEY_ENCRYPTION_KEY", base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	code, out, errOut = rotate("--revoke-previous")
	if code != 0 || !strings.Contains(out, "signs now") {
		t.Fatalf("revoke: %d %q %s", code, out, errOut)
	}
	if k := keys(); len(k) != 1 || !strings.Contains(out, k[0].KeyID) {
		t.Fatalf("after revoking: %+v", k)
	}
}

func TestOpenAPICommand(t *testing.T) {
	t.Setenv("ATCP_DATABASE_URL", "postgres://nobody@127.0.0.1:1/none") // never opened
	var stdout, stderr bytes.Buffer
	if code := run([]string{"openapi", "--base-url", "https://atcp.example", "--data-dir", t.TempDir()}, &stdout, &stderr); code != 0 {
		t.Fatalf("openapi: %d %s", code, stderr.String())
	}
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Servers []struct{ URL string }    `json:"servers"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if doc.OpenAPI != "3.1.0" || len(doc.Servers) != 1 || doc.Servers[0].URL != "https://atcp.example" {
		t.Fatalf("openapi %q, servers %+v", doc.OpenAPI, doc.Servers)
	}
	for _, path := range []string{"/v1/assets", "/oauth2/token", "/healthz"} {
		if doc.Paths[path] == nil {
			t.Errorf("%s is not in the document", path)
		}
	}
}

func TestRotateObjectKeyCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, embedded.KeyFile)
	rotate := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"rotate-object-key", "--data-dir", dir}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	lines := func() []string {
		t.Helper()
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(raw))
	}

	// Before a server created the key file: most likely the wrong
	// directory, so nothing is created.
	if code, _, errOut := rotate(); code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Fatalf("rotate without a key file: %d %s", code, errOut)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("a refused rotation created the key file")
	}

	clk := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s, err := embedded.Open(dir, "http://atcp.test", clk)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := lines()
	code, out, errOut := rotate()
	if code != 0 || !strings.Contains(out, "rotated the object store key in "+file) {
		t.Fatalf("rotate: %d %q %s", code, out, errOut)
	}
	after := lines()
	if len(after) != 2 || after[1] != before[0] || after[0] == before[0] {
		t.Fatalf("after a rotation the file holds %d keys", len(after))
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	if code, out, errOut := rotate(); code != 0 || strings.Contains(out+errOut, after[0]) || strings.Contains(out+errOut, after[1]) {
		t.Fatalf("second rotation: %d, or it shows a key: %q %s", code, out, errOut)
	}
	if again := lines(); len(again) != 2 || again[1] != after[0] {
		t.Fatalf("after a second rotation the file holds %d keys", len(again))
	}

	t.Setenv("ATCP_OBJECT_STORE", "s3")
	t.Setenv("ATCP_S3_ENDPOINT", "https://s3.example")
	t.Setenv("ATCP_S3_BUCKET", "atcp")
	if code, _, errOut := rotate(); code != 2 || !strings.Contains(errOut, "not embedded") {
		t.Fatalf("rotate with s3: %d %s", code, errOut)
	}
}

// TestServeRefusesADamagedObjectKey: the server does not start with a
// key file it cannot read, and says which file and line, not what it holds.
func TestServeRefusesADamagedObjectKey(t *testing.T) {
	dir := t.TempDir()
	damaged := strings.Repeat("ab", 31)
	if err := os.WriteFile(filepath.Join(dir, embedded.KeyFile), []byte(damaged+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0", "--demo=false", "--simulate=false"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), embedded.KeyFile+" line 1 is not a 256-bit key") || strings.Contains(stderr.String(), damaged) {
		t.Fatalf("serve with a damaged key file: %d %s", code, stderr.String())
	}
}
