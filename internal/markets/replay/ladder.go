package replay

import (
	"cmp"
	"math"
	"slices"

	"github.com/shopspring/decimal"
)

// Ladder is a merit order of aFRR energy bids of one direction, cheapest
// first, in the platform's convention (EUR/MWh the provider receives):
// the bid at cumulative volume x MW is priced PriceAt(x). It is piecewise
// linear through its points (MW ascending from 0, Price non-decreasing);
// two points at one volume are a price step.
type Ladder struct {
	MW    []float64
	Price []float64
}

// OverviewLadder is the ladder an overview row describes: from MIN at
// 0 MW, through AVERAGE, to MARGINAL at the offered volume. The AVERAGE
// point lies at the volume offered x (MARGINAL - AVERAGE) / (MARGINAL -
// MIN), where the ladder's volume-weighted mean price is exactly AVERAGE.
func OverviewLadder(o EnergyOverview) Ladder {
	if o.MarginalEUR == o.MinEUR {
		return Ladder{MW: []float64{0, o.OfferedMW}, Price: []float64{o.MinEUR, o.MinEUR}}
	}
	at := o.OfferedMW * (o.MarginalEUR - o.AverageEUR) / (o.MarginalEUR - o.MinEUR)
	return Ladder{MW: []float64{0, at, o.OfferedMW}, Price: []float64{o.MinEUR, o.AverageEUR, o.MarginalEUR}}
}

// PriceAt is the price of the last bid needed to cover mw (the first
// bid's for 0 or less, the last bid's beyond the ladder); at a price step
// the lower price.
func (l Ladder) PriceAt(mw float64) float64 {
	for i := 1; i < len(l.MW); i++ {
		if mw <= l.MW[i] {
			if l.MW[i] == l.MW[i-1] {
				return l.Price[i-1]
			}
			t := max(0, (mw-l.MW[i-1])/(l.MW[i]-l.MW[i-1]))
			return l.Price[i-1] + t*(l.Price[i]-l.Price[i-1])
		}
	}
	return l.Price[len(l.Price)-1]
}

// VolumeBelow is the volume of the ladder's bids priced strictly below
// price (MW).
func (l Ladder) VolumeBelow(price float64) float64 {
	if len(l.MW) == 0 || price <= l.Price[0] {
		return 0
	}
	for i := 1; i < len(l.MW); i++ {
		if price <= l.Price[i] {
			// Price[i-1] < price <= Price[i], so a step or a rising segment.
			if l.MW[i] == l.MW[i-1] {
				return l.MW[i]
			}
			return l.MW[i-1] + (price-l.Price[i-1])/(l.Price[i]-l.Price[i-1])*(l.MW[i]-l.MW[i-1])
		}
	}
	return l.MW[len(l.MW)-1]
}

// Shifted is the ladder with every price moved by eur.
func (l Ladder) Shifted(eur float64) Ladder {
	p := make([]float64, len(l.Price))
	for i, v := range l.Price {
		p[i] = v + eur
	}
	return Ladder{MW: l.MW, Price: p}
}

// referenceLadders is, per direction, the ladder of the average overview
// row (mean MIN, AVERAGE, MARGINAL and offered volume over the rows of
// the direction).
func referenceLadders(rows map[overviewKey]EnergyOverview) map[Direction]Ladder {
	out := map[Direction]Ladder{}
	// Summed in a fixed order, so the ladder does not depend on map order.
	ks := keys(rows)
	slices.SortFunc(ks, func(a, b overviewKey) int { return compareQuarterHours(a.q, b.q) })
	for _, dir := range []Direction{Pos, Neg} {
		var sum EnergyOverview
		n := 0.0
		for _, k := range ks {
			if k.dir == dir {
				o := rows[k]
				sum.MinEUR += o.MinEUR
				sum.AverageEUR += o.AverageEUR
				sum.MarginalEUR += o.MarginalEUR
				sum.OfferedMW += o.OfferedMW
				n++
			}
		}
		if n > 0 {
			out[dir] = OverviewLadder(EnergyOverview{MinEUR: sum.MinEUR / n, AverageEUR: sum.AverageEUR / n, MarginalEUR: sum.MarginalEUR / n, OfferedMW: sum.OfferedMW / n})
		}
	}
	return out
}

