package afrr

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/textrule"
)

// Product is an aFRR direction, or NA for the symmetric FCR cover.
type Product string

// The products. NA is the symmetric placeholder of the product enumeration
// (document 1: "used by backup-market configuration and FCR
// collateralisation"): a backup configuration of product na is the asset's
// offer to cover another pool member's FCR obligation, its price in EUR per
// MW and hour of cover (docs/portfolio.md).
const (
	Pos Product = "pos" // inject into the grid
	Neg Product = "neg" // absorb from the grid
	NA  Product = "na"  // symmetric: FCR cover
)

// ParseProduct checks a product sent for the backup market and reports a
// problem with it at location in v.
func ParseProduct(v *errs.Validation, location, s string) Product {
	switch Product(s) {
	case Pos, Neg, NA:
		return Product(s)
	default:
		v.Add(location, "must be pos, neg or na", s)
	}
	return ""
}

// PrequalifiedMW is the asset's prequalified capacity for product p: aFRR
// in direction pos or neg, FCR for na.
func PrequalifiedMW(a assets.Asset, p Product) float64 {
	switch p {
	case Pos:
		return a.AFRRPrequalifiedPosMW
	case NA:
		return a.FCRPrequalifiedMW
	}
	return a.AFRRPrequalifiedNegMW
}

// market names the market whose prequalification bounds product p.
func (p Product) market() string {
	if p == NA {
		return "FCR"
	}
	return "aFRR " + string(p)
}

// Backup-market price bounds in EUR/MWh (document 1, Limits: the aFRR
// energy price range; negative means the provider pays).
var (
	MinBackupPrice = decimal.NewFromInt(-15000)
	MaxBackupPrice = decimal.NewFromInt(15000)
)

// MaxNoteLength bounds an override's note, in characters.
const MaxNoteLength = 1000

// priceText is a JSON number or the text of a price string: an optional
// minus, at most 20 digits, an optional fraction and an optional small
// exponent. Bounding the digits and the exponent keeps every accepted
// input cheap to compare, whatever a client sends.
var priceText = regexp.MustCompile(`^-?[0-9]{1,20}(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,2})?$`)

// ParsePrice parses a backup-market price in EUR/MWh, sent as a JSON
// number or string (the text without quotes): at most 2 decimals (by value:
// "12.50" is 12.5) and within MinBackupPrice..MaxBackupPrice.
func ParsePrice(s string) (decimal.Decimal, error) {
	if !priceText.MatchString(s) {
		return decimal.Decimal{}, fmt.Errorf("must be a decimal number such as 85.5 or \"-12.25\"")
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("must be a decimal number such as 85.5 or \"-12.25\"")
	}
	if d.LessThan(MinBackupPrice) || d.GreaterThan(MaxBackupPrice) {
		return decimal.Decimal{}, fmt.Errorf("must be between %s and %s EUR/MWh", MinBackupPrice, MaxBackupPrice)
	}
	if !d.Equal(d.Round(2)) {
		return decimal.Decimal{}, fmt.Errorf("must have at most 2 decimals")
	}
	return d.Round(2), nil
}

// PriceCents is a validated price in euro cents, the form the stores keep.
func PriceCents(d decimal.Decimal) int64 { return d.Shift(2).IntPart() }

// PriceFromCents reads a price stored by PriceCents.
func PriceFromCents(c int64) decimal.Decimal { return decimal.New(c, -2) }

// FormatPrice is the wire form of a price: a decimal string with exactly
// two decimals, so that no client parses money through a float.
func FormatPrice(d decimal.Decimal) string { return d.StringFixed(2) }

// Override replaces the default price and/or capacity cap of one asset and
// product for the window [Start, End). A nil Price or MaxCapacityMW falls
// back to the default in force at each quarter-hour, resolved when read:
// the default is never copied into the override.
type Override struct {
	ID             string
	OrganizationID string
	AssetID        string
	Product        Product
	Start, End     time.Time // UTC quarter-hours, End exclusive
	Price          *decimal.Decimal
	// MaxCapacityMW is an absolute magnitude; 0 marks the asset
	// unavailable for backup dispatch in the window.
	MaxCapacityMW *float64
	Note          *string
	CreatedAt     time.Time
}

// Interval is the override's window.
func (o Override) Interval() calendar.Interval { return calendar.Interval{Start: o.Start, End: o.End} }

// Default is one version of an asset's default for a product: in force
// from EffectiveFrom until the next version's EffectiveFrom.
type Default struct {
	OrganizationID string
	AssetID        string
	Product        Product
	Price          decimal.Decimal
	MaxCapacityMW  *float64 // absolute magnitude; nil means no cap
	EffectiveFrom  time.Time
	UpdatedAt      time.Time
}

// OverrideRequest is a new override as sent by a client: the price is the
// text of a JSON number or string, nil when absent or null.
type OverrideRequest struct {
	Product       string
	Start, End    time.Time
	Price         *string
	MaxCapacityMW *float64
	Note          *string
}

// DefaultRequest is a default as sent by a client.
type DefaultRequest struct {
	Product       string
	Price         string
	MaxCapacityMW *float64 // nil: no cap
}

