package replay

import (
	"errors"
	"fmt"
	"math"

	"atcp/internal/markets/calendar"
)

// Status is a bid's auction outcome (the bid statuses of document 1).
type Status string

// The outcome statuses.
const (
	Successful Status = "SUCCESSFUL"
	Rejected   Status = "REJECTED"
	Fallback   Status = "FALLBACK"
)

// PriceSource says what a result's figures are: the real published
// results of its own delivery day, the published results of another day
// replayed for it, or the model's.
type PriceSource string

// The price sources.
const (
	// Published: the delivery day is a replayed day, cleared with its own
	// published results.
	Published PriceSource = "published"
	// Replayed: the delivery day has no published results here; it is
	// cleared with the published results of SourceDay (the replayed day).
	Replayed PriceSource = "replayed"
	// Modelled: part of the result comes from the model (an award at
	// exactly the aFRR marginal price, every aFRR energy activation).
	Modelled PriceSource = "modelled"
)

// capacitySource is the price source of a capacity result of delivery day
// day cleared with the results of srcDay, and the clearing note that says
// which published figure it was judged against (what is the price of
// block srcBlock of srcDay, in local time).
func capacitySource(figure string, day, srcDay calendar.Day, srcBlock int) (PriceSource, string) {
	b := srcDay.TenderBlocks()[srcBlock]
	end := b.End.In(calendar.Berlin).Format("15:04")
	if end == "00:00" {
		end = "24:00"
	}
	label := fmt.Sprintf("%s of %s %s-%s", figure, srcDay, b.Start.In(calendar.Berlin).Format("15:04"), end)
	if day == srcDay {
		return Published, "cleared with the published " + label
	}
	return Replayed, fmt.Sprintf("no published results for %s here: cleared with the published %s, the replayed day", day, label)
}

// MarginVolumeMW is the modelled capacity still open at the marginal
// price of an aFRR capacity block and direction. The published results
// do not say how much of the marginal bid was accepted, so platform bids
// priced exactly at the marginal price share this volume pro rata; bids
// below it are awarded fully, as price-takers displacing the marginal bid.
const MarginVolumeMW = 5.0

// CapacityBid is an FCR or aFRR capacity bid as the market sees it.
type CapacityBid struct {
	ID       string
	Interval calendar.Interval // exactly one tender block
	PowerMW  float64
	// Price is the capacity price: EUR/MW for the block (FCR), EUR/MW per
	// hour (aFRR).
	Price     float64
	Direction Direction // aFRR only
}

// CapacityOutcome is the auction result of one capacity bid.
type CapacityOutcome struct {
	BidID     string
	Status    Status
	AwardedMW float64
	// ClearingPrice is the published figure the bid was judged against:
	// the German FCR settlement price (EUR/MW per block) or the German
	// aFRR marginal price (EUR/MW/h).
	ClearingPrice float64
	// SettlementPrice is what each awarded MW earns, in the unit of the
	// bid's price: the FCR settlement price (pay-as-cleared) or the bid's
	// own aFRR price (pay-as-bid). Zero when rejected.
	SettlementPrice float64
	// RevenueEUR is the capacity payment for the block, rounded to cents:
	// AwardedMW x price (FCR) or AwardedMW x price x block hours (aFRR).
	RevenueEUR  float64
	PriceSource PriceSource
	SourceDay   calendar.Day // the replayed day the result comes from
	SourceBlock int
	// Note says what the result was cleared with (always set).
	Note string
}

func checkCapacityBid(b CapacityBid, afrr bool) error {
	switch {
	case b.ID == "":
		return errors.New("bid without id")
	case !(b.PowerMW > 0) || math.IsInf(b.PowerMW, 0):
		return fmt.Errorf("bid %s: power %v MW is not positive", b.ID, b.PowerMW)
	case !(b.Price >= 0) || math.IsInf(b.Price, 0):
		return fmt.Errorf("bid %s: capacity price %v is not a non-negative number", b.ID, b.Price)
	case afrr && b.Direction != Pos && b.Direction != Neg:
		return fmt.Errorf("bid %s: direction %q is not pos or neg", b.ID, b.Direction)
	}
	return nil
}

