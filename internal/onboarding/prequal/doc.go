// Package prequal owns the prequalification of an onboarding's asset for
// FCR and aFRR (docs/onboarding.md group L): one prequalification that is
// not withdrawn per product, its TSO result written to the asset's
// prequalified capacity in the same transaction (the market ceiling of
// document 1), and the core requirement "prequalification" of the
// prequalification gate. It is plain Go; the endpoints live in
// prequalhttp and the SQL in the stores.
package prequal
