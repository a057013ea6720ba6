// Package dpl is the data-point list of an onboarding: the template
// points of fc_v1 and mon_v1, a row's rules (point names, protocols and
// their address grammars, data types, units convertible to the template
// point's, scale and offset, directions, lengths), uniqueness over a list,
// the CSV import and export, merging an import into the stored list, and
// the evaluation of a communication test (docs/onboarding.md, sections
// 5.A, 5.E, 5.K). Plain Go: no HTTP, no SQL, no clock.
package dpl
