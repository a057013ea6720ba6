package replay

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/calendar"
)

// NominalHz is the nominal grid frequency.
const NominalHz = 50.0

// MinSamples is the fewest 1 s frequency samples (of 900) a quarter-hour
// needs to be cleared; below it the quarter-hour falls back.
const MinSamples = 810

// EnergyBid is an aFRR energy bid for one 15-minute delivery period.
type EnergyBid struct {
	ID        string
	Period    calendar.Interval
	Direction Direction
	PowerMW   float64
	// Price is EUR/MWh, in whole cents, in the platform's convention for
	// both directions: what the provider receives per MWh delivered (pos)
	// or absorbed (neg); negative means the provider pays. The TSO calls
	// the bids that cost it least first, so in both directions cheaper is
	// earlier in the merit order.
	Price decimal.Decimal
}

// QuarterHourClearing is the modelled aFRR energy market of one delivery
// period, both directions. Every figure in it is modelled from real
// signals of the source quarter-hour (frequency, the real bid ladder or
// reBAP), except FallbackPrice, the real day-ahead price.
type QuarterHourClearing struct {
	Period calendar.Interval
	Source QuarterHour
	// Cleared is false when the source quarter-hour's data is missing or
	// incomplete: then every bid falls back.
	Cleared  bool
	Pos, Neg DirectionMarket
	// FallbackPrice is the substitute price of a quarter-hour that did not
	// clear: the day-ahead price of the source quarter-hour.
	FallbackPrice decimal.Decimal
}

// Market returns the clearing's market of one direction.
func (c QuarterHourClearing) Market(dir Direction) DirectionMarket {
	if dir == Pos {
		return c.Pos
	}
	return c.Neg
}

// EnergyOutcome is the result of one aFRR energy bid.
type EnergyOutcome struct {
	BidID  string
	Status Status // SUCCESSFUL when activated, REJECTED when not, FALLBACK when the period did not clear
	// ActivatedMW is the average activated power over the period, in whole
	// kW; ActivatedMWh the energy (ActivatedMW x 0.25 h).
	ActivatedMW  float64
	ActivatedMWh float64
	// SettlementPrice is the marginal price of the period and direction
	// (EUR/MWh, platform convention; zero when the direction was not
	// activated), or the fallback price.
	SettlementPrice decimal.Decimal
	// RevenueEUR is ActivatedMWh x SettlementPrice, rounded to cents half
	// away from zero; negative: the provider pays.
	RevenueEUR  decimal.Decimal
	PriceSource PriceSource
	Source      QuarterHour
	// Note names the replayed quarter-hour, says what is modelled and how
	// the bid fared (always set).
	Note string
}

// ClearQuarterHour models the aFRR energy market of the delivery period
// starting at periodStart, from its source quarter-hour: the German
// activation of each direction (ActivationModel), its marginal price and
// the rest of the market's merit order (modelMarket).
func (d *Dataset) ClearQuarterHour(periodStart time.Time) (QuarterHourClearing, error) {
	src, err := SourceQuarterHour(periodStart)
	if err != nil {
		return QuarterHourClearing{}, err
	}
	c := QuarterHourClearing{Period: calendar.Interval{Start: periodStart, End: periodStart.Add(calendar.PeriodLength)}, Source: src}
	if da, ok := d.DayAhead(src); ok {
		c.FallbackPrice = decimal.New(int64(math.Round(da*100)), -2)
	}
	f, okF := d.Frequency(src)
	rebap, okR := d.Rebap(src)
	if !okF || !okR || f.Samples < MinSamples {
		return c, nil
	}
	c.Cleared = true
	posMW, negMW := d.model.Volumes(f)
	c.Pos = d.market(src, Pos, posMW, rebap)
	c.Neg = d.market(src, Neg, negMW, rebap)
	return c, nil
}

func (d *Dataset) market(src QuarterHour, dir Direction, mw, rebap float64) DirectionMarket {
	if o, ok := d.EnergyOverview(src, dir); ok {
		return modelMarket(dir, mw, &o, rebap, Ladder{})
	}
	return modelMarket(dir, mw, nil, rebap, d.reference[dir])
}

