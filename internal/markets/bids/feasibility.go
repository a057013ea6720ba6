package bids

import (
	"context"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/feasibility"
)

// CrossMarkets are the markets whose commitments share an asset's power
// and energy: every market of the engine.
var CrossMarkets = []Market{FCR, AFRRCapacity, AFRREnergy}

// othersThan are the cross markets other than m.
func othersThan(m Market) []Market {
	out := make([]Market, 0, len(CrossMarkets)-1)
	for _, o := range CrossMarkets {
		if o != m {
			out = append(out, o)
		}
	}
	return out
}

// Commit adds the committed power of bids (CommittedMW: nothing once
// released, the award once SUCCESSFUL) to book: FCR on both sides, aFRR
// capacity and energy on the side of their product.
func Commit(book *feasibility.Book, list []Bid) {
	for _, b := range list {
		mw := b.CommittedMW()
		if mw == 0 {
			continue
		}
		side := feasibility.Discharge
		if b.Product == Neg {
			side = feasibility.Charge
		}
		switch b.Market {
		case FCR:
			book.AddFCR(b.Interval(), mw)
		case AFRRCapacity:
			book.AddAFRRCapacity(b.Interval(), side, mw)
		case AFRREnergy:
			book.AddAFRREnergy(b.Interval(), side, mw)
		}
	}
}

// feasible judges the asset's commitments across markets in window after
// a change (after) against those before it: every violation after the
// change is a warning; with strict_validation, violations the change
// creates or worsens are the 409 of feasibility.Error instead. An asset
// with neither usable power nor usable energy recorded is not judged.
func feasible(a assets.Asset, window calendar.Interval, before, after []Bid) ([]string, error) {
	fa := feasibility.AssetOf(a)
	if !fa.Judged() {
		return nil, nil
	}
	check := func(list []Bid) []feasibility.Violation {
		book := feasibility.NewBook()
		Commit(book, list)
		return feasibility.Check(fa, book, window)
	}
	then, now := check(before), check(after)
	if a.StrictValidation {
		if worse := feasibility.Worse(then, now); len(worse) > 0 {
			return nil, feasibility.Error(worse)
		}
	}
	return feasibility.Warnings(now), nil
}

// CommitmentReader reads an asset's commitments across markets from a
// Store, for the feasibility warnings of scheduled dispatch.
type CommitmentReader struct{ Store Store }

// Commitments returns a book of the asset's committed bids of every
// cross market overlapping window.
func (r CommitmentReader) Commitments(ctx context.Context, v auth.Visibility, assetID string, window calendar.Interval) (*feasibility.Book, error) {
	book := feasibility.NewBook()
	for _, m := range CrossMarkets {
		list, err := r.Store.List(ctx, v, assetID, m, Filter{EndAfter: window.Start, Start: &window.Start, End: &window.End})
		if err != nil {
			return nil, err
		}
		Commit(book, list)
	}
	return book, nil
}
