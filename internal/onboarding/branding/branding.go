package branding

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"atcp/internal/errs"
)

// Languages of the onboarding e-mails and task pages.
const (
	LanguageDE = "de"
	LanguageEN = "en"
)

// DefaultLanguage is the language of a branding that names none.
const DefaultLanguage = LanguageDE

// Limits of the branding fields (document 1 and docs/onboarding.md 4.1).
const (
	MaxDisplayName  = 100
	MaxSupportEmail = 254
	MaxLogoURL      = 2048
	MaxSubject      = 200
	MaxIntro        = 2000
)

// Placeholders are the names a template's subject and intro may use, as
// {name}; the e-mail fills them in.
var Placeholders = []string{"contact_name", "asset_name", "organization_name", "role", "deadline"}

// Template overrides the built-in subject and introduction of the
// magic-link e-mail in one language; an empty member keeps the built-in.
type Template struct {
	Subject string `json:"subject,omitempty"`
	Intro   string `json:"intro,omitempty"`
}

// Branding is one organisation's. Empty strings were never set.
type Branding struct {
	OrganizationID  string
	DisplayName     string
	PrimaryColor    string
	SupportEmail    string
	LogoURL         string
	DefaultLanguage string // LanguageDE or LanguageEN; empty until set
	// Templates by language (LanguageDE, LanguageEN).
	Templates map[string]Template
	// BannerKey is the e-mail banner's object key, BannerContentType its
	// sniffed media type; empty without a banner.
	BannerKey         string
	BannerContentType string
	ETag              string
	UpdatedAt         time.Time
}

// Settings are what PUT replaces: everything but the banner.
type Settings struct {
	DisplayName     string
	PrimaryColor    string
	SupportEmail    string
	LogoURL         string
	DefaultLanguage string // empty: DefaultLanguage
	Templates       map[string]Template
}

var (
	colorRE       = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
	placeholderRE = regexp.MustCompile(`\{([^{}]*)\}`)
)

// Validate checks s and returns it normalised (display name trimmed, the
// default language filled in, empty templates dropped); the errors name
// the fields as the body does (display_name, magic_link_email_templates.de.subject).
func (s Settings) Validate() (Settings, error) {
	var v errs.Validation
	s.DisplayName = strings.TrimSpace(s.DisplayName)
	switch n := utf8.RuneCountInString(s.DisplayName); {
	case n == 0:
		v.Add("display_name", "must not be blank", s.DisplayName)
	case n > MaxDisplayName:
		v.Add("display_name", fmt.Sprintf("must be at most %d characters", MaxDisplayName), nil)
	case strings.ContainsFunc(s.DisplayName, unicode.IsControl):
		v.Add("display_name", "must not hold control characters", s.DisplayName)
	}
	if !colorRE.MatchString(s.PrimaryColor) {
		v.Add("primary_color", "must be a colour #rrggbb", s.PrimaryColor)
	}
	s.PrimaryColor = strings.ToLower(s.PrimaryColor)
	if msg := checkAddress(s.SupportEmail); msg != "" {
		v.Add("support_email", msg, s.SupportEmail)
	}
	if s.LogoURL != "" {
		if msg := checkLogoURL(s.LogoURL); msg != "" {
			v.Add("logo_url", msg, s.LogoURL)
		}
	}
	switch s.DefaultLanguage {
	case "":
		s.DefaultLanguage = DefaultLanguage
	case LanguageDE, LanguageEN:
	default:
		v.Add("magic_link_default_language", "must be de or en", s.DefaultLanguage)
	}
	templates := map[string]Template{}
	for lang, t := range s.Templates {
		prefix := "magic_link_email_templates." + lang
		if lang != LanguageDE && lang != LanguageEN {
			v.Add(prefix, "only de and en can be given", nil)
			continue
		}
		checkText(&v, prefix+".subject", t.Subject, MaxSubject, false)
		checkText(&v, prefix+".intro", t.Intro, MaxIntro, true)
		if t != (Template{}) {
			templates[lang] = t
		}
	}
	s.Templates = templates
	if err := v.Err(); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// checkAddress returns why addr is not a bare RFC 5322 addr-spec of at
// most MaxSupportEmail bytes, "" when it is one.
func checkAddress(addr string) string {
	if addr == "" {
		return "must not be empty"
	}
	if len(addr) > MaxSupportEmail {
		return fmt.Sprintf("must be at most %d characters", MaxSupportEmail)
	}
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Address != addr || a.Name != "" || !strings.Contains(addr[strings.LastIndexByte(addr, '@')+1:], ".") {
		return "must be an e-mail address such as onboarding@example.com (no display name)"
	}
	return ""
}

func checkLogoURL(s string) string {
	if len(s) > MaxLogoURL {
		return fmt.Sprintf("must be at most %d characters", MaxLogoURL)
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return "must be an absolute https URL without credentials"
	}
	return ""
}

// checkText checks a template text: at most max characters of plain text
// (line breaks only in the intro) with known placeholders.
func checkText(v *errs.Validation, location, text string, max int, multiline bool) {
	if utf8.RuneCountInString(text) > max {
		v.Add(location, fmt.Sprintf("must be at most %d characters", max), nil)
		return
	}
	if strings.ContainsFunc(text, func(r rune) bool {
		return unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\r' || r == '\t'))
	}) {
		v.Add(location, "must not hold control characters", nil)
		return
	}
	for _, m := range placeholderRE.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(Placeholders, m[1]) {
			v.Add(location, fmt.Sprintf("unknown placeholder {%s}; known: {%s}", m[1], strings.Join(Placeholders, "}, {")), m[0])
			return
		}
	}
}

// Apply returns b with the settings s (validated) in place of its own.
func (b Branding) Apply(s Settings) Branding {
	b.DisplayName, b.PrimaryColor, b.SupportEmail, b.LogoURL = s.DisplayName, s.PrimaryColor, s.SupportEmail, s.LogoURL
	b.DefaultLanguage, b.Templates = s.DefaultLanguage, s.Templates
	return b
}

// Configured reports whether the organisation's settings were ever put (a
// banner alone does not make a branding).
func (b Branding) Configured() bool { return b.DisplayName != "" }

// Language returns the default language, DefaultLanguage when unset.
func (b Branding) Language() string {
	if b.DefaultLanguage == "" {
		return DefaultLanguage
	}
	return b.DefaultLanguage
}

// ComputeETag returns the entity tag of b's content: a strong, quoted tag
// that changes with every field a client can see.
func (b Branding) ComputeETag() string {
	content, _ := json.Marshal([]any{b.OrganizationID, b.DisplayName, b.PrimaryColor, b.SupportEmail, b.LogoURL,
		b.DefaultLanguage, b.Templates, b.BannerKey, b.BannerContentType})
	sum := sha256.Sum256(content)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// CheckIfMatch returns edit_conflict when ifMatch is given and is not the
// current tag (exists false: there is no branding yet, so nothing
// matches). "*" matches any existing branding.
func CheckIfMatch(ifMatch string, current Branding, exists bool) error {
	ifMatch = strings.TrimSpace(ifMatch)
	if ifMatch == "" {
		return nil
	}
	if exists && (ifMatch == "*" || slices.Contains(splitTags(ifMatch), current.ETag)) {
		return nil
	}
	return errs.Conflictf(CodeEditConflict, "the branding changed since it was read (If-Match %s); read it again", ifMatch)
}

func splitTags(h string) []string {
	var tags []string
	for t := range strings.SplitSeq(h, ",") {
		tags = append(tags, strings.TrimSpace(t))
	}
	return tags
}