// ClearFCR clears FCR capacity bids, each on its own delivery day, with
// the replayed uniform German settlement price of its block: a bid priced
// at or below it is awarded fully and paid that price per MW
// (pay-as-cleared); a bid above it is rejected. Outcomes are in the
// order of bids. A bid that is not a whole tender block, or not a valid
// bid, is an error (the bid engine validated it at submission).
func (d *Dataset) ClearFCR(bids []CapacityBid) ([]CapacityOutcome, error) {
	out := make([]CapacityOutcome, len(bids))
	for i, b := range bids {
		if err := checkCapacityBid(b, false); err != nil {
			return nil, err
		}
		day, block, err := BlockOf(b.Interval)
		if err != nil {
			return nil, fmt.Errorf("bid %s: %w", b.ID, err)
		}
		srcDay, srcBlock := SourceBlock(day, block)
		res, ok := d.FCR(srcDay, srcBlock)
		if !ok {
			return nil, fmt.Errorf("bid %s: no FCR result for %s block %d", b.ID, srcDay, srcBlock)
		}
		o := CapacityOutcome{BidID: b.ID, Status: Rejected, ClearingPrice: res.SettlementPriceDE, SourceDay: srcDay, SourceBlock: srcBlock}
		o.PriceSource, o.Note = capacitySource("German FCR settlement price", day, srcDay, srcBlock)
		if b.Price <= res.SettlementPriceDE {
			o.Status, o.AwardedMW, o.SettlementPrice = Successful, b.PowerMW, res.SettlementPriceDE
			o.RevenueEUR = cents(b.PowerMW * res.SettlementPriceDE)
		}
		out[i] = o
	}
	return out, nil
}

// ClearAFRRCapacity clears aFRR capacity bids with the replayed German
// marginal price of their direction and block (pay-as-bid): a bid below
// it is awarded fully, a bid above it rejected, and the bids priced
// exactly at it share MarginVolumeMW pro rata to their power (each at
// most its power; awards rounded down to 1 kW), so a large platform
// volume at the margin is partially awarded. An awarded bid earns its own
// price for every hour of the block (3 or 5 hours on the clock-change
// days). Outcomes are in the order of bids; the pro-rata share depends on
// the whole set, so pass every bid of the auction in one call.
func (d *Dataset) ClearAFRRCapacity(bids []CapacityBid) ([]CapacityOutcome, error) {
	type margin struct {
		day       calendar.Day
		dir       Direction
		block     int
		requested float64
	}
	out := make([]CapacityOutcome, len(bids))
	hours := make([]float64, len(bids))
	margins := map[afrrKey]*margin{}
	for i, b := range bids {
		if err := checkCapacityBid(b, true); err != nil {
			return nil, err
		}
		day, block, err := BlockOf(b.Interval)
		if err != nil {
			return nil, fmt.Errorf("bid %s: %w", b.ID, err)
		}
		srcDay, srcBlock := SourceBlock(day, block)
		res, ok := d.AFRRCapacity(srcDay, b.Direction, srcBlock)
		if !ok {
			return nil, fmt.Errorf("bid %s: no aFRR capacity result for %s %s block %d", b.ID, srcDay, b.Direction, srcBlock)
		}
		hours[i] = b.Interval.Duration().Hours()
		o := CapacityOutcome{BidID: b.ID, Status: Rejected, ClearingPrice: res.MarginalDE, SourceDay: srcDay, SourceBlock: srcBlock}
		o.PriceSource, o.Note = capacitySource("German aFRR marginal price ("+string(b.Direction)+")", day, srcDay, srcBlock)
		switch {
		case b.Price < res.MarginalDE:
			o.Status, o.AwardedMW, o.SettlementPrice = Successful, b.PowerMW, b.Price
		case b.Price == res.MarginalDE:
			// Awarded below, once the margin's total is known. The margin is
			// per delivery block (not source block): each real day has its
			// own auction.
			k := afrrKey{day, b.Direction, block}
			if margins[k] == nil {
				margins[k] = &margin{day: day, dir: b.Direction, block: block}
			}
			margins[k].requested += b.PowerMW
		}
		out[i] = o
	}
	for i, b := range bids {
		o := &out[i]
		if o.Status == Rejected && b.Price == o.ClearingPrice {
			day, block, _ := BlockOf(b.Interval)
			share := min(1, MarginVolumeMW/margins[afrrKey{day, b.Direction, block}].requested)
			o.AwardedMW = math.Floor(b.PowerMW*share*1000) / 1000
			// The published results do not say how much of the marginal
			// bid was taken: the award is the model's.
			o.PriceSource = Modelled
			o.Note += fmt.Sprintf("; priced at the marginal price: pro-rata share %.4g of a modelled %.4g MW margin", share, MarginVolumeMW)
			if o.AwardedMW > 0 {
				o.Status, o.SettlementPrice = Successful, b.Price
			}
		}
		if o.Status == Successful {
			o.RevenueEUR = cents(o.AwardedMW * o.SettlementPrice * hours[i])
		}
	}
	return out, nil
}

func cents(eur float64) float64 { return math.Round(eur*100) / 100 }
