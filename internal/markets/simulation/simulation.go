// Package simulation is the simulated market of the demonstration and
// test environments: background jobs on the platform clock that move
// capacity bids through their lifecycle the way the TSOs' platform would.
//
//   - Forwarding: PENDING bids stay editable until the recommended
//     deadline of their delivery day; from then on the bids are forwarded
//     in batches every five minutes, the last one five minutes before the
//     enforced gate. A bid last changed before that last batch is
//     SUBMITTED; one still PENDING at the gate never reached the market and
//     is FAILED. The decision depends only on the bid and the gate, so a
//     worker that runs late (a fast demo clock) decides the same.
//
//   - Late edits of SUBMITTED bids are forwarded within a minute: APPLIED
//     before the gate, FAILED_LATE_EDIT after it.
//
//   - Clearing: fifteen minutes after the gate the auction of the
//     delivery day is cleared with the replayed day's published results
//     (package replay) and every SUBMITTED bid becomes SUCCESSFUL (with its
//     awarded power and settlement price) or REJECTED. Each result records
//     its price source (published, replayed or modelled), the replayed day
//     it comes from and a note saying what it was cleared with.
//
//   - aFRR energy: a quarter-hour's energy bids are forwarded at its
//     closure (25 minutes before delivery) and, once the quarter-hour has
//     been delivered, activated or not by the modelled activation of the
//     replayed quarter-hour (package replay) and settled at its marginal
//     price; where the replayed data does not clear, FALLBACK.
//
//   - The award obligation: an aFRR capacity award obliges its holder to
//     offer the awarded power as energy in every quarter-hour of the block.
//     As in the German market, the capacity bid's energy price stands as
//     that energy offer: clearing records the award and creates its energy
//     bids (afrr.AwardEnergyBids, PENDING, source capacity_bid) in one
//     transaction. The holder may replace or delete them like its own
//     until each quarter-hour's energy gate; they are forwarded and
//     activated like any energy bid.
package simulation

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/replay"
	"atcp/internal/worker"
)

// The market's timing.
const (
	BatchEvery     = 5 * time.Minute  // forwarding batches after the recommended deadline
	LastBatchLead  = 5 * time.Minute  // the last batch runs this long before the gate
	ClearingDelay  = 15 * time.Minute // results are published this long after the gate
	EditForwarding = time.Minute      // late edits are forwarded within this
	batchSize      = 500
	// maxAuction bounds the bids one clearing run reads; far above what a
	// delivery day of the demonstration or the benchmarks holds.
	maxAuction = 1_000_000
)

// capacityMarket is what differs between FCR and aFRR capacity.
type capacityMarket struct {
	market bids.Market
	window func(calendar.Day) calendar.Window
	clear  func(*replay.Dataset, []replay.CapacityBid) ([]replay.CapacityOutcome, error)
	// awards, when set, creates the bids an award brings with it, in the
	// transaction that records the award.
	awards func(at time.Time) bids.FollowUp
}

var capacityMarkets = []capacityMarket{
	{bids.FCR, calendar.FCRWindow, (*replay.Dataset).ClearFCR, nil},
	{bids.AFRRCapacity, calendar.AFRRCapacityWindow, (*replay.Dataset).ClearAFRRCapacity, energyOfAwards},
}

// energyOfAwards creates the energy bids of aFRR capacity awards.
func energyOfAwards(at time.Time) bids.FollowUp {
	return bids.FollowUp{Market: bids.AFRREnergy, Create: func(awards, existing []bids.Bid) []bids.Bid {
		return afrr.AwardEnergyBids(awards, existing, at)
	}}
}

// Market is the simulated market.
type Market struct {
	store bids.Store
	data  *replay.Dataset
}

// New returns the simulated market over the bid store and the replay
// data.
func New(store bids.Store, data *replay.Dataset) *Market {
	return &Market{store: store, data: data}
}

// Jobs are the market's background jobs, for a worker.Runner.
func (m *Market) Jobs() []worker.Job {
	return []worker.Job{
		{Name: "market.forward", Every: time.Minute, Run: m.Forward},
		{Name: "market.edits", Every: EditForwarding / 2, Run: m.ForwardEdits},
		{Name: "market.clear", Every: time.Minute, Run: m.Clear},
		{Name: "market.energy", Every: time.Minute, Run: m.Energy},
	}
}

