package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"atcp/internal/auth"
	"atcp/internal/identity"
)

// Generated demo credentials are written here (mode 0600) on the first
// start, and not generated again while the file exists.
const credentialsFile = "bootstrap-credentials.txt"

// bootstrap creates what must exist before anyone can sign in: the
// platform organisation, the configured bootstrap integration and
// administrator, and in demo mode the demonstration organisation and asset
// (with generated credentials when none are configured).
func (a *App) bootstrap(ctx context.Context) error {
	if err := a.Directory.EnsureOrganization(ctx, auth.PlatformOrganization, "Platform operator"); err != nil {
		return err
	}
	all := auth.NewScopeSet(auth.AllScopes...)
	cfg := a.Config
	if cfg.BootstrapClientID != "" {
		if err := a.Clients.EnsureIntegration(ctx, auth.PlatformOrganization, cfg.BootstrapClientID, bootstrapIntegrationName(cfg.BootstrapClientID), cfg.BootstrapClientSecret, all); err != nil {
			return err
		}
	}
	if cfg.BootstrapAdminEmail != "" {
		if err := a.Directory.EnsureUser(ctx, auth.PlatformOrganization, cfg.BootstrapAdminEmail, cfg.BootstrapAdminPassword, all); err != nil {
			return err
		}
	}
	if !cfg.Demo {
		return nil
	}
	if err := a.seedDemo(ctx); err != nil {
		return err
	}
	if cfg.BootstrapClientID != "" || cfg.BootstrapAdminEmail != "" {
		return nil
	}
	return a.generateCredentials(ctx, all)
}

// bootstrapIntegrationName names the bootstrap integration after its client
// id, so that a changed ATCP_BOOTSTRAP_CLIENT_ID (rotated credentials, two
// deployments on one database) adds an integration beside the old one
// instead of colliding with its name; the old one stays until deleted.
func bootstrapIntegrationName(clientID string) string {
	name := []rune("bootstrap " + clientID)
	if len(name) > identity.MaxIntegrationNameLength {
		name = name[:identity.MaxIntegrationNameLength]
	}
	return string(name)
}

func (a *App) generateCredentials(ctx context.Context, all auth.ScopeSet) error {
	path := filepath.Join(a.Config.DataDir, credentialsFile)
	if _, err := os.Stat(path); err == nil {
		a.Log.Info("bootstrap credentials were generated on an earlier start", "file", path)
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	clientID := "atcp-admin-" + strings.ToLower(auth.RandomToken(6))
	secret := "atcp_" + auth.RandomToken(32)
	email := "admin@atcp.example"
	password := auth.RandomToken(18)
	if err := a.Clients.EnsureIntegration(ctx, auth.PlatformOrganization, clientID, bootstrapIntegrationName(clientID), secret, all); err != nil {
		return err
	}
	if err := a.Directory.EnsureUser(ctx, auth.PlatformOrganization, email, password, all); err != nil {
		return err
	}
	text := a.credentialsText(clientID, secret, email, password)
	if err := os.MkdirAll(a.Config.DataDir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprint(a.notices, text+"\n(also written to "+path+")\n\n")
	return nil
}

// credentialsText explains the generated credentials with a working curl
// example: get a token, list the assets.
func (a *App) credentialsText(clientID, secret, email, password string) string {
	base := a.baseURL
	return fmt.Sprintf(`atcp bootstrap credentials (platform administrator, every scope), shown once:

  integration  client_id=%[1]s
               client_secret=%[2]s
  person       email=%[3]s  password=%[4]s  (sign in at %[5]s/oauth2/authorize with the atcp-console client)

Get a token and list the assets:

  TOKEN=$(curl -s -u '%[1]s:%[2]s' -d grant_type=client_credentials %[5]s/oauth2/token \
    | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
  curl -s -H "Authorization: Bearer $TOKEN" %[5]s/v1/assets

The API is described at %[5]s/openapi.json.
`, clientID, secret, email, password, base)
}
