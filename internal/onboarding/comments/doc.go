// Package comments owns the comments of an onboarding (docs/onboarding.md
// group I): the onboarding-level thread and the threads of its gates,
// shared with the task roles or internal to the asset's organisation and
// the platform, immutable once posted, each audited and mailed to the
// people concerned through a Notifier. It is plain Go; the endpoints live
// in commentshttp and the SQL in the stores.
package comments
