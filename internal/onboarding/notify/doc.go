// Package notify renders the onboarding e-mails (mailtmpl, with the
// organisation's branding) and enqueues them as outbox events of channel
// email inside the caller's transaction (docs/onboarding.md section 7):
// the access-link mail, the gate changes (onboarding.Notifier), comments
// and reminders. Who receives what:
//   - a gate submitted: the onboarding's contacts holding
//     platform_onboarding (the reviewers);
//   - changes requested or a gate passed: the contacts holding the gate's
//     owner role;
//   - a comment on a gate: from an external contact, the reviewers; from
//     anyone else, the owner role's contacts; a comment on the whole
//     onboarding: from an external contact, the reviewers; else every
//     contact holding an external role;
//   - a reminder: the owner role's contacts and the gate's assignee.
//
// A contact is mailed in its language, else the branding's default.
package notify
