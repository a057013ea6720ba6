package bids

import (
	"encoding/json"
	"math"
	"testing"
	"time"
	"unicode/utf8"

	"atcp/internal/textrule"
)

// FuzzPrepare decodes arbitrary JSON as a submission and validates it:
// no panic, and every accepted bid is a tender block with a price within
// the bounds and a whole positive power.
func FuzzPrepare(f *testing.F) {
	for _, s := range []string{
		`{"bids":[{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","capacity_price_eur_per_mw":"12.5","offered_power_mw":1}]}`,
		`{"mode":"REPLACE","replace_scope":{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T23:00:00Z"},"bids":[{"idempotency_key":"a","start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z","capacity_price_eur_per_mw":15000,"offered_power_mw":3}]}`,
		`{"bids":[{"start_time":"2026-03-28T23:00:00Z","end_time":"2026-03-29T02:00:00Z","capacity_price_eur_per_mw":1e2,"offered_power_mw":1e300}]}`,
		`{"bids":[{"capacity_price_eur_per_mw":[1]}]}`,
		`{"bids":[{"idempotency_key":"a\u0000","start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","capacity_price_eur_per_mw":"1","offered_power_mw":1}]}`,
	} {
		f.Add(s)
	}
	type scope struct {
		Start time.Time `json:"start_time"`
		End   time.Time `json:"end_time"`
	}
	type in struct {
		Bids []struct {
			Key   *string    `json:"idempotency_key"`
			Start time.Time  `json:"start_time"`
			End   time.Time  `json:"end_time"`
			Price PriceInput `json:"capacity_price_eur_per_mw"`
			MW    float64    `json:"offered_power_mw"`
		} `json:"bids"`
		Mode  Mode   `json:"mode"`
		Scope *scope `json:"replace_scope"`
	}
	e := &Engine{rules: testRules}
	f.Fuzz(func(t *testing.T, body string) {
		var req in
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		sub := Submission{Mode: req.Mode}
		if req.Scope != nil {
			sub.Scope = &ReplaceScope{Start: req.Scope.Start, End: req.Scope.End}
		}
		for _, b := range req.Bids {
			sub.Bids = append(sub.Bids, NewBid{IdempotencyKey: b.Key, Start: b.Start, End: b.End, CapacityPrice: b.Price, OfferedMW: b.MW})
		}
		got, err := e.prepare(sub)
		if err != nil {
			return
		}
		for _, b := range got {
			if !IsTenderBlock(b.Interval()) || b.CapacityPrice == nil || *b.CapacityPrice < 0 || *b.CapacityPrice > EUR(15000) ||
				b.OfferedMW < 1 || b.OfferedMW != math.Trunc(b.OfferedMW) || b.Product != Sym || b.Status != Pending {
				t.Fatalf("accepted %+v from %s", b, body)
			}
			if k := b.IdempotencyKey; k != nil && (*k == "" || !textrule.Name(*k) || utf8.RuneCountInString(*k) > MaxIdempotencyKeyLength) {
				t.Fatalf("accepted the idempotency key %q from %s", *k, body)
			}
			if sub.Mode == Replace && !sub.Scope.Interval().Covers(b.Interval()) {
				t.Fatalf("accepted a bid outside the scope: %s", body)
			}
		}
	})
}
