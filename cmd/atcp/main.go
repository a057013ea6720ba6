// Command atcp is the Asset Trading and Control Platform server.
//
//	atcp [serve] [flags]              serve the API (the default)
//	atcp migrate [flags]              apply the schema migrations and exit
//	atcp rotate-signing-key [flags]   add a new token signing key (docs/operations.md)
//	atcp rotate-object-key [flags]    replace the embedded object store's URL signing key
//	atcp openapi [flags]              print the OpenAPI document without serving
//	atcp edge --broker URL --asset ID[,ID...]   run simulated batteries as MQTT edge gateways
//	atcp version                      print the version
//
// Every flag is also an ATCP_* environment variable; `atcp serve --help`
// lists them.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"atcp/internal/app"
	"atcp/internal/auth"
	"atcp/internal/config"
	"atcp/internal/objstore/embedded"
	"atcp/internal/objstore/s3"
	"atcp/internal/store"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `atcp: the Asset Trading and Control Platform server

Usage:
  atcp [serve] [flags]              serve the API (default command)
  atcp migrate [flags]              apply the database schema migrations and exit
  atcp rotate-signing-key [flags]   add a new token signing key; the previous one retires
  atcp rotate-object-key [flags]    replace the embedded object store's URL signing key;
                                    the previous one verifies the URLs it signed until they expire
  atcp openapi [flags]              print the OpenAPI document /openapi.json serves, without serving
  atcp edge --broker URL --asset ID[,ID...]
                                    run simulated batteries as MQTT edge gateways (atcp edge --help)
  atcp version                      print the version and exit

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
	case "edge":
		// Not a server: its own flags, none of the server's settings.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return edge(ctx, args, os.LookupEnv, stderr)
	case "serve", "migrate", "rotate-signing-key", "rotate-object-key", "openapi":
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", command, usage)
		return 2
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") && command == "serve" {
		fmt.Fprint(stderr, usage+"\n")
	}
	var rotation rotationFlags
	var commandFlags []func(*flag.FlagSet)
	if command == "rotate-signing-key" {
		commandFlags = append(commandFlags, rotation.register)
	}
	cfg, err := config.Parse(command, args, os.LookupEnv, stderr, commandFlags...)
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
	switch command {
	case "migrate":
		return migrate(ctx, cfg, log)
	case "rotate-signing-key":
		return rotateSigningKey(ctx, cfg, log, stdout, rotation)
	case "rotate-object-key":
		return rotateObjectKey(cfg, log, stdout)
	case "openapi":
		return printOpenAPI(ctx, cfg, log, stdout)
	}
	app.TuneGC(os.LookupEnv)
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
	st, ok := openMigrated(ctx, cfg, log)
	if !ok {
		return 1
	}
	defer st.Close()
	log.Info("schema is up to date", "store", st.Name())
	return 0
}

// openMigrated opens the configured store and brings its schema up to
// date, logging why it could not.
func openMigrated(ctx context.Context, cfg config.Config, log *slog.Logger) (store.Backend, bool) {
	st, err := store.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		log.Error("cannot open the store", "error", err)
		return nil, false
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		log.Error("migration failed", "store", st.Name(), "error", err)
		return nil, false
	}
	return st, true
}

// printOpenAPI writes the document a server with these settings serves at
// /openapi.json (only the base URL shows in it), for linters and client
// generators. It builds the server on an in-memory store, without demo
// data or credentials, and serves nothing.
func printOpenAPI(ctx context.Context, cfg config.Config, log *slog.Logger, stdout io.Writer) int {
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://" + cfg.Addr
	}
	cfg.Addr = "127.0.0.1:0"
	cfg.DatabaseURL = "sqlite::memory:"
	cfg.Demo, cfg.Simulate = false, false
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = "", ""
	cfg.BootstrapAdminEmail, cfg.BootstrapAdminPassword = "", ""
	// The embedded object store's directory and key are thrown away with
	// the store.
	dataDir, err := os.MkdirTemp("", "atcp-openapi-")
	if err != nil {
		log.Error("cannot create a temporary directory", "error", err)
		return 1
	}
	defer os.RemoveAll(dataDir)
	cfg.DataDir, cfg.ObjectStore, cfg.S3 = dataDir, config.ObjectStoreEmbedded, s3.Config{}
	// The server's own warnings (unencrypted signing keys) are about a
	// store that is thrown away.
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler), io.Discard)
	if err != nil {
		log.Error("cannot build the server", "error", err)
		return 1
	}
	defer a.Close()
	doc, err := json.Marshal(a.Server.API.OpenAPI())
	if err == nil {
		_, err = fmt.Fprintf(stdout, "%s\n", doc)
	}
	if err != nil {
		log.Error("cannot write the OpenAPI document", "error", err)
		return 1
	}
	return 0
}

// rotationFlags are the flags of rotate-signing-key beyond the settings.
type rotationFlags struct {
	activateAfter  time.Duration
	revokePrevious bool
}

func (r *rotationFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&r.activateAfter, "activate-after", auth.DefaultKeyActivationDelay,
		"how long the new key is published before it signs: every instance and every verifier caching the JWKS (300 s) learns of it first")
	fs.BoolVar(&r.revokePrevious, "revoke-previous", false,
		"the previous keys are compromised: the new key signs at once (whatever activate-after says) and the previous ones are deleted, so every token they signed stops verifying")
}

// rotateSigningKey adds a new signing key with the settings the servers
// use (database and key-encryption key).
func rotateSigningKey(ctx context.Context, cfg config.Config, log *slog.Logger, stdout io.Writer, r rotationFlags) int {
	if r.activateAfter < 0 {
		log.Error("activate-after must not be negative")
		return 2
	}
	st, ok := openMigrated(ctx, cfg, log)
	if !ok {
		return 1
	}
	defer st.Close()
	k, err := auth.RotateSigningKey(ctx, st, r.activateAfter, r.revokePrevious,
		auth.WithKeyEncryption(cfg.KeyEncryptionKeys), auth.WithKeyLog(log))
	if err != nil {
		log.Error("cannot rotate the signing key", "error", err)
		return 1
	}
	if r.revokePrevious {
		fmt.Fprintf(stdout, "signing key %s signs now; the previous keys are deleted and the tokens they signed stop verifying on every instance within %s\n",
			k.KeyID, auth.KeyReloadEvery)
		return 0
	}
	fmt.Fprintf(stdout, "signing key %s is published now and signs from %s; the previous key retires then and verifies until %s\n",
		k.KeyID, k.ActivatesAt.Format(time.RFC3339), k.ActivatesAt.Add(auth.RetiredKeyLifetime).Format(time.RFC3339))
	return 0
}

// rotateObjectKey puts a new URL signing key first in the embedded object
// store's key file of the data directory the servers use; running servers
// sign with it within a second (embedded.KeyCheckEvery).
func rotateObjectKey(cfg config.Config, log *slog.Logger, stdout io.Writer) int {
	if cfg.ObjectStore != config.ObjectStoreEmbedded {
		log.Error("the object store is not embedded: S3 signs its URLs with the S3 credentials; rotate those at the S3 service")
		return 2
	}
	if err := embedded.RotateKey(cfg.DataDir); err != nil {
		log.Error("cannot rotate the object store key", "error", err)
		return 1
	}
	fmt.Fprintf(stdout, "rotated the object store key in %s: every server signs with the new key within %s; URLs signed with the previous key verify until they expire (15 minutes at most), those of the key before it no longer do\n",
		filepath.Join(cfg.DataDir, embedded.KeyFile), embedded.KeyCheckEvery)
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
