// Package onboarding owns the onboarding of an asset (issue 15,
// docs/onboarding.md): the workflows (one in progress per asset), their
// gates and the gate state machine (Transition), the built-in templates and
// gate definitions (fc_v1, mon_v1), who may act (Actor, the task roles and
// the platform-only actions), the deadlines in Europe/Berlin, the audit
// trail, and the Service every onboarding group builds on: Mutate (one
// locked, audited transaction per change), the requirement registry checked
// on submit, the on-pass and on-cancel hooks and the Notifier, and the
// rate marks of the area's abuse limits (RateLimit, RateWait, MarkRate: on
// the security clock, in the database, under the workflow's lock). It is
// plain Go; the endpoints live in onboardinghttp and the SQL in the stores.
package onboarding
