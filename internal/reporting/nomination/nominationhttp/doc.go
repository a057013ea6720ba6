// Package nominationhttp serves the balancing-group schedules, their
// nomination files (text/csv in the TSO's format) and revisions, and the
// balancing-group EIC configuration: the wire shapes, their examples and
// the five operations (docs/reporting.md, "Balancing-group schedules and
// nomination files").
package nominationhttp
