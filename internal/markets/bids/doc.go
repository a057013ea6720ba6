// Package bids is the bid engine shared by the capacity and energy markets
// (FCR, aFRR capacity, aFRR energy): the bid record and its lifecycle,
// price parsing, interval and gate rules, the prequalified-capacity
// ceiling, REPLACE and idempotency planning, and the Store interface that
// applies one submission atomically under a per-asset lock. A market
// package (fcr, afrr) supplies its Rules; everything here is plain Go with
// no HTTP and no SQL.
package bids
