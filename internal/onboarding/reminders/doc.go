// Package reminders owns the deadline reminders of onboarding gates
// (docs/onboarding.md group J): the reminder policy of a workflow, which
// reminder is due on a Europe/Berlin day (Due), the hourly job that
// records each automatic reminder once per (gate, kind, due day), the
// manual reminder of a gate (at most one an hour) and the list. Mail goes
// through a Sender the notification group provides. It is plain Go; the
// endpoints live in remindershttp and the SQL in the stores.
package reminders
