// Package config reads the server's settings (contract section 2): each is
// a command-line flag and an ATCP_* environment variable; a flag wins over
// the variable, the variable over the default.
package config

import (
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"atcp/internal/adapters/mqtt"
	"atcp/internal/alarms/narrator"
	"atcp/internal/events/mail"
	"atcp/internal/objstore/s3"
	"atcp/internal/onboarding/documents"
	"atcp/internal/settlement"
)

// day is a day of ATCP_OBJECT_RETENTION_DAYS: 24 hours of platform time.
const day = 24 * time.Hour

// maxObjectRetentionDays bounds ATCP_OBJECT_RETENTION_DAYS at ten years.
const maxObjectRetentionDays = 3650

// Config holds every setting.
type Config struct {
	Addr                   string
	BaseURL                string // empty: http://<listen address>
	DatabaseURL            string
	DataDir                string
	Demo                   bool
	ClockStart             *time.Time
	ClockSpeed             float64
	BootstrapClientID      string
	BootstrapClientSecret  string
	BootstrapAdminEmail    string
	BootstrapAdminPassword string
	RateLimit              float64
	LogLevel               slog.Level
	ShutdownTimeout        time.Duration
	// ImmediateDispatchMinWindow is the shortest immediate dispatch
	// (document 1 Limits; 400 below it).
	ImmediateDispatchMinWindow time.Duration
	// FCRPowerBuffer scales reserved FCR capacity in the wholesale
	// headroom rule (document 2, scheduled dispatch).
	FCRPowerBuffer float64
	// Simulate runs the battery simulator as the asset adapter of every
	// asset (the control loop); without it no asset is steered or measured.
	Simulate bool
	// KeyEncryptionKeys seal the token signing keys at rest: the first
	// seals, each one opens (the others are previous keys during a
	// rotation). Empty: the signing keys are stored unencrypted.
	KeyEncryptionKeys [][]byte
	// MQTTURL is the broker of the assets registered with adapter mqtt
	// (docs/adapters.md); empty: no broker. MQTTUsername and MQTTPassword
	// authenticate the platform to it.
	MQTTURL      string
	MQTTUsername string
	MQTTPassword string
	// NarratorURL is the OpenAI-compatible endpoint of the fault-message
	// draft (docs/fault-messages.md); empty: the draft answers 503.
	// NarratorAPIKey is a secret.
	NarratorURL    string
	NarratorModel  string
	NarratorAPIKey string
	// IncidentURL is the incident tool shaped like PagerDuty
	// (docs/incidents.md); empty: no incident is opened or found.
	// IncidentToken is a secret.
	IncidentURL   string
	IncidentToken string
	// SMTPURL is the mail server of the e-mail events (docs/events.md),
	// MailFrom their sender; empty: e-mail events are not sent. NATSURL
	// is the NATS JetStream server every event is also published to;
	// empty: no event bus.
	SMTPURL  string
	MailFrom string
	NATSURL  string
	// SettlementFinalLag is how long after publication (00:00 Berlin the
	// day after delivery) settlement figures become FINAL
	// (docs/settlement.md).
	SettlementFinalLag settlement.FinalLag
	// ObjectStore is where uploaded files are kept (docs/onboarding.md
	// section 6): ObjectStoreEmbedded (files under DataDir, presigned URLs
	// served by atcp; one instance or a shared data directory) or
	// ObjectStoreS3 with S3. S3.SecretKey is a secret.
	ObjectStore string
	S3          s3.Config
	// ObjectRetention is how long (platform time, whole days) the object
	// of a deleted onboarding document is kept before the housekeeping
	// removes it (docs/onboarding.md section 6).
	ObjectRetention time.Duration
}

// The object store backends of ATCP_OBJECT_STORE.
const (
	ObjectStoreEmbedded = "embedded"
	ObjectStoreS3       = "s3"
)

// setting describes one flag/variable pair.
type setting struct {
	flag, env, def, usage string
}

// secrets are the settings whose value from the environment is not made
// the flag's default, which --help would print.
var secrets = map[string]bool{"bootstrap-client-secret": true, "bootstrap-admin-password": true, "key-encryption-key": true, "mqtt-password": true,
	"narrator-api-key": true, "incident-token": true, "smtp-url": true, "nats-url": true, "s3-secret-key": true}

