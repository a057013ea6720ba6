package simulated

import (
	"context"
	"time"

	"atcp/internal/markets/bids"
	"atcp/internal/markets/replay"
)

// Activations is the replayed day's aFRR activation of energy bids
// (control.Activations): each bid against the clearing model of its
// quarter-hour (replay.ApplyEnergy).
type Activations struct{ data *replay.Dataset }

// NewActivations activates bids against data's replayed days.
func NewActivations(data *replay.Dataset) Activations { return Activations{data: data} }

// Activated returns, in the order of energy, the MW activated of each bid
// in the quarter-hour starting at period, negative for neg bids; an error
// when the quarter-hour has no replayed clearing.
func (a Activations) Activated(_ context.Context, period time.Time, energy []bids.Bid) ([]float64, error) {
	clearing, err := a.data.ClearQuarterHour(period)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(energy))
	for i, b := range energy {
		eb := replay.EnergyBid{ID: b.ID, Period: b.Interval(), Direction: replay.Neg, PowerMW: b.OfferedMW}
		if b.Product == bids.Pos {
			eb.Direction = replay.Pos
		}
		if b.EnergyPrice != nil {
			eb.Price = float64(*b.EnergyPrice) / 100
		}
		out[i] = replay.ApplyEnergy(clearing, eb).ActivatedMW
		if eb.Direction == replay.Neg {
			out[i] = -out[i]
		}
	}
	return out, nil
}
