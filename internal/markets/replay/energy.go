package replay

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

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
	// Price is EUR/MWh in the platform's convention for both directions:
	// what the provider receives per MWh delivered (pos) or absorbed (neg);
	// negative means the provider pays.
	Price float64
}

// QuarterHourClearing is the modelled aFRR energy market of one delivery
// period. Every figure in it is modelled from real signals of the source
// quarter-hour (frequency and reBAP), except FallbackPrice's input.
type QuarterHourClearing struct {
	Period calendar.Interval
	Source QuarterHour
	// Cleared is false when the source quarter-hour's data is missing or
	// incomplete: then every bid falls back.
	Cleared bool
	// Direction is the one direction activated: pos when the mean
	// frequency was below 50 Hz (system short), neg when above; empty when
	// exactly 50 Hz or not cleared.
	Direction Direction
	// SystemActivatedMW is the modelled German activation (average MW):
	// the 2024 activated volume at the same rank of deviation.
	SystemActivatedMW float64
	// ActivationShare is the share of an in-merit bid's power activated:
	// SystemActivatedMW over the German capacity allocated for the
	// direction and block, at most 1.
	ActivationShare float64
	// MarginalPrice (EUR/MWh, platform convention) is reBAP for pos and
	// minus reBAP for neg.
	MarginalPrice float64
	// FallbackPrice is the substitute price of a quarter-hour that did not
	// clear: the day-ahead price of the source quarter-hour.
	FallbackPrice float64
}

// EnergyOutcome is the result of one aFRR energy bid.
type EnergyOutcome struct {
	BidID  string
	Status Status // SUCCESSFUL when activated, REJECTED when not, FALLBACK when the period did not clear
	// ActivatedMW is the average activated power over the period;
	// ActivatedMWh the energy (ActivatedMW x 0.25 h).
	ActivatedMW  float64
	ActivatedMWh float64
	// SettlementPrice is the marginal price of the period and direction
	// (EUR/MWh, platform convention), or the fallback price.
	SettlementPrice float64
	RevenueEUR      float64 // ActivatedMWh x SettlementPrice, rounded to cents; negative: the provider pays
	PriceSource     PriceSource
	Source          QuarterHour
	// Note names the replayed quarter-hour and says how the bid fared
	// (always set).
	Note string
}

// activation is the precomputed modelled activation of a source
// quarter-hour.
type activation struct {
	dir Direction
	mw  float64
}

// modelActivations ranks each source day's quarter-hours of one
// direction by the size of their mean frequency deviation and gives each
// the 2024 activated volume of that direction at the same quantile (with
// linear interpolation): larger deviation, more activation, with the
// real distribution of activated volumes.
func (d *Dataset) modelActivations() {
	d.activations = map[QuarterHour]activation{}
	type dev struct {
		q   QuarterHour
		abs float64
	}
	groups := map[calendar.Day]map[Direction][]dev{}
	for q, f := range d.frequency {
		delta := f.MeanHz - NominalHz
		if delta == 0 {
			continue
		}
		dir := Pos
		if delta > 0 {
			dir = Neg
		}
		if groups[q.Day] == nil {
			groups[q.Day] = map[Direction][]dev{}
		}
		groups[q.Day][dir] = append(groups[q.Day][dir], dev{q, math.Abs(delta)})
	}
	for _, byDir := range groups {
		for dir, devs := range byDir {
			slices.SortFunc(devs, func(a, b dev) int {
				if a.abs != b.abs {
					if a.abs < b.abs {
						return -1
					}
					return 1
				}
				return a.q.Index - b.q.Index
			})
			for rank, v := range devs {
				q := 1.0
				if len(devs) > 1 {
					q = float64(rank) / float64(len(devs)-1)
				}
				d.activations[v.q] = activation{dir, quantile(d.calibration[dir], q)}
			}
		}
	}
}

