// Package reporting holds what the report endpoints share: the report
// window (the last 24 hours by default, at most 90 days), limit/offset
// paging, and the performance granularities, whose hours and days are
// Europe/Berlin's (document 1, rule 2). The reports themselves live with
// the records they read: the aFRR dispatch and performance reports in
// reporting/afrrreport, the FCR and availability reports in
// reporting/fcrreport, the balancing-group schedules and nomination files
// in reporting/nomination, settlement in internal/settlement. See
// docs/reporting.md.
package reporting