var settings = []setting{
	{"addr", "ATCP_ADDR", "127.0.0.1:8080", "listen address; port 0 picks a free port"},
	{"base-url", "ATCP_BASE_URL", "", "public base URL, also the OIDC issuer (default http://<listen address>)"},
	{"database-url", "ATCP_DATABASE_URL", "", "postgres://... for PostgreSQL, sqlite:///path/file.db, sqlite::memory: (default: <data-dir>/atcp.db)"},
	{"data-dir", "ATCP_DATA_DIR", "./atcp-data", "directory of the embedded database and generated files"},
	{"demo", "ATCP_DEMO", "true", "seed the demonstration environment on first start; false for production"},
	{"clock-start", "ATCP_CLOCK_START", "", "RFC 3339 instant the platform clock starts at (default: the demo bidding day 07:00 Europe/Berlin in demo mode, else real time)"},
	{"clock-speed", "ATCP_CLOCK_SPEED", "1", "platform seconds per real second"},
	{"bootstrap-client-id", "ATCP_BOOTSTRAP_CLIENT_ID", "", "create (if absent) a platform-administrator integration with this client id"},
	{"bootstrap-client-secret", "ATCP_BOOTSTRAP_CLIENT_SECRET", "", "secret of the bootstrap integration"},
	{"bootstrap-admin-email", "ATCP_BOOTSTRAP_ADMIN_EMAIL", "", "create (if absent) a human platform administrator with this email"},
	{"bootstrap-admin-password", "ATCP_BOOTSTRAP_ADMIN_PASSWORD", "", "password of the bootstrap administrator"},
	{"rate-limit", "ATCP_RATE_LIMIT", "50", "sustained requests per second per caller (burst twice that); 0 disables"},
	{"log-level", "ATCP_LOG_LEVEL", "info", "debug, info, warn or error"},
	{"shutdown-timeout", "ATCP_SHUTDOWN_TIMEOUT", "20s", "how long graceful shutdown waits for requests in flight"},
	{"immediate-dispatch-min-window", "ATCP_IMMEDIATE_DISPATCH_MIN_WINDOW", "10s", "shortest immediate dispatch window (shorter is refused with 400)"},
	{"fcr-power-buffer", "ATCP_FCR_POWER_BUFFER", "1.25", "factor on reserved FCR capacity held back from wholesale dispatch (regulatory buffer), 1 to 2"},
	{"simulate", "ATCP_SIMULATE", "true", "steer and measure every asset through the built-in battery simulator"},
	{"key-encryption-key", "ATCP_KEY_ENCRYPTION_KEY", "", "base64 of 32 random bytes that encrypts the token signing keys at rest; during a rotation new,previous (prefer the variable: flags show in the process list)"},
	{"mqtt-url", "ATCP_MQTT_URL", "", "MQTT v5 broker of the assets with adapter mqtt: mqtt://host:port, mqtts://host:port for TLS"},
	{"mqtt-username", "ATCP_MQTT_USERNAME", "", "user name atcp connects to the MQTT broker with"},
	{"mqtt-password", "ATCP_MQTT_PASSWORD", "", "password atcp connects to the MQTT broker with (prefer the variable: flags show in the process list)"},
	{"narrator-url", "ATCP_NARRATOR_URL", "", "OpenAI-compatible API base URL of the fault-message draft, such as https://api.openai.com/v1 (unset: the draft answers 503)"},
	{"narrator-model", "ATCP_NARRATOR_MODEL", narrator.DefaultModel, "model the fault-message draft asks"},
	{"narrator-api-key", "ATCP_NARRATOR_API_KEY", "", "API key of the narrator endpoint, sent as a bearer token (prefer the variable: flags show in the process list)"},
	{"incident-url", "ATCP_INCIDENT_URL", "", "base URL of the incident tool shaped like PagerDuty: Events API v2 at /v2/enqueue, REST at /incidents (unset: no incidents)"},
	{"incident-token", "ATCP_INCIDENT_TOKEN", "", "routing key and API token of the incident tool (prefer the variable: flags show in the process list)"},
	{"smtp-url", "ATCP_SMTP_URL", "", "SMTP server of e-mail notifications: smtp://user:pass@host:port (STARTTLS when offered), smtps://... for implicit TLS (prefer the variable: it holds a password)"},
	{"mail-from", "ATCP_MAIL_FROM", "", "sender of e-mail notifications: name@example.com or Name <name@example.com>; needed with smtp-url"},
	{"nats-url", "ATCP_NATS_URL", "", "NATS server with JetStream that every event is also published to: nats://host:4222 (tls://... for TLS)"},
	{"object-store", "ATCP_OBJECT_STORE", ObjectStoreEmbedded, "where uploaded files are kept: embedded (files under data-dir, served by atcp; one instance) or s3 (the ATCP_S3_* settings)"},
	{"s3-endpoint", "ATCP_S3_ENDPOINT", "", "base URL of the S3-compatible service with object-store s3: https://host[:port] (http:// only on a trusted network)"},
	{"s3-bucket", "ATCP_S3_BUCKET", "", "bucket of the uploaded files with object-store s3; keep it private"},
	{"s3-region", "ATCP_S3_REGION", "", "region of the bucket (empty: the service's default)"},
	{"s3-access-key", "ATCP_S3_ACCESS_KEY", "", "access key id atcp signs S3 requests with"},
	{"s3-secret-key", "ATCP_S3_SECRET_KEY", "", "secret access key atcp signs S3 requests with (prefer the variable: flags show in the process list)"},
	{"s3-path-style", "ATCP_S3_PATH_STYLE", "false", "address the bucket as host/bucket instead of bucket.host (MinIO and most self-hosted services)"},
	{"object-retention-days", "ATCP_OBJECT_RETENTION_DAYS", strconv.Itoa(int(documents.DefaultDeletedRetention / day)),
		"days (platform time) the files of deleted onboarding documents are kept before they are removed, 1 to 3650"},
	{"settlement-final-lag", "ATCP_SETTLEMENT_FINAL_LAG", settlement.DefaultFinalLag.String(), "how long after publication (00:00 Europe/Berlin the day after delivery) settlement figures become FINAL: months M, days d, hours h, such as 1M, 10d, 6h or 1M9d"},
}