// checkCapacity reports a capacity cap that is negative, not finite or
// above the asset's prequalified capacity in direction p: such a cap could
// never be dispatched, so it is refused rather than silently lowered.
func checkCapacity(v *errs.Validation, location string, mw *float64, a assets.Asset, p Product) {
	switch {
	case mw == nil:
	case math.IsNaN(*mw) || math.IsInf(*mw, 0) || *mw < 0:
		v.Add(location, "must be a magnitude of at least 0 MW", *mw)
	case p != "" && *mw > PrequalifiedMW(a, p):
		v.Add(location, fmt.Sprintf("exceeds the asset's prequalified %s capacity of %g MW", p.market(), PrequalifiedMW(a, p)), *mw)
	}
}

// NewOverride validates r for asset a at now and returns the override to
// store (without its ID): 422 naming every offending field, then 409
// gate_closed when the first block's backup-market gate has passed.
func NewOverride(r OverrideRequest, a assets.Asset, now time.Time) (Override, error) {
	var v errs.Validation
	p := ParseProduct(&v, "body.product", r.Product)
	start, end := r.Start.UTC(), r.End.UTC()
	if !calendar.AlignedToPeriod(start) {
		v.Add("body.start_time", "must sit on a UTC quarter-hour (:00, :15, :30, :45)", r.Start)
	}
	if !calendar.AlignedToPeriod(end) {
		v.Add("body.end_time", "must sit on a UTC quarter-hour (:00, :15, :30, :45)", r.End)
	}
	if !end.After(start) {
		v.Add("body.end_time", "must be after start_time: the minimum window is one 15-minute block", r.End)
	}
	o := Override{OrganizationID: a.OrganizationID, AssetID: a.ID, Product: p, Start: start, End: end, MaxCapacityMW: r.MaxCapacityMW}
	if r.Price != nil {
		price, err := ParsePrice(*r.Price)
		if err != nil {
			v.Add("body.price", err.Error(), *r.Price)
		} else {
			o.Price = &price
		}
	}
	checkCapacity(&v, "body.max_capacity_mw", r.MaxCapacityMW, a, p)
	if r.Note != nil {
		if n := len([]rune(*r.Note)); n > MaxNoteLength {
			v.Add("body.note", fmt.Sprintf("must be at most %d characters", MaxNoteLength), n)
		} else {
			textrule.CheckText(&v, "body.note", *r.Note)
		}
		o.Note = r.Note
	}
	if err := v.Err(); err != nil {
		return Override{}, err
	}
	if err := gateOpen(start, now); err != nil {
		return Override{}, err
	}
	o.CreatedAt = now.UTC().Truncate(time.Microsecond)
	return o, nil
}

// NewDefault validates r for asset a and returns the default version it
// makes, effective from the first block whose gate is still open at now.
func NewDefault(r DefaultRequest, a assets.Asset, now time.Time) (Default, error) {
	var v errs.Validation
	p := ParseProduct(&v, "body.product", r.Product)
	price, err := ParsePrice(r.Price)
	if err != nil {
		v.Add("body.default_price", err.Error(), r.Price)
	}
	checkCapacity(&v, "body.default_max_capacity_mw", r.MaxCapacityMW, a, p)
	if err := v.Err(); err != nil {
		return Default{}, err
	}
	return Default{
		OrganizationID: a.OrganizationID, AssetID: a.ID, Product: p, Price: price, MaxCapacityMW: r.MaxCapacityMW,
		EffectiveFrom: FirstOpenBlock(now), UpdatedAt: now.UTC().Truncate(time.Microsecond),
	}, nil
}

// FirstOpenBlock is the start of the first 15-minute block whose
// backup-market gate is still open at now: the block a configuration
// change made at now applies from.
func FirstOpenBlock(now time.Time) time.Time {
	b := now.UTC().Truncate(calendar.PeriodLength).Add(calendar.PeriodLength)
	for !now.Before(calendar.BackupMarketGate(b)) {
		b = b.Add(calendar.PeriodLength)
	}
	return b
}

// gateOpen reports 409 gate_closed unless the backup-market gate of the
// block starting at blockStart is still open at now.
func gateOpen(blockStart, now time.Time) error {
	gate := calendar.BackupMarketGate(blockStart)
	if now.Before(gate) {
		return nil
	}
	return errs.Conflictf(bids.CodeGateClosed, "the backup-market gate for the block starting %s closed at %s",
		blockStart.Format(time.RFC3339), gate.Format(time.RFC3339))
}

// OverlapConflict is the 409 override_overlaps for o, which overlaps the
// stored overrides named by ids.
func OverlapConflict(o Override, ids []string) error {
	return errs.Conflictf(CodeOverrideOverlaps,
		"the %s override %s to %s overlaps override(s) %s of the same product; overrides of one product must not overlap",
		o.Product, o.Start.Format(time.RFC3339), o.End.Format(time.RFC3339), strings.Join(ids, ", "))
}

// OverrideNotFound is the 404 of an unknown or invisible override.
func OverrideNotFound(id string) error {
	return errs.NotFoundf("backup-market override %q not found", id)
}

// NoDefault is the 404 no_default of a product that has never had a
// default.
func NoDefault(assetID string, p Product) error {
	return errs.E(errs.NotFound, CodeNoDefault, "asset %q has no %s backup-market default; set one with PUT", assetID, p)
}
