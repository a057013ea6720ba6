package mailtmpl

// texts are the built-in wording by language. Placeholders in braces are
// filled in before the parts are rendered, so that every value is escaped
// by the HTML template like any other text.
var texts = map[string]struct {
	greeting, greetingAnon, support                            string
	accessSubject, accessIntro, accessDeadline                 string
	accessAction, accessExpiry                                 string
	reminderSubject, reminderBody, overdueSubject, overdueBody string
	taskAction, noteBy                                         string
	commentSubject, commentBody, commentGateBody               string
	gate                                                       map[string]struct{ subject, body string }
	roles                                                      map[string]string
}{
	"de": {
		greeting:        "Guten Tag {contact_name},",
		greetingAnon:    "Guten Tag,",
		support:         "Fragen? Antworten Sie auf diese E-Mail oder schreiben Sie an {support}.",
		accessSubject:   "Ihr Zugang zur Inbetriebnahme von {asset_name}",
		accessIntro:     "{organization_name} bindet die Batteriespeicheranlage {asset_name} an die Handelsplattform an. Sie sind als {role} beteiligt; über den folgenden Link erreichen Sie Ihre Aufgaben, ohne ein Konto anzulegen.",
		accessDeadline:  "Ihre erste Frist ist der {deadline}.",
		accessAction:    "Aufgaben öffnen",
		accessExpiry:    "Der Link ist bis {expiry} gültig und kann bis dahin mehrfach verwendet werden. Bitte leiten Sie ihn nicht weiter: Wer ihn hat, handelt in Ihrem Namen.",
		reminderSubject: "Erinnerung: {gate_title} für {asset_name} bis {deadline}",
		reminderBody:    "der Schritt „{gate_title}“ der Inbetriebnahme von {asset_name} ist bis zum {deadline} fällig.",
		overdueSubject:  "Überfällig: {gate_title} für {asset_name}",
		overdueBody:     "der Schritt „{gate_title}“ der Inbetriebnahme von {asset_name} war bis zum {deadline} fällig und ist noch offen.",
		taskAction:      "Zur Aufgabe",
		noteBy:          "Anmerkung der Prüfung",
		commentSubject:  "Neuer Kommentar zur Inbetriebnahme von {asset_name}",
		commentBody:     "{author} hat die Inbetriebnahme von {asset_name} kommentiert:",
		commentGateBody: "{author} hat den Schritt „{gate_title}“ der Inbetriebnahme von {asset_name} kommentiert:",
		gate: map[string]struct{ subject, body string }{
			GateSubmitted:        {"Zur Prüfung eingereicht: {gate_title} für {asset_name}", "der Schritt „{gate_title}“ der Inbetriebnahme von {asset_name} wurde zur Prüfung eingereicht."},
			GateChangesRequested: {"Änderungen erbeten: {gate_title} für {asset_name}", "zum Schritt „{gate_title}“ der Inbetriebnahme von {asset_name} werden Änderungen erbeten. Bitte überarbeiten Sie ihn und reichen Sie ihn erneut ein."},
			GatePassed:           {"Abgeschlossen: {gate_title} für {asset_name}", "der Schritt „{gate_title}“ der Inbetriebnahme von {asset_name} ist abgeschlossen. Vielen Dank!"},
		},
		roles: map[string]string{
			"asset_owner": "Anlageneigentümer", "epc": "EPC-Auftragnehmer", "ems_provider": "EMS-Anbieter",
			"tso": "Übertragungsnetzbetreiber", "platform_onboarding": "Onboarding-Team", "platform": "Plattformbetreiber",
		},
	},
	"en": {
		greeting:        "Hello {contact_name},",
		greetingAnon:    "Hello,",
		support:         "Questions? Reply to this e-mail or write to {support}.",
		accessSubject:   "Your access to the onboarding of {asset_name}",
		accessIntro:     "{organization_name} is connecting the battery storage system {asset_name} to the trading platform. You take part as {role}; the link below opens your tasks without creating an account.",
		accessDeadline:  "Your first deadline is {deadline}.",
		accessAction:    "Open your tasks",
		accessExpiry:    "The link is valid until {expiry} and can be used several times until then. Please do not forward it: whoever holds it acts in your name.",
		reminderSubject: "Reminder: {gate_title} for {asset_name} due {deadline}",
		reminderBody:    "The step “{gate_title}” of the onboarding of {asset_name} is due on {deadline}.",
		overdueSubject:  "Overdue: {gate_title} for {asset_name}",
		overdueBody:     "The step “{gate_title}” of the onboarding of {asset_name} was due on {deadline} and is still open.",
		taskAction:      "Open the task",
		noteBy:          "Reviewer's note",
		commentSubject:  "New comment on the onboarding of {asset_name}",
		commentBody:     "{author} commented on the onboarding of {asset_name}:",
		commentGateBody: "{author} commented on the step “{gate_title}” of the onboarding of {asset_name}:",
		gate: map[string]struct{ subject, body string }{
			GateSubmitted:        {"Submitted for review: {gate_title} for {asset_name}", "The step “{gate_title}” of the onboarding of {asset_name} was submitted for review."},
			GateChangesRequested: {"Changes requested: {gate_title} for {asset_name}", "Changes are requested to the step “{gate_title}” of the onboarding of {asset_name}. Please revise it and submit it again."},
			GatePassed:           {"Passed: {gate_title} for {asset_name}", "The step “{gate_title}” of the onboarding of {asset_name} has passed. Thank you!"},
		},
		roles: map[string]string{
			"asset_owner": "asset owner", "epc": "EPC contractor", "ems_provider": "EMS provider",
			"tso": "transmission system operator", "platform_onboarding": "onboarding team", "platform": "platform operator",
		},
	},
}
