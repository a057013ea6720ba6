// Package fields keeps the request-for-information values of a workflow's
// gates (docs/onboarding.md, group D): reading and saving them as a manager
// or as a task role, the version a save may be conditional on (If-Match),
// the "fields" requirement of submit and the asset update of a passed RfI
// gate. The field definitions and their rules are internal/onboarding/rfi.
package fields
