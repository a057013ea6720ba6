package contacts

import (
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"atcp/internal/errs"
	"atcp/internal/textrule"
)

// Limits of a contact's fields and of the directory of one asset. Lengths
// are in characters, except the e-mail address and the webhook URL, which
// protocols count in bytes.
const (
	MaxNameLength    = 200
	MaxRoleLength    = 200
	MaxCompanyLength = 200
	MaxPhoneLength   = 50
	// MaxEmailLength is the longest address an SMTP path can carry
	// (RFC 5321 4.5.3.1.3, 256 octets with the angle brackets).
	MaxEmailLength      = 254
	MaxWebhookURLLength = 2048
	// MaxPerAsset bounds an asset's directory: enough for every shift,
	// company and escalation level of one site, small enough to list
	// without paging and to review before a notification.
	MaxPerAsset = 50
)

// The channels a contact can be notified on; the names are the event
// bus's (events.Event.Channel).
const (
	ChannelEmail = "email"
	ChannelChat  = "chat"
)

// Contact is a person or team to tell about an asset. An empty string is
// a field not given. A contact without e-mail address and chat webhook
// may be listed (a site's phone number) but can never receive a
// notification: see Channels.
type Contact struct {
	ID             int64 // contact_id, assigned by the store, never reused
	AssetID        string
	OrganizationID string // the asset's

	Name           string // required
	Role           string // such as "control room" or "site manager"
	Company        string
	Email          string // a bare address, such as ops@example.com
	Phone          string // free text: people write numbers their way
	ChatWebhookURL string // a Slack-compatible incoming webhook
	IsEmergency    bool   // pre-selected when a fault is declared
	Notifiable     bool   // the contact wishes to receive fault notifications

	CreatedAt, UpdatedAt time.Time // platform clock
}

// Channels lists the channels the contact has an address for, e-mail
// first; empty when it has none, and then it is not a possible recipient
// of a notification, whatever Notifiable says.
func (c Contact) Channels() []string {
	out := []string{}
	if c.Email != "" {
		out = append(out, ChannelEmail)
	}
	if c.ChatWebhookURL != "" {
		out = append(out, ChannelChat)
	}
	return out
}

// Reachable reports whether the contact has at least one channel.
func (c Contact) Reachable() bool { return c.Email != "" || c.ChatWebhookURL != "" }

// Validate checks the writable fields; the error (422) names each
// offending field by its wire name (chat_webhook_url).
func (c Contact) Validate() error {
	var v errs.Validation
	if strings.TrimSpace(c.Name) == "" {
		v.Add("name", "is required and must not be blank", c.Name)
	} else {
		line(&v, "name", c.Name, MaxNameLength)
	}
	line(&v, "role", c.Role, MaxRoleLength)
	line(&v, "company", c.Company, MaxCompanyLength)
	if msg := CheckEmail(c.Email); c.Email != "" && msg != "" {
		v.Add("email", msg, c.Email)
	}
	line(&v, "phone", c.Phone, MaxPhoneLength)
	if msg := CheckWebhookURL(c.ChatWebhookURL); c.ChatWebhookURL != "" && msg != "" {
		v.Add("chat_webhook_url", msg, c.ChatWebhookURL)
	}
	return v.Err()
}

// line checks an optional one-line text: no control characters, not
// blank when given, at most limit characters.
func line(v *errs.Validation, loc, s string, limit int) {
	switch {
	case s == "":
	case !textrule.CheckName(v, loc, s):
	case strings.TrimSpace(s) == "":
		v.Add(loc, "must not be blank; send null or leave it out for none", s)
	case utf8.RuneCountInString(s) > limit:
		v.Add(loc, fmt.Sprintf("must be at most %d characters", limit), s)
	}
}

// CheckEmail reports why s is not an address a notification can be sent
// to, or "" when it is: a bare address as net/mail reads it (no display
// name, no comment, no surrounding spaces), at most MaxEmailLength bytes.
func CheckEmail(s string) string {
	const bare = "must be a bare e-mail address such as ops@example.com"
	if len(s) > MaxEmailLength {
		return fmt.Sprintf("must be at most %d bytes", MaxEmailLength)
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return bare
	}
	return ""
}

// CheckWebhookURL reports why s is not a chat webhook the platform may
// post to, or "" when it is: an absolute https URL with a host, without
// credentials or spaces, at most MaxWebhookURLLength bytes. Plain http is
// accepted for loopback hosts only, so that tests and a local relay need
// no certificate while nothing leaves the machine unencrypted.
func CheckWebhookURL(s string) string {
	if len(s) > MaxWebhookURLLength {
		return fmt.Sprintf("must be at most %d bytes", MaxWebhookURLLength)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return "must not contain spaces or control characters (percent-encode them)"
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return "must be an absolute https URL such as https://hooks.slack.com/services/..."
	}
	if u.User != nil {
		return "must not carry credentials (user:password@)"
	}
	switch u.Scheme {
	case "https":
		return ""
	case "http":
		if loopback(u.Hostname()) {
			return ""
		}
		return "must use https; plain http is accepted for loopback hosts (localhost, 127.0.0.1, ::1) only"
	}
	return "must be an absolute https URL such as https://hooks.slack.com/services/..."
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