// Parse reads the settings from args (without the program and command
// names) and the environment lookup function. commandFlags register the
// flags of a command beyond the settings on the same flag set.
func Parse(name string, args []string, lookupEnv func(string) (string, bool), output io.Writer, commandFlags ...func(*flag.FlagSet)) (Config, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(output)
	values := map[string]*string{}
	for _, s := range settings {
		def := s.def
		if v, ok := lookupEnv(s.env); ok && !secrets[s.flag] {
			def = v
		}
		values[s.flag] = fs.String(s.flag, def, s.usage+" ["+s.env+"]")
	}
	for _, register := range commandFlags {
		register(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(output, "Usage: atcp %s [flags]\n\nEvery flag can also be set by the environment variable in brackets.\n\n", name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, s := range settings {
		if v, ok := lookupEnv(s.env); ok && secrets[s.flag] && !given[s.flag] {
			*values[s.flag] = v
		}
	}
	get := func(f string) string { return strings.TrimSpace(*values[f]) }

	c := Config{
		Addr: get("addr"), BaseURL: strings.TrimRight(get("base-url"), "/"), DatabaseURL: get("database-url"),
		DataDir:           get("data-dir"),
		BootstrapClientID: get("bootstrap-client-id"), BootstrapClientSecret: *values["bootstrap-client-secret"],
		BootstrapAdminEmail: get("bootstrap-admin-email"), BootstrapAdminPassword: *values["bootstrap-admin-password"],
		MQTTURL: get("mqtt-url"), MQTTUsername: get("mqtt-username"), MQTTPassword: *values["mqtt-password"],
		NarratorURL: get("narrator-url"), NarratorModel: get("narrator-model"), NarratorAPIKey: *values["narrator-api-key"],
		IncidentURL: get("incident-url"), IncidentToken: *values["incident-token"],
		SMTPURL: get("smtp-url"), MailFrom: get("mail-from"), NATSURL: get("nats-url"),
		ObjectStore: get("object-store"),
		S3: s3.Config{Endpoint: strings.TrimRight(get("s3-endpoint"), "/"), Bucket: get("s3-bucket"), Region: get("s3-region"),
			AccessKey: get("s3-access-key"), SecretKey: *values["s3-secret-key"]},
	}
	var errList []error
	var err error
	if c.Demo, err = strconv.ParseBool(get("demo")); err != nil {
		errList = append(errList, fmt.Errorf("demo: %q is not a boolean", get("demo")))
	}
	if s := get("clock-start"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			errList = append(errList, fmt.Errorf("clock-start: %q is not an RFC 3339 instant", s))
		} else {
			t = t.UTC()
			c.ClockStart = &t
		}
	}
	if c.ClockSpeed, err = strconv.ParseFloat(get("clock-speed"), 64); err != nil || c.ClockSpeed <= 0 || c.ClockSpeed > 10000 {
		errList = append(errList, fmt.Errorf("clock-speed: %q must be a number above 0 and at most 10000", get("clock-speed")))
	}
	if c.RateLimit, err = strconv.ParseFloat(get("rate-limit"), 64); err != nil || c.RateLimit < 0 {
		errList = append(errList, fmt.Errorf("rate-limit: %q must be a number of at least 0", get("rate-limit")))
	}
	if err := c.LogLevel.UnmarshalText([]byte(get("log-level"))); err != nil {
		errList = append(errList, fmt.Errorf("log-level: %q must be debug, info, warn or error", get("log-level")))
	}
	if c.ShutdownTimeout, err = time.ParseDuration(get("shutdown-timeout")); err != nil || c.ShutdownTimeout <= 0 {
		errList = append(errList, fmt.Errorf("shutdown-timeout: %q must be a positive duration such as 20s", get("shutdown-timeout")))
	}
	if c.ImmediateDispatchMinWindow, err = time.ParseDuration(get("immediate-dispatch-min-window")); err != nil ||
		c.ImmediateDispatchMinWindow < time.Second || c.ImmediateDispatchMinWindow > time.Hour {
		errList = append(errList, fmt.Errorf("immediate-dispatch-min-window: %q must be a duration from 1s to 1h", get("immediate-dispatch-min-window")))
	}
	if c.FCRPowerBuffer, err = strconv.ParseFloat(get("fcr-power-buffer"), 64); err != nil || !(c.FCRPowerBuffer >= 1 && c.FCRPowerBuffer <= 2) {
		errList = append(errList, fmt.Errorf("fcr-power-buffer: %q must be a number from 1 to 2", get("fcr-power-buffer")))
	}
	if c.Simulate, err = strconv.ParseBool(get("simulate")); err != nil {
		errList = append(errList, fmt.Errorf("simulate: %q is not a boolean", get("simulate")))
	}
	if c.SettlementFinalLag, err = settlement.ParseFinalLag(get("settlement-final-lag")); err != nil {
		errList = append(errList, fmt.Errorf("settlement-final-lag: %w", err))
	}
	if c.KeyEncryptionKeys, err = parseKeyEncryptionKeys(get("key-encryption-key")); err != nil {
		errList = append(errList, err)
	}
	if (c.BootstrapClientID == "") != (c.BootstrapClientSecret == "") {
		errList = append(errList, errors.New("bootstrap-client-id and bootstrap-client-secret must be set together"))
	}
	if (c.BootstrapAdminEmail == "") != (c.BootstrapAdminPassword == "") {
		errList = append(errList, errors.New("bootstrap-admin-email and bootstrap-admin-password must be set together"))
	}
	if c.MQTTURL != "" {
		if _, err := mqtt.ParseBrokerURL(c.MQTTURL); err != nil {
			errList = append(errList, fmt.Errorf("mqtt-url: %w", err))
		}
	} else if c.MQTTUsername != "" || c.MQTTPassword != "" {
		errList = append(errList, errors.New("mqtt-username and mqtt-password need mqtt-url"))
	}
	for _, u := range []struct{ name, url, secret string }{{"narrator", c.NarratorURL, c.NarratorAPIKey}, {"incident", c.IncidentURL, c.IncidentToken}} {
		if u.url == "" && u.secret != "" {
			errList = append(errList, fmt.Errorf("%s-url must be set with its key or token", u.name))
		} else if p, err := url.Parse(u.url); u.url != "" && (err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "") {
			errList = append(errList, fmt.Errorf("%s-url must be an http:// or https:// URL", u.name)) // unquoted: it may hold credentials
		}
	}
	if c.NarratorModel == "" {
		errList = append(errList, errors.New("narrator-model must not be empty"))
	}
	errList = append(errList, checkEvents(c)...)
	if c.S3.PathStyle, err = strconv.ParseBool(get("s3-path-style")); err != nil {
		errList = append(errList, fmt.Errorf("s3-path-style: %q is not a boolean", get("s3-path-style")))
	}
	errList = append(errList, checkObjectStore(c)...)
	if days, err := strconv.Atoi(get("object-retention-days")); err != nil || days < 1 || days > maxObjectRetentionDays {
		errList = append(errList, fmt.Errorf("object-retention-days: %q must be a whole number of days from 1 to %d", get("object-retention-days"), maxObjectRetentionDays))
	} else {
		c.ObjectRetention = time.Duration(days) * day
	}
	if c.BaseURL != "" && !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
		errList = append(errList, fmt.Errorf("base-url: %q must start with http:// or https://", c.BaseURL))
	}
	if c.DataDir == "" {
		errList = append(errList, errors.New("data-dir must not be empty"))
	} else if abs, err := filepath.Abs(c.DataDir); err == nil {
		c.DataDir = abs
	}
	return c, errors.Join(errList...)
}

// checkEvents checks the event bus settings; the errors never quote a
// URL, which may hold a password.
func checkEvents(c Config) []error {
	var errList []error
	if c.SMTPURL != "" {
		if _, err := mail.ParseURL(c.SMTPURL); err != nil {
			errList = append(errList, fmt.Errorf("smtp-url: %w", err))
		}
		if c.MailFrom == "" {
			errList = append(errList, errors.New("mail-from is needed with smtp-url"))
		}
	} else if c.MailFrom != "" {
		errList = append(errList, errors.New("mail-from needs smtp-url"))
	}
	if c.MailFrom != "" {
		if _, err := mail.ParseFrom(c.MailFrom); err != nil {
			errList = append(errList, fmt.Errorf("mail-from: %w", err))
		}
	}
	if c.NATSURL != "" {
		u, err := url.Parse(c.NATSURL)
		if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
			errList = append(errList, errors.New("nats-url: want nats://host:4222, or tls://host:4222 for TLS"))
		}
	}
	return errList
}

