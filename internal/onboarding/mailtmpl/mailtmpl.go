package mailtmpl

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding/branding"
)

// Event types of the onboarding e-mails (the outbox's type names).
const (
	TypeAccessLink  = "onboarding.access_link"
	TypeReminder    = "onboarding.reminder"
	TypeGateChanged = "onboarding.gate_changed"
	TypeComment     = "onboarding.comment"
)

// Built-in branding of a mail whose organisation and platform have none.
const (
	DefaultDisplayName = "atcp"
	DefaultColor       = "#1f4e79"
)

// BannerCID is the Content-ID of the banner's inline part; the HTML part
// refers to it as cid:banner.
const BannerCID = "banner"

// Message is a rendered e-mail. BannerKey names the banner's object when
// the HTML part shows it (the sender attaches it inline as BannerCID with
// BannerContentType); empty otherwise.
type Message struct {
	Type              string
	Language          string
	Subject           string
	Text              string
	HTML              string
	FromName          string
	ReplyTo           string
	BannerKey         string
	BannerContentType string
}

// Common is what every onboarding mail names: the recipient, the
// onboarding and the branding (branding.Service.Resolve's).
type Common struct {
	// Language is the mail's: the link's, else the contact's; empty or
	// unknown: the branding's default.
	Language         string
	Branding         branding.Branding
	ContactName      string
	OrganizationName string
	AssetName        string
	// Role is the recipient's task role (asset_owner, epc, ems_provider,
	// tso, platform_onboarding, platform).
	Role string
}

// AccessLink is the mail with a magic link (issued or resent).
type AccessLink struct {
	Common
	URL       string
	ExpiresAt time.Time // security time; shown in Europe/Berlin
	// Deadline is the first deadline of the role's gates, "" when none.
	Deadline string // YYYY-MM-DD
	// Note is the manager's personal note, quoted; "" for none.
	Note   string
	NoteBy string
}

// Reminder is the mail before or after a gate's deadline.
type Reminder struct {
	Common
	GateTitle string
	Deadline  string // YYYY-MM-DD
	Overdue   bool
	TaskURL   string // the console's task page, "" to leave it out
	// Note is a manual reminder's message, quoted; "" for none.
	Note   string
	NoteBy string
}

// Gate changes a mail is sent for.
const (
	GateSubmitted        = "submitted"
	GateChangesRequested = "changes_requested"
	GatePassed           = "passed"
)

// GateChanged is the mail of a gate's move: submitted (to the reviewer),
// changes requested or passed (to the owners).
type GateChanged struct {
	Common
	GateTitle string
	Status    string // GateSubmitted, GateChangesRequested or GatePassed
	Note      string // the reviewer's note, "" when none
	TaskURL   string
}

// Comment is the mail of a new comment.
type Comment struct {
	Common
	GateTitle string // "" for a comment on the whole onboarding
	Author    string
	Body      string
	TaskURL   string
}

// content is what both parts are rendered from.
type content struct {
	Lang        string
	Greeting    string
	Paragraphs  []string
	Quote       []string // lines of a quoted note or comment
	QuoteBy     string
	ActionLabel string
	ActionURL   string
	Closing     []string
	Signature   string
	Color       string
	Banner      bool
	Title       string
}

func (c Common) language() string {
	switch c.Language {
	case branding.LanguageDE, branding.LanguageEN:
		return c.Language
	}
	return c.Branding.Language()
}

// RenderAccessLink renders the access-link mail. The organisation's
// subject and introduction for the language replace the built-in ones;
// the link, its expiry and the support address are always added.
func RenderAccessLink(in AccessLink) (Message, error) {
	lang := in.language()
	t := texts[lang]
	vars := in.vars(lang, in.Deadline)
	subject := t.accessSubject
	intro := []string{t.accessIntro}
	if o, ok := in.Branding.Templates[lang]; ok {
		if o.Subject != "" {
			subject = o.Subject
		}
		if o.Intro != "" {
			intro = paragraphs(o.Intro)
		}
	}
	if in.Deadline != "" {
		intro = append(intro, t.accessDeadline)
	}
	c := in.base(lang)
	c.Paragraphs = fill(intro, vars)
	c.ActionLabel, c.ActionURL = t.accessAction, in.URL
	if strings.TrimSpace(in.Note) != "" {
		c.Quote, c.QuoteBy = lines(in.Note), in.NoteBy
	}
	c.Closing = append([]string{fill1(t.accessExpiry, map[string]string{"expiry": formatInstant(lang, in.ExpiresAt)})}, c.Closing...)
	return render(TypeAccessLink, lang, fill1(subject, vars), in.Common, c)
}

// RenderReminder renders a deadline reminder.
func RenderReminder(in Reminder) (Message, error) {
	lang := in.language()
	t := texts[lang]
	vars := in.vars(lang, in.Deadline)
	vars["gate_title"] = in.GateTitle
	subject, body := t.reminderSubject, t.reminderBody
	if in.Overdue {
		subject, body = t.overdueSubject, t.overdueBody
	}
	c := in.base(lang)
	c.Paragraphs = fill([]string{body}, vars)
	c.ActionLabel, c.ActionURL = t.taskAction, in.TaskURL
	if strings.TrimSpace(in.Note) != "" {
		c.Quote, c.QuoteBy = lines(in.Note), in.NoteBy
	}
	return render(TypeReminder, lang, fill1(subject, vars), in.Common, c)
}