// lastBatch is the last forwarding batch before the gate.
func lastBatch(w calendar.Window) time.Time { return w.Closes.Add(-LastBatchLead) }

// horizon is a start time after every bid whose gate has passed by now:
// gates are on D-1, so the bids of the day after tomorrow are never due.
func horizon(now time.Time) time.Time {
	return calendar.DayOf(now).AddDays(2).Span().End
}

// Forward moves PENDING capacity bids to SUBMITTED or FAILED, as the
// forwarding batches up to now decide (see the package comment).
func (m *Market) Forward(ctx context.Context, now time.Time) error {
	for _, cm := range capacityMarkets {
		if err := m.forward(ctx, cm, now); err != nil {
			return err
		}
	}
	return nil
}

func (m *Market) forward(ctx context.Context, cm capacityMarket, now time.Time) error {
	for {
		pending, err := m.store.Due(ctx, cm.market, bids.Pending, horizon(now), batchSize)
		if err != nil {
			return err
		}
		var submit, fail []bids.Ref
		for _, b := range pending {
			w := cm.window(calendar.DayOf(b.Start))
			switch {
			case now.Before(w.Recommended):
			case b.UpdatedAt.Before(lastBatch(w)):
				submit = append(submit, bids.Ref{AssetID: b.AssetID, ID: b.ID})
			case !now.Before(w.Closes):
				fail = append(fail, bids.Ref{AssetID: b.AssetID, ID: b.ID})
			}
		}
		if len(submit) > 0 {
			if _, err := m.store.MarkSubmitted(ctx, submit, now); err != nil {
				return err
			}
		}
		if len(fail) > 0 {
			if _, err := m.store.MarkFailed(ctx, fail, now); err != nil {
				return err
			}
		}
		// A full page that changed nothing would be read again forever.
		if len(pending) < batchSize || len(submit)+len(fail) == 0 {
			return nil
		}
	}
}