// Activate activates the platform's energy bids of the clearing's period
// in merit order, per direction, against the modelled rest of the German
// market (meritOrder), and pays every activated MWh the direction's
// marginal price. A bid's activation depends on every platform bid of its
// period and direction, so pass them all: the control loop and the market
// then get the same figure for each. Outcomes are in the order of bids
// and do not depend on it.
func (c QuarterHourClearing) Activate(bids []EnergyBid) ([]EnergyOutcome, error) {
	for _, b := range bids {
		if err := checkEnergyBid(b); err != nil {
			return nil, err
		}
		if !b.Period.Start.Equal(c.Period.Start) {
			return nil, fmt.Errorf("bid %s: its period starts %s, not %s", b.ID, b.Period.Start.Format(time.RFC3339), c.Period.Start.Format(time.RFC3339))
		}
	}
	out := make([]EnergyOutcome, len(bids))
	idx := make([]int, len(bids))
	for i := range idx {
		idx[i] = i
	}
	c.activate(bids, idx, out)
	return out, nil
}

// activate writes the outcomes of the checked bids idx (all of this
// period) into out, at the same indices.
func (c QuarterHourClearing) activate(bids []EnergyBid, idx []int, out []EnergyOutcome) {
	prefix := fmt.Sprintf("modelled from the replayed quarter-hour %s (local time): ", c.Source)
	if !c.Cleared {
		note := prefix + "no market data for the replayed quarter-hour: the substitute (day-ahead) price applies, nothing activated"
		for _, i := range idx {
			out[i] = EnergyOutcome{BidID: bids[i].ID, Status: Fallback, SettlementPrice: c.FallbackPrice, PriceSource: Modelled, Source: c.Source, Note: note}
		}
		return
	}
	for _, m := range []DirectionMarket{c.Pos, c.Neg} {
		var own []int
		for _, i := range idx {
			if bids[i].Direction == m.Direction {
				own = append(own, i)
			}
		}
		if len(own) > 0 {
			c.settle(m, prefix, bids, own, out)
		}
	}
}

// settle writes the outcomes of the bids idx, all of market m's direction.
func (c QuarterHourClearing) settle(m DirectionMarket, prefix string, bids []EnergyBid, idx []int, out []EnergyOutcome) {
	marginal := m.MarginalPrice.Shift(2).IntPart()
	prices, powers := make([]int64, len(idx)), make([]int64, len(idx))
	for k, i := range idx {
		prices[k], _ = priceCents(bids[i].Price) // checked
		powers[k] = wholeKW(bids[i].PowerMW)
	}
	var activated []int64
	if m.ActivatedMW > 0 {
		activated = meritOrder(prices, powers, m.Ladder, m.ActivatedMW, marginal)
	}
	model := fmt.Sprintf("German %s activation %s MW modelled from the grid frequency, marginal price %s EUR/MWh modelled from %s",
		m.Direction, formatMW(m.ActivatedMW), m.MarginalPrice, m.Basis)
	none := prefix + fmt.Sprintf("not activated: no %s activation modelled in this quarter-hour (the grid frequency stayed within its deadband)", m.Direction)
	beyond := prefix + "not activated: priced beyond the marginal price; " + model
	covered := prefix + "not activated: cheaper bids of the rest of the German market and of the platform covered the modelled activation; " + model
	for k, i := range idx {
		o := EnergyOutcome{BidID: bids[i].ID, Status: Rejected, PriceSource: Modelled, Source: c.Source}
		switch {
		case m.ActivatedMW <= 0:
			o.Note = none
		case prices[k] > marginal:
			o.SettlementPrice, o.Note = m.MarginalPrice, beyond
		case activated[k] == 0:
			o.SettlementPrice, o.Note = m.MarginalPrice, covered
		default:
			kw := activated[k]
			o.Status, o.SettlementPrice = Successful, m.MarginalPrice
			o.ActivatedMW, o.ActivatedMWh = float64(kw)/1000, float64(kw)/4000
			// kW x cents x 0.25 h / (1000 kW/MW x 100 cents/EUR), exact.
			o.RevenueEUR = decimal.New(kw*marginal*25, -7).Round(2)
			how := "in the merit order"
			if kw < powers[k] {
				how = "at the margin of the merit order"
			}
			o.Note = prefix + fmt.Sprintf("activated %s of %s MW %s; %s; paid the marginal price",
				formatMW(o.ActivatedMW), formatMW(float64(powers[k])/1000), how, model)
		}
		out[i] = o
	}
}