// quantile reads the q-quantile (0..1) of ascending values.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// ClearQuarterHour models the aFRR energy market of the delivery period
// starting at periodStart, from its source quarter-hour.
func (d *Dataset) ClearQuarterHour(periodStart time.Time) (QuarterHourClearing, error) {
	src, err := SourceQuarterHour(periodStart)
	if err != nil {
		return QuarterHourClearing{}, err
	}
	c := QuarterHourClearing{Period: calendar.Interval{Start: periodStart, End: periodStart.Add(calendar.PeriodLength)}, Source: src}
	c.FallbackPrice, _ = d.DayAhead(src)
	f, okF := d.Frequency(src)
	rebap, okR := d.Rebap(src)
	if !okF || !okR || f.Samples < MinSamples {
		return c, nil
	}
	c.Cleared = true
	a, ok := d.activations[src]
	if !ok { // exactly 50 Hz: nothing activated
		return c, nil
	}
	block, ok := d.AFRRCapacity(src.Day, a.dir, src.Index/16)
	if !ok {
		return QuarterHourClearing{}, fmt.Errorf("no aFRR capacity result for %s %s block %d", src.Day, a.dir, src.Index/16)
	}
	c.Direction, c.SystemActivatedMW = a.dir, a.mw
	c.ActivationShare = min(1, a.mw/block.AllocatedDE)
	c.MarginalPrice = rebap
	if a.dir == Neg {
		c.MarginalPrice = -rebap
	}
	return c, nil
}

// ApplyEnergy settles one energy bid against the clearing of its period:
// a bid of the activated direction whose price is within the marginal
// price in merit order (price <= marginal, in the platform convention
// for both directions, since the TSO calls what costs it least first) is
// activated for ActivationShare of its power and paid the marginal price.
func ApplyEnergy(c QuarterHourClearing, b EnergyBid) EnergyOutcome {
	o := EnergyOutcome{BidID: b.ID, Status: Rejected, PriceSource: Modelled, Source: c.Source}
	switch {
	case !c.Cleared:
		o.Status, o.SettlementPrice = Fallback, c.FallbackPrice
		o.Note = "no market data for the replayed quarter-hour: the substitute (day-ahead) price applies, nothing activated"
	case c.Direction != b.Direction:
		o.Note = "the other direction was activated in this quarter-hour"
	case b.Price > c.MarginalPrice:
		o.SettlementPrice = c.MarginalPrice
		o.Note = "priced beyond the marginal price"
	case c.ActivationShare <= 0:
		o.SettlementPrice = c.MarginalPrice
		o.Note = "no activation modelled in this quarter-hour"
	default:
		o.Status, o.SettlementPrice = Successful, c.MarginalPrice
		o.ActivatedMW = math.Floor(b.PowerMW*c.ActivationShare*1000) / 1000
		o.ActivatedMWh = o.ActivatedMW * calendar.PeriodLength.Hours()
		o.RevenueEUR = cents(o.ActivatedMWh * c.MarginalPrice)
		o.Note = fmt.Sprintf("activated for a modelled share %.4g of the offered power, paid the marginal price (reBAP)", c.ActivationShare)
	}
	o.Note = fmt.Sprintf("modelled from the replayed quarter-hour %s (local time): %s", c.Source, o.Note)
	return o
}

func checkEnergyBid(b EnergyBid) error {
	switch {
	case b.ID == "":
		return errors.New("bid without id")
	case b.Direction != Pos && b.Direction != Neg:
		return fmt.Errorf("bid %s: direction %q is not pos or neg", b.ID, b.Direction)
	case !(b.PowerMW > 0) || math.IsInf(b.PowerMW, 0):
		return fmt.Errorf("bid %s: power %v MW is not positive", b.ID, b.PowerMW)
	case math.IsNaN(b.Price) || math.IsInf(b.Price, 0):
		return fmt.Errorf("bid %s: price %v is not a number", b.ID, b.Price)
	case b.Period.Duration() != calendar.PeriodLength || !calendar.AlignedToPeriod(b.Period.Start):
		return fmt.Errorf("bid %s: %s-%s is not a 15-minute delivery period", b.ID, b.Period.Start.Format(time.RFC3339), b.Period.End.Format(time.RFC3339))
	}
	return nil
}

// ClearAFRREnergy activates aFRR energy bids, each in its own period (see
// ClearQuarterHour and ApplyEnergy). Outcomes are in the order of bids.
func (d *Dataset) ClearAFRREnergy(bids []EnergyBid) ([]EnergyOutcome, error) {
	out := make([]EnergyOutcome, len(bids))
	periods := map[time.Time]QuarterHourClearing{}
	for i, b := range bids {
		if err := checkEnergyBid(b); err != nil {
			return nil, err
		}
		c, ok := periods[b.Period.Start]
		if !ok {
			var err error
			if c, err = d.ClearQuarterHour(b.Period.Start); err != nil {
				return nil, fmt.Errorf("bid %s: %w", b.ID, err)
			}
			periods[b.Period.Start] = c
		}
		out[i] = ApplyEnergy(c, b)
	}
	return out, nil
}
