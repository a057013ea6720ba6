package simulated

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/bids"
	"atcp/internal/markets/replay"
)

// Activations is the replayed day's aFRR activation of energy bids
// (control.Activations): the bids of a quarter-hour in the merit order of
// its modelled market (replay.QuarterHourClearing.Activate).
type Activations struct{ data *replay.Dataset }

// NewActivations activates bids against data's replayed days.
func NewActivations(data *replay.Dataset) Activations { return Activations{data: data} }

// Activated returns, in the order of energy, the MW activated of each bid
// in the quarter-hour starting at period, negative for neg bids; an error
// when the quarter-hour has no replayed clearing or a bid is not of it.
// A bid's activation depends on every platform bid of its quarter-hour
// and direction, so energy must be all of them (the control loop passes
// every forwarded bid covering the second): then each figure is the one
// the market records for the bid (simulation's activateEnergy).
func (a Activations) Activated(_ context.Context, period time.Time, energy []bids.Bid) ([]float64, error) {
	clearing, err := a.data.ClearQuarterHour(period)
	if err != nil {
		return nil, err
	}
	in := make([]replay.EnergyBid, len(energy))
	for i, b := range energy {
		in[i] = replay.EnergyBid{ID: b.ID, Period: b.Interval(), Direction: replay.Neg, PowerMW: b.OfferedMW}
		if b.Product == bids.Pos {
			in[i].Direction = replay.Pos
		}
		if b.EnergyPrice != nil {
			in[i].Price = decimal.New(int64(*b.EnergyPrice), -2)
		}
	}
	outcomes, err := clearing.Activate(in)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(energy))
	for i, o := range outcomes {
		out[i] = o.ActivatedMW
		if in[i].Direction == replay.Neg {
			out[i] = -out[i]
		}
	}
	return out, nil
}

// MarginalPrice is the marginal price (EUR/MWh) of direction in the
// replayed clearing of the quarter-hour starting at slot
// (afrrreport.Prices); nil when the quarter-hour did not clear or the
// direction was not activated.
func (a Activations) MarginalPrice(_ context.Context, slot time.Time, direction bids.Product) (*decimal.Decimal, error) {
	clearing, err := a.data.ClearQuarterHour(slot)
	if err != nil {
		return nil, err
	}
	dir := replay.Neg
	if direction == bids.Pos {
		dir = replay.Pos
	}
	m := clearing.Market(dir)
	if !clearing.Cleared || m.ActivatedMW <= 0 {
		return nil, nil
	}
	p := m.MarginalPrice
	return &p, nil
}
