package afrr

import (
	"time"

	"github.com/shopspring/decimal"
)

// OfferSource says where a value of a backup offer came from.
type OfferSource string

// The sources.
const (
	FromOverride OfferSource = "override" // the override covering the quarter-hour set it
	FromDefault  OfferSource = "default"  // the default version in force set it (for a cap, possibly "no cap")
	FromNothing  OfferSource = "none"     // neither exists
)

// Offer is what an asset offers the aFRR backup market for one quarter-hour
// and product.
type Offer struct {
	QuarterHour time.Time
	Product     Product
	// Price is nil when neither an override nor a default sets one: the
	// asset is then not offered.
	Price       *decimal.Decimal
	PriceSource OfferSource
	// MaxCapacityMW is the cap of the backup configuration; nil means no
	// cap from it (the prequalified capacity still bounds dispatch). 0
	// means unavailable for backup dispatch.
	MaxCapacityMW  *float64
	CapacitySource OfferSource
	// OverrideID names the override covering the quarter-hour, if any.
	OverrideID string
}

// Offered reports whether the asset takes part in the backup market for
// the quarter-hour: it has a price and a cap other than zero.
func (o Offer) Offered() bool {
	return o.Price != nil && (o.MaxCapacityMW == nil || *o.MaxCapacityMW > 0)
}

// EffectiveBackupOffer resolves what one asset offers the backup market for
// the quarter-hour starting at quarterHour in direction product: each value
// comes from the override covering the quarter-hour when that override
// sets it, else from the default version in force at the quarter-hour (the
// one with the latest EffectiveFrom not after it). defaults and overrides
// are the asset's, in any order; those of other products are ignored.
// Overrides of one product never overlap in a store; should the input hold
// overlapping ones anyway, the most recently created wins.
func EffectiveBackupOffer(defaults []Default, overrides []Override, product Product, quarterHour time.Time) Offer {
	offer := Offer{QuarterHour: quarterHour, Product: product, PriceSource: FromNothing, CapacitySource: FromNothing}
	var cover *Override
	for i := range overrides {
		o := &overrides[i]
		if o.Product != product || !o.Interval().Contains(quarterHour) {
			continue
		}
		if cover == nil || o.CreatedAt.After(cover.CreatedAt) {
			cover = o
		}
	}
	var def *Default
	for i := range defaults {
		d := &defaults[i]
		if d.Product != product || d.EffectiveFrom.After(quarterHour) {
			continue
		}
		if def == nil || d.EffectiveFrom.After(def.EffectiveFrom) {
			def = d
		}
	}
	if def != nil {
		price := def.Price
		offer.Price, offer.PriceSource = &price, FromDefault
		offer.MaxCapacityMW, offer.CapacitySource = copyPtr(def.MaxCapacityMW), FromDefault
	}
	if cover != nil {
		offer.OverrideID = cover.ID
		if cover.Price != nil {
			price := *cover.Price
			offer.Price, offer.PriceSource = &price, FromOverride
		}
		if cover.MaxCapacityMW != nil {
			offer.MaxCapacityMW, offer.CapacitySource = copyPtr(cover.MaxCapacityMW), FromOverride
		}
	}
	return offer
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