// ForwardEdits settles late edits: applied while the gate is open,
// refused once it has closed.
func (m *Market) ForwardEdits(ctx context.Context, now time.Time) error {
	for _, cm := range capacityMarkets {
		edits, err := m.store.PendingEdits(ctx, cm.market, batchSize)
		if err != nil {
			return err
		}
		for _, b := range edits {
			ref := bids.Ref{AssetID: b.AssetID, ID: b.ID}
			gate := cm.window(calendar.DayOf(b.Start)).Closes
			var err error
			if now.Before(gate) {
				err = m.store.ResolveEdit(ctx, ref, true, "", "", now)
			} else {
				err = m.store.ResolveEdit(ctx, ref, false, "gate_closed",
					fmt.Sprintf("the gate closed at %s before the change reached the market; the original bid stays in the market", gate.Format(time.RFC3339)), now)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Clear clears every delivery day whose results are due by now.
func (m *Market) Clear(ctx context.Context, now time.Time) error {
	for _, cm := range capacityMarkets {
		submitted, err := m.store.Due(ctx, cm.market, bids.Submitted, horizon(now), maxAuction)
		if err != nil {
			return err
		}
		var due []bids.Bid
		for _, b := range submitted {
			if !now.Before(cm.window(calendar.DayOf(b.Start)).Closes.Add(ClearingDelay)) {
				due = append(due, b)
			}
		}
		if len(due) == 0 {
			continue
		}
		outcomes, err := clearCapacity(m.data, cm, due)
		if err != nil {
			return err
		}
		if cm.awards != nil {
			_, err = m.store.RecordAwards(ctx, outcomes, now, cm.awards(now))
		} else {
			_, err = m.store.RecordOutcomes(ctx, outcomes, now)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// clearCapacity runs one auction over the due bids (all of them in one
// call: at the margin the award of a bid depends on the others).
func clearCapacity(data *replay.Dataset, cm capacityMarket, due []bids.Bid) ([]bids.Outcome, error) {
	in := make([]replay.CapacityBid, len(due))
	for i, b := range due {
		in[i] = replay.CapacityBid{ID: b.ID, Interval: b.Interval(), PowerMW: b.OfferedMW}
		if b.CapacityPrice != nil {
			in[i].Price = float64(*b.CapacityPrice) / 100
		}
		if b.Product != bids.Sym {
			in[i].Direction = direction(b.Product)
		}
	}
	results, err := cm.clear(data, in)
	if err != nil {
		return nil, err
	}
	out := make([]bids.Outcome, len(results))
	for i, r := range results {
		source, day, note := string(r.PriceSource), r.SourceDay.String(), r.Note
		o := bids.Outcome{Ref: bids.Ref{AssetID: due[i].AssetID, ID: due[i].ID}, Status: bids.Rejected,
			PriceSource: &source, SourceDay: &day, ClearingNote: &note}
		if r.Status == replay.Successful {
			awarded := r.AwardedMW
			price := bids.Price(math.Round(r.SettlementPrice * 100))
			o.Status, o.AwardedMW, o.SettlementPrice = bids.Successful, &awarded, &price
		}
		out[i] = o
	}
	return out, nil
}

// Energy forwards the aFRR energy bids whose closure has passed and
// settles those whose quarter-hour has been delivered.
func (m *Market) Energy(ctx context.Context, now time.Time) error {
	// Closed: the period starts at or before now + the lead time (instants
	// are kept to the microsecond, so "at or before" is "before + 1 µs").
	closed := now.Add(calendar.EnergyBidLeadTime + time.Microsecond)
	pending, err := m.store.Due(ctx, bids.AFRREnergy, bids.Pending, closed, maxAuction)
	if err != nil {
		return err
	}
	refs := make([]bids.Ref, len(pending))
	for i, b := range pending {
		refs[i] = bids.Ref{AssetID: b.AssetID, ID: b.ID}
	}
	if len(refs) > 0 {
		if _, err := m.store.MarkSubmitted(ctx, refs, now); err != nil {
			return err
		}
	}
	submitted, err := m.store.Due(ctx, bids.AFRREnergy, bids.Submitted, now, maxAuction)
	if err != nil {
		return err
	}
	var delivered []bids.Bid
	for _, b := range submitted {
		if !now.Before(b.End) {
			delivered = append(delivered, b)
		}
	}
	if len(delivered) == 0 {
		return nil
	}
	outcomes, err := activateEnergy(m.data, delivered)
	if err != nil {
		return err
	}
	_, err = m.store.RecordOutcomes(ctx, outcomes, now)
	return err
}

// activateEnergy settles delivered energy bids: every bid of a
// quarter-hour in one merit order, as the control loop activated them
// (simulated.Activations converts the bids alike).
func activateEnergy(data *replay.Dataset, delivered []bids.Bid) ([]bids.Outcome, error) {
	in := make([]replay.EnergyBid, len(delivered))
	for i, b := range delivered {
		in[i] = replay.EnergyBid{ID: b.ID, Period: b.Interval(), Direction: direction(b.Product), PowerMW: b.OfferedMW}
		if b.EnergyPrice != nil {
			in[i].Price = decimal.New(int64(*b.EnergyPrice), -2)
		}
	}
	results, err := data.ClearAFRREnergy(in)
	if err != nil {
		return nil, err
	}
	out := make([]bids.Outcome, len(results))
	for i, r := range results {
		status := bids.Rejected
		switch r.Status {
		case replay.Successful:
			status = bids.Successful
		case replay.Fallback:
			status = bids.Fallback
		}
		activated := r.ActivatedMW
		price := bids.Price(r.SettlementPrice.Shift(2).IntPart()) // whole cents
		source, day, note := string(r.PriceSource), r.Source.Day.String(), r.Note
		out[i] = bids.Outcome{Ref: bids.Ref{AssetID: delivered[i].AssetID, ID: delivered[i].ID}, Status: status,
			AwardedMW: &activated, SettlementPrice: &price, PriceSource: &source, SourceDay: &day, ClearingNote: &note}
	}
	return out, nil
}

func direction(p bids.Product) replay.Direction {
	if p == bids.Pos {
		return replay.Pos
	}
	return replay.Neg
}
