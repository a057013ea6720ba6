package config

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"atcp/internal/settlement"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	c, err := Parse("serve", nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || !c.Demo || c.ClockSpeed != 1 || c.RateLimit != 50 || c.LogLevel != slog.LevelInfo || c.ClockStart != nil {
		t.Fatalf("defaults %+v", c)
	}
	if c.ImmediateDispatchMinWindow != 10*time.Second || c.FCRPowerBuffer != 1.25 || !c.Simulate ||
		c.SettlementFinalLag != (settlement.FinalLag{Months: 1}) {
		t.Fatalf("control defaults %+v", c)
	}
	if !strings.HasSuffix(c.DataDir, "atcp-data") {
		t.Fatalf("data dir %q", c.DataDir)
	}
}

func TestFlagBeatsEnvironmentBeatsDefault(t *testing.T) {
	c, err := Parse("serve", []string{"--addr", "127.0.0.1:0"}, env(map[string]string{
		"ATCP_ADDR": "127.0.0.1:9999", "ATCP_RATE_LIMIT": "0", "ATCP_CLOCK_START": "2026-03-29T00:00:00+01:00",
		"ATCP_CLOCK_SPEED": "60", "ATCP_DEMO": "false", "ATCP_LOG_LEVEL": "debug", "ATCP_SETTLEMENT_FINAL_LAG": "6h",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:0" || c.RateLimit != 0 || c.ClockSpeed != 60 || c.Demo || c.LogLevel != slog.LevelDebug ||
		c.SettlementFinalLag != (settlement.FinalLag{Hours: 6}) {
		t.Fatalf("got %+v", c)
	}
	if want := time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC); !c.ClockStart.Equal(want) || c.ClockStart.Location() != time.UTC {
		t.Fatalf("clock start %v", c.ClockStart)
	}
}

func TestInvalidSettingsAreAllReported(t *testing.T) {
	_, err := Parse("serve", nil, env(map[string]string{
		"ATCP_DEMO": "perhaps", "ATCP_CLOCK_START": "tomorrow", "ATCP_CLOCK_SPEED": "0", "ATCP_RATE_LIMIT": "-1",
		"ATCP_LOG_LEVEL": "loud", "ATCP_BOOTSTRAP_CLIENT_ID": "x", "ATCP_BASE_URL": "ftp://x",
		"ATCP_IMMEDIATE_DISPATCH_MIN_WINDOW": "500ms", "ATCP_FCR_POWER_BUFFER": "0.5", "ATCP_SIMULATE": "maybe",
		"ATCP_SETTLEMENT_FINAL_LAG": "a month",
	}), io.Discard)
	if err == nil {
		t.Fatal("invalid settings accepted")
	}
	for _, want := range []string{"demo", "clock-start", "clock-speed", "rate-limit", "log-level", "bootstrap-client", "base-url",
		"immediate-dispatch-min-window", "fcr-power-buffer", "simulate", `settlement-final-lag: "a month" must be whole months`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s: %v", want, err)
		}
	}
}

func TestUnknownFlagAndArgument(t *testing.T) {
	if _, err := Parse("serve", []string{"--nope"}, env(nil), io.Discard); err == nil {
		t.Fatal("unknown flag accepted")
	}
	if _, err := Parse("serve", []string{"extra"}, env(nil), io.Discard); err == nil {
		t.Fatal("stray argument accepted")
	}
}

func TestKeyEncryptionKeys(t *testing.T) {
	const first, second = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA"
	c, err := Parse("serve", nil, env(map[string]string{"ATCP_KEY_ENCRYPTION_KEY": first + ", " + second}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.KeyEncryptionKeys) != 2 || string(c.KeyEncryptionKeys[0]) != "0123456789abcdef0123456789abcdef" ||
		string(c.KeyEncryptionKeys[1]) != "fedcba9876543210fedcba9876543210" {
		t.Fatalf("keys %q", c.KeyEncryptionKeys)
	}
	if c, _ := Parse("serve", nil, env(nil), io.Discard); c.KeyEncryptionKeys != nil {
		t.Fatal("a key-encryption key without the setting")
	}
	for _, bad := range []string{"c2hvcnQ=", "not base64 at all!", first + ",", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWYwMTIz"} {
		_, err := Parse("serve", nil, env(map[string]string{"ATCP_KEY_ENCRYPTION_KEY": bad}), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "key-encryption-key") {
			t.Fatalf("%q accepted: %v", bad, err)
		}
		if strings.Contains(err.Error(), strings.TrimSuffix(bad, ",")) {
			t.Fatalf("the error quotes the secret: %v", err)
		}
	}
}

func TestHelpShowsNoSecretFromTheEnvironment(t *testing.T) {
	var help strings.Builder
	secrets := map[string]string{
		"ATCP_KEY_ENCRYPTION_KEY":       "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
		"ATCP_BOOTSTRAP_CLIENT_SECRET":  "bootstrap-secret-value",
		"ATCP_BOOTSTRAP_ADMIN_PASSWORD": "bootstrap-password-value",
		"ATCP_MQTT_PASSWORD":            "mqtt-password-value",
		"ATCP_NARRATOR_API_KEY":         "narrator-key-value",
		"ATCP_INCIDENT_TOKEN":           "incident-token-value",
		"ATCP_ADDR":                     "127.0.0.1:9999",
	}
	if _, err := Parse("serve", []string{"--help"}, env(secrets), &help); err == nil {
		t.Fatal("--help parsed")
	}
	for name, v := range secrets {
		if shown := strings.Contains(help.String(), v); shown != (name == "ATCP_ADDR") {
			t.Errorf("%s shown in --help: %v", name, shown)
		}
	}
	// The values still apply, and a flag still wins over the variable.
	secrets["ATCP_BOOTSTRAP_CLIENT_ID"], secrets["ATCP_BOOTSTRAP_ADMIN_EMAIL"] = "admin", "admin@example.com"
	secrets["ATCP_MQTT_URL"] = "mqtt://broker"
	secrets["ATCP_NARRATOR_URL"], secrets["ATCP_INCIDENT_URL"] = "http://127.0.0.1:11434/v1", "http://127.0.0.1:9090"
	c, err := Parse("serve", []string{"--bootstrap-client-secret", "from-the-flag-0123"}, env(secrets), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.BootstrapClientSecret != "from-the-flag-0123" || c.BootstrapAdminPassword != "bootstrap-password-value" || len(c.KeyEncryptionKeys) != 1 ||
		c.MQTTPassword != "mqtt-password-value" || c.NarratorAPIKey != "narrator-key-value" || c.IncidentToken != "incident-token-value" {
		t.Fatalf("secrets %+v", c)
	}
}

func TestMQTTSettings(t *testing.T) {
	c, err := Parse("serve", nil, env(nil), io.Discard)
	if err != nil || c.MQTTURL != "" {
		t.Fatalf("default: %q %v", c.MQTTURL, err)
	}
	c, err = Parse("serve", []string{"--mqtt-username", "platform"}, env(map[string]string{
		"ATCP_MQTT_URL": "mqtts://broker.example:8883", "ATCP_MQTT_USERNAME": "other", "ATCP_MQTT_PASSWORD": " p w ",
	}), io.Discard)
	if err != nil || c.MQTTURL != "mqtts://broker.example:8883" || c.MQTTUsername != "platform" || c.MQTTPassword != " p w " {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []map[string]string{
		{"ATCP_MQTT_URL": "tcp://broker"},
		{"ATCP_MQTT_URL": "mqtt://user:hunter2@broker"},
		{"ATCP_MQTT_USERNAME": "platform"},
		{"ATCP_MQTT_PASSWORD": "hunter2"},
	} {
		_, err := Parse("serve", nil, env(bad), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "mqtt-") {
			t.Errorf("%v accepted: %v", bad, err)
		} else if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error quotes the password: %v", err)
		}
	}
}

func TestNarratorAndIncidentSettings(t *testing.T) {
	c, err := Parse("serve", nil, env(nil), io.Discard)
	if err != nil || c.NarratorURL != "" || c.NarratorModel != "gpt-4o-mini" || c.NarratorAPIKey != "" || c.IncidentURL != "" || c.IncidentToken != "" {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	c, err = Parse("serve", []string{"--narrator-model", "llama3.1:8b"}, env(map[string]string{
		"ATCP_NARRATOR_URL": "https://api.openai.com/v1", "ATCP_NARRATOR_MODEL": "gpt-4o", "ATCP_NARRATOR_API_KEY": " sk-x ",
		"ATCP_INCIDENT_URL": "https://incidents.example", "ATCP_INCIDENT_TOKEN": "R0UT1NG",
	}), io.Discard)
	if err != nil || c.NarratorURL != "https://api.openai.com/v1" || c.NarratorModel != "llama3.1:8b" || c.NarratorAPIKey != " sk-x " ||
		c.IncidentURL != "https://incidents.example" || c.IncidentToken != "R0UT1NG" {
		t.Fatalf("set: %+v %v", c, err)
	}
	for _, bad := range []map[string]string{
		{"ATCP_NARRATOR_URL": "api.openai.com/v1"},
		{"ATCP_NARRATOR_URL": "ftp://host/v1"},
		{"ATCP_NARRATOR_API_KEY": "sk-hunter2"},
		{"ATCP_NARRATOR_MODEL": " "},
		{"ATCP_INCIDENT_URL": "https://"},
		{"ATCP_INCIDENT_URL": "https://user:hunter2@:bad"},
		{"ATCP_INCIDENT_TOKEN": "hunter2"},
	} {
		_, err := Parse("serve", nil, env(bad), io.Discard)
		if err == nil || !(strings.Contains(err.Error(), "narrator-") || strings.Contains(err.Error(), "incident-")) {
			t.Fatalf("%v accepted: %v", bad, err)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("the error quotes a secret: %v", err)
		}
	}
}

func TestEventSettings(t *testing.T) {
	c, err := Parse("serve", nil, env(nil), io.Discard)
	if err != nil || c.SMTPURL != "" || c.MailFrom != "" || c.NATSURL != "" {
		t.Fatalf("default: %+v %v", c, err)
	}
	vars := map[string]string{"ATCP_SMTP_URL": "smtps://atcp:hunter2@mail.example", "ATCP_MAIL_FROM": "Leitwarte <leitwarte@atcp.example>",
		"ATCP_NATS_URL": "nats://atcp:hunter2@127.0.0.1:4222"}
	var help strings.Builder
	if _, err := Parse("serve", []string{"--help"}, env(vars), &help); err == nil || strings.Contains(help.String(), "hunter2") {
		t.Fatalf("--help shows a URL's password: %v", err)
	}
	c, err = Parse("serve", nil, env(vars), io.Discard)
	if err != nil || c.SMTPURL != vars["ATCP_SMTP_URL"] || c.MailFrom != vars["ATCP_MAIL_FROM"] || c.NATSURL != vars["ATCP_NATS_URL"] {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []map[string]string{
		{"ATCP_SMTP_URL": "http://atcp:hunter2@mail.example", "ATCP_MAIL_FROM": "a@b.example"},
		{"ATCP_SMTP_URL": "smtp://atcp:hunter2@mail.example"},
		{"ATCP_MAIL_FROM": "a@b.example"},
		{"ATCP_SMTP_URL": "smtp://atcp:hunter2@mail.example", "ATCP_MAIL_FROM": "leitwarte"},
		{"ATCP_NATS_URL": "http://atcp:hunter2@127.0.0.1:4222"},
		{"ATCP_NATS_URL": "127.0.0.1:4222"},
	} {
		_, err := Parse("serve", nil, env(bad), io.Discard)
		if err == nil || !(strings.Contains(err.Error(), "smtp-url") || strings.Contains(err.Error(), "mail-from") ||
			strings.Contains(err.Error(), "nats-url")) {
			t.Errorf("%v accepted: %v", bad, err)
		} else if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error quotes the password: %v", err)
		}
	}
}

func TestObjectStoreSettings(t *testing.T) {
	c, err := Parse("serve", nil, env(nil), io.Discard)
	if err != nil || c.ObjectStore != ObjectStoreEmbedded || c.S3.Endpoint != "" {
		t.Fatalf("default: %q %+v %v", c.ObjectStore, c.S3, err)
	}
	vars := map[string]string{"ATCP_OBJECT_STORE": "s3", "ATCP_S3_ENDPOINT": "https://s3.eu-central-1.amazonaws.com/",
		"ATCP_S3_BUCKET": "atcp-files", "ATCP_S3_REGION": "eu-central-1", "ATCP_S3_ACCESS_KEY": "AKIAEXAMPLE",
		"ATCP_S3_SECRET_KEY": "hunter2-secret", "ATCP_S3_PATH_STYLE": "true"}
	var help strings.Builder
	if _, err := Parse("serve", []string{"--help"}, env(vars), &help); err == nil || strings.Contains(help.String(), "hunter2") {
		t.Fatalf("--help shows the S3 secret key: %v", err)
	}
	c, err = Parse("serve", nil, env(vars), io.Discard)
	if err != nil || c.ObjectStore != ObjectStoreS3 || c.S3.Endpoint != "https://s3.eu-central-1.amazonaws.com" || c.S3.Bucket != "atcp-files" ||
		c.S3.Region != "eu-central-1" || c.S3.AccessKey != "AKIAEXAMPLE" || c.S3.SecretKey != "hunter2-secret" || !c.S3.PathStyle {
		t.Fatalf("%+v %v", c.S3, err)
	}
	for _, bad := range []map[string]string{
		{"ATCP_OBJECT_STORE": "gcs"},
		{"ATCP_S3_BUCKET": "b"},
		{"ATCP_OBJECT_STORE": "s3", "ATCP_S3_BUCKET": "b"},
		{"ATCP_OBJECT_STORE": "s3", "ATCP_S3_ENDPOINT": "https://s3.example"},
		{"ATCP_OBJECT_STORE": "s3", "ATCP_S3_ENDPOINT": "https://key:hunter2@s3.example", "ATCP_S3_BUCKET": "b"},
		{"ATCP_OBJECT_STORE": "s3", "ATCP_S3_ENDPOINT": "https://s3.example", "ATCP_S3_BUCKET": "b", "ATCP_S3_SECRET_KEY": "hunter2"},
		{"ATCP_OBJECT_STORE": "s3", "ATCP_S3_ENDPOINT": "https://s3.example", "ATCP_S3_BUCKET": "b", "ATCP_S3_PATH_STYLE": "yes please"},
	} {
		_, err := Parse("serve", nil, env(bad), io.Discard)
		if err == nil || !(strings.Contains(err.Error(), "object-store") || strings.Contains(err.Error(), "s3-")) {
			t.Errorf("%v accepted: %v", bad, err)
		} else if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error quotes a secret: %v", err)
		}
	}
}

func TestObjectRetentionDays(t *testing.T) {
	c, err := Parse("serve", nil, env(nil), io.Discard)
	if err != nil || c.ObjectRetention != 30*24*time.Hour {
		t.Fatalf("default: %v %v", c.ObjectRetention, err)
	}
	for _, ok := range []struct {
		args []string
		vars map[string]string
		want time.Duration
	}{
		{nil, map[string]string{"ATCP_OBJECT_RETENTION_DAYS": "7"}, 7 * 24 * time.Hour},
		{nil, map[string]string{"ATCP_OBJECT_RETENTION_DAYS": "1"}, 24 * time.Hour},
		{[]string{"--object-retention-days", "3650"}, map[string]string{"ATCP_OBJECT_RETENTION_DAYS": "7"}, 3650 * 24 * time.Hour},
	} {
		c, err := Parse("serve", ok.args, env(ok.vars), io.Discard)
		if err != nil || c.ObjectRetention != ok.want {
			t.Errorf("%v %v: %v %v, want %v", ok.args, ok.vars, c.ObjectRetention, err, ok.want)
		}
	}
	for _, bad := range []string{"0", "-1", "3651", "7.5", "7d", "ten", ""} {
		_, err := Parse("serve", nil, env(map[string]string{"ATCP_OBJECT_RETENTION_DAYS": bad}), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "object-retention-days") || !strings.Contains(err.Error(), "from 1 to 3650") {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
}
