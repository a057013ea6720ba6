package app

import (
	"atcp/internal/onboarding/branding/brandinghttp"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/contacts/contactshttp"
	"atcp/internal/onboarding/magic"
	"atcp/internal/onboarding/magic/magichttp"
	"atcp/internal/onboarding/notify"
)

// onboardingPeople wires the people of onboarding (docs/onboarding.md 5.G,
// 5.H and 7): the onboarding e-mails through the outbox, the contacts
// (the core's contact roles and assignee check, the magic links' targets
// and audit trail, the revocations of a cancel), the access-link and
// contact endpoints and the magic-link exchange, refresh and logout. The
// links in the mails lead to the console at the base URL.
func (a *App) onboardingPeople() {
	mailer := notify.New(notify.Deps{Outbox: a.Outbox, Branding: a.Branding, Contacts: a.Store.OnboardingContacts(),
		Assets: a.Assets, Organizations: a.Store.Directory(), ConsoleURL: a.baseURL})
	a.Onboarding.SetNotifier(mailer)
	svc := contacts.NewService(contacts.Deps{Store: a.Store.OnboardingContacts(), Core: a.Onboarding, Users: a.Store.Directory(),
		Branding: a.Branding, Mailer: mailer, Deliveries: a.Store.Events(), WireBranding: brandinghttp.Wire})
	m := magic.NewService(a.Store.OnboardingMagic(), svc, a.Tokens, a.Clock, a.Security)
	svc.Install(m)
	a.OnboardingMailer = mailer
	contactshttp.Register(a.Server, svc, a.Security)
	magichttp.Register(a.Server, m, a.Security)
}
