// Command atcp is the Asset Trading and Control Platform server.
//
//	atcp [serve] [flags]   serve the API (the default)
//	atcp migrate [flags]   apply the schema migrations and exit
//	atcp version           print the version
//
// Every flag is also an ATCP_* environment variable; `atcp serve --help`
// lists them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"atcp/internal/app"
	"atcp/internal/config"
	"atcp/internal/store"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `atcp: the Asset Trading and Control Platform server

Usage:
  atcp [serve] [flags]   serve the API (default command)
  atcp migrate [flags]   apply the database schema migrations and exit
  atcp version           print the version and exit

Run "atcp serve --help" for the settings; each flag is also an ATCP_* environment variable.
`

func run(args []string, stdout, stderr io.Writer) int {
	command := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		command, args = args[0], args[1:]
	}
	switch command {
	case "version":
		fmt.Fprintln(stdout, "atcp", app.Version)
		return 0
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "serve", "migrate":
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", command, usage)
		return 2
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") && command == "serve" {
		fmt.Fprint(stderr, usage+"\n")
	}
	cfg, err := config.Parse(command, args, os.LookupEnv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "atcp: invalid settings:\n%v\n", err)
		return 2
	}
	logOut := newLogWriter(stderr, 200*time.Millisecond)
	defer logOut.Close()
	log := newLogger(logOut, isTerminal(stderr), cfg.LogLevel)
	slog.SetDefault(log)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if command == "migrate" {
		return migrate(ctx, cfg, log)
	}
	a, err := app.New(ctx, cfg, log, stderr)
	if err != nil {
		log.Error("cannot start", "error", err)
		return 1
	}
	if err := a.Run(ctx); err != nil {
		log.Error("server stopped with an error", "error", err)
		return 1
	}
	return 0
}

func migrate(ctx context.Context, cfg config.Config, log *slog.Logger) int {
	st, err := store.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		log.Error("cannot open the store", "error", err)
		return 1
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		log.Error("migration failed", "store", st.Name(), "error", err)
		return 1
	}
	log.Info("schema is up to date", "store", st.Name())
	return 0
}

// newLogger logs JSON, or text for a person at a terminal.
func newLogger(w io.Writer, terminal bool, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if terminal {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