// wholeKW is mw in whole kW, rounded down; the tolerance keeps a power
// such as 1.005 MW (1004.9999... kW in binary) at 1005 kW.
func wholeKW(mw float64) int64 { return int64(math.Floor(mw*1000 + 1e-6)) }

// formatMW writes a volume to the kW.
func formatMW(mw float64) string {
	return strconv.FormatFloat(math.Round(mw*1000)/1000, 'f', -1, 64)
}

// maxPriceCents is the platform's energy price limit, either sign
// (15,000 EUR/MWh; document 1, Limits).
const maxPriceCents = 1_500_000

// priceCents reads an energy price as whole cents; false when it has a
// fraction of a cent or lies beyond the limit. It reads the coefficient
// directly: decimal's own conversions allocate, and this runs for every
// bid.
func priceCents(p decimal.Decimal) (int64, bool) {
	switch {
	case p.IsZero():
		return 0, true
	case p.NumDigits() > 15 || p.Exponent() > 10 || p.Exponent() < -20:
		return 0, false // far beyond the limit, or finer than any cent
	}
	c, exp := p.CoefficientInt64(), int(p.Exponent())+2
	for ; exp > 0; exp-- {
		if c > maxPriceCents || c < -maxPriceCents {
			return 0, false
		}
		c *= 10
	}
	for ; exp < 0; exp++ {
		if c%10 != 0 {
			return 0, false
		}
		c /= 10
	}
	return c, c >= -maxPriceCents && c <= maxPriceCents
}

func checkEnergyBid(b EnergyBid) error {
	_, whole := priceCents(b.Price)
	switch {
	case b.ID == "":
		return errors.New("bid without id")
	case b.Direction != Pos && b.Direction != Neg:
		return fmt.Errorf("bid %s: direction %q is not pos or neg", b.ID, b.Direction)
	case !(b.PowerMW > 0) || math.IsInf(b.PowerMW, 0):
		return fmt.Errorf("bid %s: power %v MW is not positive", b.ID, b.PowerMW)
	case !whole:
		return fmt.Errorf("bid %s: price %s is not whole cents from -15000 to 15000 EUR/MWh", b.ID, b.Price)
	case b.Period.Duration() != calendar.PeriodLength || !calendar.AlignedToPeriod(b.Period.Start):
		return fmt.Errorf("bid %s: %s-%s is not a 15-minute delivery period", b.ID, b.Period.Start.Format(time.RFC3339), b.Period.End.Format(time.RFC3339))
	}
	return nil
}

// ClearAFRREnergy activates aFRR energy bids, each in its own period (see
// ClearQuarterHour and Activate): the bids of one period and direction
// compete in one merit order, so pass every bid of a period in one call.
// Outcomes are in the order of bids and do not depend on it.
func (d *Dataset) ClearAFRREnergy(bids []EnergyBid) ([]EnergyOutcome, error) {
	byPeriod := map[time.Time][]int{}
	for i, b := range bids {
		if err := checkEnergyBid(b); err != nil {
			return nil, err
		}
		// UTC: one key per instant, whatever the location.
		start := b.Period.Start.UTC()
		byPeriod[start] = append(byPeriod[start], i)
	}
	starts := keys(byPeriod)
	slices.SortFunc(starts, time.Time.Compare)
	out := make([]EnergyOutcome, len(bids))
	for _, start := range starts {
		idx := byPeriod[start]
		c, err := d.ClearQuarterHour(start)
		if err != nil {
			return nil, fmt.Errorf("bid %s: %w", bids[idx[0]].ID, err)
		}
		c.activate(bids, idx, out)
	}
	return out, nil
}
