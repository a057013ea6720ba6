// Package settlement produces the settlement figures of every delivered
// quarter-hour (document 1, rules 8 and 9, "Reporting and settlement"): per
// asset and 15-minute block, one figure per product key (fcr, fcr_backup,
// afrrc_pos_4h, ..., afrre_neg_backup) with revenue, backup fee and
// penalty in EUR, exact to the cent.
//
// Compute is the arithmetic: a pure function of the quarter-hour's bids
// (capacity awards, energy outcomes) and the cover steps of the pool
// dispatch (CoverStep, read through CoverSteps). Money is exact rational
// arithmetic over the decimal inputs, rounded once per figure to the cent,
// half away from zero. Rule (StatusAt, FinalAt, Published) decides
// PRELIMINARY and FINAL from the platform clock at read time, FINAL after
// the configurable settlement lag (FinalLag). Settler is the background job
// settlement.compute that computes each quarter-hour once it is delivered
// and its energy outcomes are in, recomputes the recent ones, and stores
// them through Store, which keeps processed_at unchanged while a block's
// figures are unchanged, and which renders each asset-day's blocks as the
// envelope's JSON (RenderDays, Day) whenever one of them changes. Service
// answers the reads: the settlement envelope (Rendered, written from the
// rendered days by AppendJSON; Settlement and Build, the reference it is
// tested against), the quality gates (QualityGates,
// DecideGates) and the revenue summary (Revenue, Summarise); their HTTP
// form is settlementhttp. docs/settlement.md and docs/reporting.md record
// the decisions.
package settlement
