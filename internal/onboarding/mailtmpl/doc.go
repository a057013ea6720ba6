// Package mailtmpl renders the onboarding e-mails (docs/onboarding.md
// section 7) in German and English with an organisation's branding: the
// display name as the sender's name, the support address as Reply-To, the
// primary colour, the banner as an inline part (cid:banner) and, for the
// access-link mail, the organisation's subject and introduction. It only
// renders: a plain-text part with text/template and an HTML part with
// html/template (every value escaped for its context). Sending goes
// through the outbox.
package mailtmpl
