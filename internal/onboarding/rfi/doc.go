// Package rfi is the request for information of an onboarding: the field
// definitions of the RfI gates (fc_rfi, mon_rfi), their validation per
// type, constraint and task role, the required-on-submit check and the
// asset patch a passed RfI gate writes (docs/onboarding.md, section 5.D).
// Plain Go: no HTTP, no SQL, no clock.
package rfi