// RenderGateChanged renders the mail of a gate's move.
func RenderGateChanged(in GateChanged) (Message, error) {
	lang := in.language()
	t := texts[lang]
	g, ok := t.gate[in.Status]
	if !ok {
		return Message{}, fmt.Errorf("mailtmpl: no mail for a gate moving to %q", in.Status)
	}
	vars := in.vars(lang, "")
	vars["gate_title"] = in.GateTitle
	c := in.base(lang)
	c.Paragraphs = fill([]string{g.body}, vars)
	if in.Note != "" {
		c.Quote, c.QuoteBy = lines(in.Note), t.noteBy
	}
	c.ActionLabel, c.ActionURL = t.taskAction, in.TaskURL
	return render(TypeGateChanged, lang, fill1(g.subject, vars), in.Common, c)
}

// RenderComment renders the mail of a new comment.
func RenderComment(in Comment) (Message, error) {
	lang := in.language()
	t := texts[lang]
	vars := in.vars(lang, "")
	vars["gate_title"], vars["author"] = in.GateTitle, in.Author
	body := t.commentBody
	if in.GateTitle != "" {
		body = t.commentGateBody
	}
	c := in.base(lang)
	c.Paragraphs = fill([]string{body}, vars)
	c.Quote, c.QuoteBy = lines(in.Body), in.Author
	c.ActionLabel, c.ActionURL = t.taskAction, in.TaskURL
	return render(TypeComment, lang, fill1(t.commentSubject, vars), in.Common, c)
}

// vars are the placeholders of the texts and the organisation's templates.
func (c Common) vars(lang, deadline string) map[string]string {
	return map[string]string{
		"contact_name": c.ContactName, "asset_name": c.AssetName, "organization_name": c.OrganizationName,
		"role": roleName(lang, c.Role), "deadline": formatDate(lang, deadline),
	}
}

func (c Common) base(lang string) content {
	t := texts[lang]
	b := c.Branding
	out := content{Lang: lang, Signature: displayName(b), Color: b.PrimaryColor, Banner: b.BannerKey != ""}
	if out.Color == "" {
		out.Color = DefaultColor
	}
	out.Greeting = t.greetingAnon
	if c.ContactName != "" {
		out.Greeting = fill1(t.greeting, map[string]string{"contact_name": c.ContactName})
	}
	if b.SupportEmail != "" {
		out.Closing = []string{fill1(t.support, map[string]string{"support": b.SupportEmail})}
	}
	return out
}

func displayName(b branding.Branding) string {
	if b.DisplayName != "" {
		return b.DisplayName
	}
	return DefaultDisplayName
}

// render completes the message: both parts, the sender's name and
// Reply-To, and the banner reference.
func render(typ, lang, subject string, common Common, c content) (Message, error) {
	subject = oneLine(subject)
	c.Title = subject
	if !webURL(c.ActionURL) {
		// Only a web address is a link; anything else (javascript:) is
		// left out of both parts rather than shown.
		c.ActionURL = ""
	}
	var text, html strings.Builder
	if err := textLayout.Execute(&text, c); err != nil {
		return Message{}, fmt.Errorf("mailtmpl: %s text: %w", typ, err)
	}
	if err := htmlLayout.Execute(&html, c); err != nil {
		return Message{}, fmt.Errorf("mailtmpl: %s html: %w", typ, err)
	}
	m := Message{Type: typ, Language: lang, Subject: subject, Text: text.String(), HTML: html.String(),
		FromName: oneLine(displayName(common.Branding)), ReplyTo: common.Branding.SupportEmail}
	if c.Banner {
		m.BannerKey, m.BannerContentType = common.Branding.BannerKey, common.Branding.BannerContentType
	}
	return m, nil
}

func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// oneLine keeps a header value on one line: a name or subject with a line
// break could otherwise add headers.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == ' ' }), " ")
}

// fill replaces the {name} placeholders of each text.
func fill(texts []string, vars map[string]string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = fill1(t, vars)
	}
	return out
}

func fill1(text string, vars map[string]string) string {
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// paragraphs splits a text at blank lines.
func paragraphs(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var out []string
	for p := range strings.SplitSeq(s, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func lines(s string) []string {
	return strings.Split(strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n"), "\n")
}

// formatDate shows a YYYY-MM-DD date as the language writes it; "" stays.
func formatDate(lang, date string) string {
	if date == "" {
		return ""
	}
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	if lang == branding.LanguageDE {
		return d.Format("02.01.2006")
	}
	return d.Format("2 January 2006")
}

// formatInstant shows an instant in Europe/Berlin, the onboarding's time
// zone, with the zone's abbreviation.
func formatInstant(lang string, t time.Time) string {
	t = t.In(calendar.Berlin)
	if lang == branding.LanguageDE {
		return t.Format("02.01.2006, 15:04 Uhr MST")
	}
	return t.Format("2 January 2006, 15:04 MST")
}

func roleName(lang, role string) string {
	if n, ok := texts[lang].roles[role]; ok {
		return n
	}
	return role
}
