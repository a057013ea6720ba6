// Package branding is the onboarding branding of an organisation
// (docs/onboarding.md section 4.1): the sender name, colour, support
// address, logo and e-mail banner of its onboarding e-mails and task pages,
// and its overrides of the magic-link e-mail's subject and introduction.
// Resolve gives an organisation's branding, falling back to the platform's.
package branding
