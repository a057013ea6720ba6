// Package settlementhttp serves the settlement reads (docs/reporting.md,
// "Settlement, quality gates and revenue"): GET /v1/settlements (the
// envelope of document 1), GET /v1/settlements/quality-gates (why blocks
// are not FINAL yet or changed) and GET /v1/reports/revenue (revenue,
// backup fees, penalties and net per asset, product and Berlin day or
// month). The figures and their rules are internal/settlement's.
package settlementhttp