// checkObjectStore checks the object store settings; the errors never
// quote the secret key.
func checkObjectStore(c Config) []error {
	s3Set := c.S3.Endpoint != "" || c.S3.Bucket != "" || c.S3.Region != "" || c.S3.AccessKey != "" || c.S3.SecretKey != ""
	switch c.ObjectStore {
	case ObjectStoreEmbedded:
		if s3Set {
			return []error{errors.New("the s3-* settings need object-store s3")}
		}
	case ObjectStoreS3:
		var errList []error
		if err := c.S3.Check(); err != nil {
			errList = append(errList, err)
		}
		if (c.S3.AccessKey == "") != (c.S3.SecretKey == "") {
			errList = append(errList, errors.New("s3-access-key and s3-secret-key must be set together"))
		}
		return errList
	default:
		return []error{fmt.Errorf("object-store: %q must be embedded or s3", c.ObjectStore)}
	}
	return nil
}

// parseKeyEncryptionKeys decodes a comma-separated list of base64 keys of
// 32 bytes each. The error never quotes the value: it is a secret.
func parseKeyEncryptionKeys(s string) ([][]byte, error) {
	if s == "" {
		return nil, nil
	}
	var keys [][]byte
	for i, part := range strings.Split(s, ",") {
		key, ok := decodeBase64(strings.TrimSpace(part))
		if !ok || len(key) != 32 {
			return nil, fmt.Errorf("key-encryption-key: key %d is not 32 bytes in base64 (generate one with: openssl rand -base64 32)", i+1)
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// decodeBase64 accepts standard and URL-safe base64, padded or not.
func decodeBase64(s string) ([]byte, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}

// FromEnvironment is Parse with the process environment.
func FromEnvironment(name string, args []string) (Config, error) {
	return Parse(name, args, os.LookupEnv, os.Stderr)
}
