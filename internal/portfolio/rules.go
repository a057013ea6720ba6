package portfolio

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/calendar"
)

// Product is an obligation that can fail and be covered.
type Product string

// The products: FCR is symmetric, aFRR directional.
const (
	FCR     Product = "fcr"
	AFRRPos Product = "pos"
	AFRRNeg Product = "neg"
)

// Products in the order a failing member's obligations are covered: FCR
// first, since it is the stricter obligation (a 30-second full response).
var Products = []Product{FCR, AFRRPos, AFRRNeg}

// Obligation is an asset's awarded power per product (MW magnitudes).
type Obligation struct {
	FCR, Pos, Neg float64
}

// Of returns the figure of product p.
func (o Obligation) Of(p Product) float64 {
	switch p {
	case FCR:
		return o.FCR
	case AFRRPos:
		return o.Pos
	}
	return o.Neg
}

// add adds mw to product p.
func (o *Obligation) add(p Product, mw float64) {
	switch p {
	case FCR:
		o.FCR += mw
	case AFRRPos:
		o.Pos += mw
	default:
		o.Neg += mw
	}
}

// Zero reports whether nothing is awarded.
func (o Obligation) Zero() bool { return o.FCR <= 0 && o.Pos <= 0 && o.Neg <= 0 }

// Condition is what decides how much an asset can deliver now.
type Condition struct {
	// RatedMW is the usable power capacity, no more than the grid
	// connection; 0 when not recorded.
	RatedMW float64
	// Unavailable: an active unavailability or a full power or energy
	// restriction.
	Unavailable bool
	// MaxDischargeMW and MaxChargeMW are the active power limit as
	// magnitudes (upper limit, minus the lower limit); nil without one.
	MaxDischargeMW, MaxChargeMW *float64
	// Offline: the asset's adapter does not reach it (no recent
	// measurements, or asset_status 0).
	Offline bool
	// DischargeEnergyMWh and ChargeEnergyMWh are the energy the battery
	// can still deliver or absorb (available_discharge_energy and
	// available_charge_energy); nil when unknown (not limiting).
	DischargeEnergyMWh, ChargeEnergyMWh *float64
}

// sustain is how long an obligation must be sustainable from the stored
// energy: a whole quarter-hour (the FCR 15-minute criterion, and aFRR's
// settlement period).
var sustain = calendar.PeriodLength.Hours()

// Deliverable is the most power the asset can deliver now and sustain
// for a quarter-hour, each way (MW magnitudes).
func (c Condition) Deliverable() (dischargeMW, chargeMW float64) {
	if c.Unavailable || c.Offline || !(c.RatedMW > 0) {
		return 0, 0
	}
	dischargeMW, chargeMW = c.RatedMW, c.RatedMW
	if c.MaxDischargeMW != nil {
		dischargeMW = min(dischargeMW, max(*c.MaxDischargeMW, 0))
	}
	if c.MaxChargeMW != nil {
		chargeMW = min(chargeMW, max(*c.MaxChargeMW, 0))
	}
	if c.DischargeEnergyMWh != nil {
		dischargeMW = min(dischargeMW, max(*c.DischargeEnergyMWh, 0)/sustain)
	}
	if c.ChargeEnergyMWh != nil {
		chargeMW = min(chargeMW, max(*c.ChargeEnergyMWh, 0)/sustain)
	}
	return kw(dischargeMW), kw(chargeMW)
}

// kw rounds a non-negative MW figure down to 1 kW, the resolution of
// every award and cover.
func kw(mw float64) float64 { return math.Floor(mw*1000+1e-9) / 1000 }

// tolerance is below the 1 kW resolution: differences smaller than it
// are rounding, not shortfalls.
const tolerance = 1e-6

