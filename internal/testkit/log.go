package testkit

import (
	"io"
	"log/slog"
	"os"
)

// quietLogger discards access logs unless ATCP_TEST_LOG is set.
func quietLogger() *slog.Logger {
	if os.Getenv("ATCP_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
