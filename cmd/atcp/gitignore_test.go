package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"atcp/internal/config"
)

// TestGitignore: what a first run and a build leave in the checkout is
// ignored: the data directory under its default name (it holds the
// bootstrap credentials in plaintext) and the binary.
func TestGitignore(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse("atcp", nil, func(string) (string, bool) { return "", false }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for _, want := range []string{filepath.Base(c.DataDir) + "/", "/atcp", "*.test"} {
		if !slices.Contains(lines, want) {
			t.Errorf(".gitignore lacks %q", want)
		}
	}
}