// Assess splits an asset's obligation into what it can hold with the
// power it can deliver each way (held) and what it cannot (short). FCR is
// served first and needs the same power both ways; aFRR pos then takes
// what is left of the discharge side, aFRR neg what is left of the charge
// side.
func Assess(ob Obligation, dischargeMW, chargeMW float64) (held, short Obligation) {
	held.FCR = max(0, min(ob.FCR, dischargeMW, chargeMW))
	held.Pos = max(0, min(ob.Pos, dischargeMW-held.FCR))
	held.Neg = max(0, min(ob.Neg, chargeMW-held.FCR))
	short = Obligation{FCR: kw(ob.FCR - held.FCR), Pos: kw(ob.Pos - held.Pos), Neg: kw(ob.Neg - held.Neg)}
	return held, short
}

// Offer is a member's backup-market offer for one product and the
// quarter-hour (afrr.EffectiveBackupOffer: pos and neg for aFRR, na for
// FCR).
type Offer struct {
	Price *decimal.Decimal // EUR/MWh (FCR: EUR per MW and hour of cover); nil: not offered
	CapMW *float64         // nil: no cap; 0: unavailable for backup dispatch
	// PriceSource says where the price came from (override or default).
	PriceSource string
}

// offered reports whether the offer lets the member cover at all.
func (o Offer) offered() bool { return o.Price != nil && (o.CapMW == nil || *o.CapMW > 0) }

// Member is one pool member's situation now.
type Member struct {
	AssetID string
	// Obligation is the member's own awards in force.
	Obligation Obligation
	// DischargeMW and ChargeMW are Condition.Deliverable.
	DischargeMW, ChargeMW float64
	// Prequalified bounds what the member may hold per product, its own
	// awards and covers together.
	Prequalified Obligation
	// FCREnabled and AFRREnabled: the member takes part in the market.
	FCREnabled, AFRREnabled bool
	// Offers are the member's backup offers per product; a member
	// without one does not cover that product. Only read for members
	// that could cover.
	Offers map[Product]Offer
}

// Pool is a group of members that may cover each other.
type Pool struct {
	OrganizationID string
	ID             string // "" for an asset in no pool: nobody covers it
	// Collateralisation (allow_internal_collateralisation) lets members
	// cover each other's FCR; aFRR cover needs only the members' backup
	// configuration.
	Collateralisation bool
	Members           []Member
}

// Assignment is one part of a failing member's shortfall: covered by a
// member at its backup price, or uncovered (Covering "").
type Assignment struct {
	Product      Product
	Failing      string
	Covering     string
	MW           float64
	ObligationMW float64 // the failing member's whole obligation of Product
	Price        *decimal.Decimal
	PriceSource  string
}

// Shortfalls reports whether any member of p cannot deliver its
// obligation: only then do offers need reading.
func Shortfalls(p Pool) bool {
	for _, m := range p.Members {
		if _, short := Assess(m.Obligation, m.DischargeMW, m.ChargeMW); !short.Zero() {
			return true
		}
	}
	return false
}

// Plan decides who covers what in p now: for each failing member (in
// asset id order) and product (FCR, pos, neg), the other members that can
// cover that product, cheapest backup price first (then asset id), each
// up to the least of its backup cap, its prequalified capacity left, and
// its free power (FCR needs it both ways); what is left is uncovered.
// Covers already given count against a coverer's cap, prequalification
// and free power.
func Plan(p Pool) []Assignment {
	states := make([]*planState, len(p.Members))
	for i := range p.Members {
		m := &p.Members[i]
		held, short := Assess(m.Obligation, m.DischargeMW, m.ChargeMW)
		states[i] = &planState{m: m, short: short,
			freeDischarge: max(0, m.DischargeMW-held.FCR-held.Pos),
			freeCharge:    max(0, m.ChargeMW-held.FCR-held.Neg),
			pq: Obligation{FCR: max(0, m.Prequalified.FCR-m.Obligation.FCR), Pos: max(0, m.Prequalified.Pos-m.Obligation.Pos),
				Neg: max(0, m.Prequalified.Neg-m.Obligation.Neg)}}
	}
	slices.SortFunc(states, func(a, b *planState) int { return cmp.Compare(a.m.AssetID, b.m.AssetID) })
	var out []Assignment
	for _, f := range states {
		for _, prod := range Products {
			rest := f.short.Of(prod)
			if rest <= tolerance {
				continue
			}
			for _, c := range coverers(p, states, f, prod) {
				offer := c.m.Offers[prod]
				room := min(rest, c.pq.Of(prod))
				switch prod {
				case FCR:
					room = min(room, c.freeDischarge, c.freeCharge)
				case AFRRPos:
					room = min(room, c.freeDischarge)
				default:
					room = min(room, c.freeCharge)
				}
				if offer.CapMW != nil {
					room = min(room, *offer.CapMW-c.capUsed.Of(prod))
				}
				mw := kw(max(room, 0))
				if mw <= tolerance {
					continue
				}
				price := *offer.Price
				out = append(out, Assignment{Product: prod, Failing: f.m.AssetID, Covering: c.m.AssetID, MW: mw,
					ObligationMW: f.m.Obligation.Of(prod), Price: &price, PriceSource: offer.PriceSource})
				rest = kw(rest - mw)
				c.capUsed.add(prod, mw)
				c.pq.add(prod, -mw)
				if prod != AFRRNeg {
					c.freeDischarge -= mw
				}
				if prod != AFRRPos {
					c.freeCharge -= mw
				}
				if rest <= tolerance {
					break
				}
			}
			if rest > tolerance {
				out = append(out, Assignment{Product: prod, Failing: f.m.AssetID, MW: rest, ObligationMW: f.m.Obligation.Of(prod)})
			}
		}
	}
	return out
}

