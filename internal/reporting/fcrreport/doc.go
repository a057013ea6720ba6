// Package fcrreport owns the FCR and availability reports of an asset
// (docs/reporting.md, "FCR and availability reports"): its FCR
// reservations with their payments and pool covers (from the bid store and
// the portfolio's cover steps), FCR activation by frequency band, FCR
// delivery per period and availability per period (folded from the
// 1-second state history and the restriction intervals). The per-second
// rules (frequency bands, the droop requirement, the delivery tolerance,
// the SoC band, the availability precedence) and the Berlin periods are
// plain functions over measurement samples, table-tested; the HTTP
// endpoints are in fcrreporthttp.
package fcrreport
