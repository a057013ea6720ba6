// Package nomination owns the balancing-group schedules of activated aFRR
// energy (document 1, "Reporting and settlement"; document 3, the two
// balancing-group endpoints) and their nomination files: Build derives,
// per nominating organisation, TSO zone and Berlin delivery day, the
// quarter-hour MW the platform nominates between its balancing group and
// the customer's (pos and neg) from the SUCCESSFUL aFRR energy bids;
// Diff decides whether that is a new revision; RenderFile writes the
// TSO's semicolon CSV. Job (nomination.exchange) builds the revisions of
// completed days and sends them through an Exchange; only acknowledged
// revisions are visible to Service, which serves the schedule, the file,
// the revisions report and the EIC configuration. docs/reporting.md
// ("Balancing-group schedules and nomination files") records the design.
package nomination
