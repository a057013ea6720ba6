package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestLogWriterFlushesOnIntervalAndClose(t *testing.T) {
	var out lockedBuffer
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