// planState is a member's situation while Plan hands out covers.
type planState struct {
	m                         *Member
	short                     Obligation
	freeDischarge, freeCharge float64
	pq                        Obligation // prequalified capacity left
	capUsed                   Obligation // backup cap used by covers
}

// coverers are the members of p other than f that may cover prod,
// cheapest first.
func coverers(p Pool, states []*planState, f *planState, prod Product) []*planState {
	var out []*planState
	for _, s := range states {
		m := s.m
		if s == f || !m.Offers[prod].offered() {
			continue
		}
		if prod == FCR && (!p.Collateralisation || !m.FCREnabled) || prod != FCR && !m.AFRREnabled {
			continue
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b *planState) int {
		if c := a.m.Offers[prod].Price.Cmp(*b.m.Offers[prod].Price); c != 0 {
			return c
		}
		return cmp.Compare(a.m.AssetID, b.m.AssetID)
	})
	return out
}

// Step is a recorded cover decision: during [From, To) of the
// quarter-hour starting at QuarterHour, Failing could not deliver MW of
// its obligation of Product; Covering delivered it at Price, or nobody
// did (Covering "", Price nil).
type Step struct {
	ID             string
	OrganizationID string
	PoolID         string // "" when the failing asset is in no pool
	QuarterHour    time.Time
	Assignment
	From, To  time.Time
	CreatedAt time.Time
}

// key identifies a step's place: one failing member, product and coverer.
type key struct {
	failing, covering string
	product           Product
}

func keyOf(a Assignment) key { return key{a.Failing, a.Covering, a.Product} }

// same reports whether a step already carries assignment a.
func same(s Step, a Assignment) bool {
	if math.Abs(s.MW-a.MW) > tolerance || math.Abs(s.ObligationMW-a.ObligationMW) > tolerance {
		return false
	}
	if (s.Price == nil) != (a.Price == nil) {
		return false
	}
	return s.Price == nil || s.Price.Equal(*a.Price)
}

// Diff compares the steps open at t with the assignments planned at t
// for the same pools and quarter-hour: the open steps to close at t
// (changed or gone) and the assignments to open from t (changed or new).
// Unchanged steps go on.
func Diff(open []Step, planned []Assignment) (closing []Step, opening []Assignment) {
	want := make(map[key]Assignment, len(planned))
	for _, a := range planned {
		want[keyOf(a)] = a
	}
	kept := map[key]bool{}
	for _, s := range open {
		k := keyOf(s.Assignment)
		if a, ok := want[k]; ok && !kept[k] && same(s, a) {
			kept[k] = true
			continue
		}
		closing = append(closing, s)
	}
	for _, a := range planned {
		if !kept[keyOf(a)] {
			opening = append(opening, a)
		}
	}
	return closing, opening
}
