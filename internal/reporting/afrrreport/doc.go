// Package afrrreport owns the aFRR dispatch events (document 1: one per
// asset, quarter-hour and direction in which the control loop asked the
// battery for aFRR energy or skipped it), their store interface, the
// Writer that stores what the loop hands it off the loop's goroutine, the
// pure rules (outcome classification, performance periods, obligation
// rows) and the service behind the three report endpoints: dispatches,
// performance and obligations (afrrreporthttp). See docs/reporting.md.
package afrrreport
