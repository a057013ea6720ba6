// Package afrr owns the rules of the aFRR markets: capacity and energy
// bids (directional, product pos or neg) and the backup market, where an
// asset's per-product default price and capacity cap and its per-window
// overrides decide what it offers for each quarter-hour. It is plain Go
// with no HTTP and no SQL: the endpoints live in afrrhttp and the stores
// in the store backends.
package afrr