func compareQuarterHours(a, b QuarterHour) int {
	return cmp.Or(cmp.Compare(a.Day.Year, b.Day.Year), cmp.Compare(a.Day.Month, b.Day.Month), cmp.Compare(a.Day.Day, b.Day.Day), cmp.Compare(a.Index, b.Index))
}

// MarginalBasis says what a modelled marginal price is derived from.
type MarginalBasis string

// The bases of a modelled marginal price.
const (
	// BidLadder: the real German bid ladder of the quarter-hour and
	// direction (the regelleistung.net overview) at the modelled volume.
	BidLadder MarginalBasis = "the real German bid ladder of the quarter-hour"
	// FromRebap: the quarter-hour's reBAP (pos: reBAP, neg: minus reBAP).
	FromRebap MarginalBasis = "reBAP"
)

// DirectionMarket is the modelled aFRR energy market of one direction in
// one quarter-hour.
type DirectionMarket struct {
	Direction Direction
	// ActivatedMW is the modelled German activation (average MW over the
	// quarter-hour; 0: not activated).
	ActivatedMW float64
	// MarginalPrice (EUR/MWh, platform convention, whole cents) is what
	// every activated MWh of the direction is paid (pay-as-cleared).
	MarginalPrice decimal.Decimal
	Basis         MarginalBasis
	// Ladder is the modelled merit order of the rest of the German
	// market: it passes through (ActivatedMW, MarginalPrice).
	Ladder Ladder
}

// modelMarket models one direction of a quarter-hour with volumeMW
// activated. Where the real overview row exists (overview not nil), the
// rest of the market is its ladder and the marginal price the ladder's
// price at volumeMW, so it always lies between the real MIN and MARGINAL
// bids. Elsewhere the marginal price is reBAP (pos) or minus reBAP (neg),
// and the rest of the market is the reference ladder shifted to pass
// through that price at volumeMW.
func modelMarket(dir Direction, volumeMW float64, overview *EnergyOverview, rebap float64, reference Ladder) DirectionMarket {
	m := DirectionMarket{Direction: dir, ActivatedMW: volumeMW}
	var price float64
	if overview != nil {
		m.Basis, m.Ladder = BidLadder, OverviewLadder(*overview)
		price = m.Ladder.PriceAt(volumeMW)
	} else {
		price = rebap
		if dir == Neg {
			// When the system is long, long parties are paid reBAP for
			// the surplus negative aFRR absorbs: its price to the
			// absorbing provider is minus reBAP.
			price = -rebap
		}
		m.Basis, m.Ladder = FromRebap, reference.Shifted(price-reference.PriceAt(volumeMW))
	}
	// The overview's prices are whole cents, so rounding keeps the price
	// within them.
	m.MarginalPrice = decimal.New(int64(math.Round(price*100)), -2)
	return m
}

// meritOrder activates the platform's bids of one direction and
// quarter-hour (prices in cents, powers in kW) in merit order: cheapest
// first, each after the rest of the German market's bids priced below it
// (rest) and the platform's cheaper bids, until volumeMW is covered.
// Bids of one price share what is left pro rata to their power. A bid
// priced above marginalCents gets nothing. Activated kW are rounded down;
// the result is in the order of the bids and independent of it.
func meritOrder(priceCents, powerKW []int64, rest Ladder, volumeMW float64, marginalCents int64) []int64 {
	out := make([]int64, len(priceCents))
	order := make([]int, len(priceCents))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if priceCents[a] != priceCents[b] {
			if priceCents[a] < priceCents[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	var aheadKW int64 // platform bids before the current price
	for g := 0; g < len(order); {
		price := priceCents[order[g]]
		if price > marginalCents {
			break
		}
		h, groupKW := g, int64(0)
		for ; h < len(order) && priceCents[order[h]] == price; h++ {
			groupKW += powerKW[order[h]]
		}
		// The tolerance absorbs float noise where the rest reaches
		// volumeMW exactly at the marginal price.
		roomKW := int64(math.Floor((volumeMW-rest.VolumeBelow(float64(price)/100))*1000+1e-6)) - aheadKW
		if roomKW <= 0 {
			break // every dearer bid has even less room
		}
		for _, i := range order[g:h] {
			if roomKW >= groupKW {
				out[i] = powerKW[i]
			} else {
				out[i] = powerKW[i] * roomKW / groupKW
			}
		}
		aheadKW += groupKW
		g = h
	}
	return out
}
