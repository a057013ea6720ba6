package settlement

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// Compute returns the settlement of the quarter-hour starting at q: one
// Block for every asset that took part in it, through its bids (a
// SUCCESSFUL FCR or aFRR capacity award covering q, an aFRR energy bid of q
// with an outcome) or a cover step (failing or covering), ordered by asset
// id. bids may hold anything else (other quarter-hours, other statuses): it
// is ignored. The formulas are in docs/settlement.md. Each figure is
// computed exactly (rationals over the decimal prices and the shortest
// decimal form of each MW figure) and rounded once to the cent, half away
// from zero; the capacity revenues are rounded cumulatively over their
// block so that a block's quarter-hours add up to its capacity payment.
//
// A cover step that contradicts itself (outside the quarter-hour, no
// power, a covered step without a price, more cover than obligation) and a
// cleared bid without the figures clearing records are errors: they are
// faults of the recorder, not something to settle around.
func Compute(q time.Time, in []bids.Bid, steps []CoverStep) ([]Block, error) {
	if !calendar.AlignedToPeriod(q) {
		return nil, fmt.Errorf("settlement: %s is not a quarter-hour", q.Format(time.RFC3339Nano))
	}
	q = q.UTC()
	c := computation{q: q, assets: map[string]*assetInputs{}}
	for _, b := range in {
		if err := c.addBid(b); err != nil {
			return nil, err
		}
	}
	if err := c.addSteps(steps); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(c.assets))
	for id := range c.assets {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	// The coverers' energy fees are the holders' activated energy: first
	// every holder's energy, then the figures.
	for _, id := range ids {
		if err := c.assets[id].energyTotals(); err != nil {
			return nil, fmt.Errorf("settlement: asset %s: %w", id, err)
		}
	}
	out := make([]Block, 0, len(ids))
	for _, id := range ids {
		b, err := c.block(id)
		if err != nil {
			return nil, fmt.Errorf("settlement: asset %s: %w", id, err)
		}
		// An asset whose only inputs are energy bids without an outcome
		// took part in nothing yet.
		if len(b.Products) > 0 {
			out = append(out, b)
		}
	}
	return out, nil
}

// Ready reports whether the energy outcomes of the quarter-hour starting
// at q are in: none of its aFRR energy bids is still PENDING or SUBMITTED.
func Ready(q time.Time, in []bids.Bid) bool {
	for _, b := range in {
		if b.Market == bids.AFRREnergy && b.Start.Equal(q) && (b.Status == bids.Pending || b.Status == bids.Submitted) {
			return false
		}
	}
	return true
}

// reachedMarket reports whether an energy bid in status s was offered to
// the market: SUBMITTED, or cleared from there. PENDING bids have not
// reached it; FAILED and CANCELLED never will.
func reachedMarket(s bids.Status) bool {
	return s == bids.Submitted || s == bids.Successful || s == bids.Rejected || s == bids.Fallback
}

// OfferShortfall is the part of awardedMW (the holder's SUCCESSFUL aFRR
// capacity awards of product for the quarter-hour starting at q) that the
// holder did not offer as energy: awardedMW minus the offered power of its
// energy bids of that product and quarter-hour that reached the market
// (SUBMITTED, SUCCESSFUL, REJECTED, FALLBACK), never negative. Other bids
// in energy are ignored.
func OfferShortfall(q time.Time, product bids.Product, awardedMW decimal.Decimal, energy []bids.Bid) decimal.Decimal {
	offered := decimal.Zero
	for _, b := range energy {
		if b.Market == bids.AFRREnergy && b.Product == product && b.Start.Equal(q) && reachedMarket(b.Status) {
			offered = offered.Add(decimal.NewFromFloat(b.OfferedMW))
		}
	}
	if short := awardedMW.Sub(offered); short.IsPositive() {
		return short
	}
	return decimal.Zero
}

// directions of aFRR, with their product keys.
var directions = []struct {
	product             bids.Product
	step                string
	capacity, energy    ProductKey
	energyBackupProduct ProductKey
}{
	{bids.Pos, StepPos, AFRRCPos4h, AFRREPos, AFRREPosBackup},
	{bids.Neg, StepNeg, AFRRCNeg4h, AFRRENeg, AFRRENegBackup},
}

type computation struct {
	q      time.Time
	assets map[string]*assetInputs
}

// assetInputs are one asset's inputs of the quarter-hour.
type assetInputs struct {
	org      string
	fcr      []bids.Bid                  // SUCCESSFUL FCR awards covering q
	capacity map[bids.Product][]bids.Bid // SUCCESSFUL aFRR capacity awards covering q
	energy   map[bids.Product][]bids.Bid // aFRR energy bids of q, every status
	failing  map[string][]*coverStep     // steps where the asset failed, by step product
	covering map[string][]*coverStep     // steps where the asset covered, by step product
	// activated is, per direction, what the SUCCESSFUL energy bids of q
	// activated (energyTotals).
	activated map[bids.Product]energyTotal
}

type energyTotal struct {
	mwh     *big.Rat // A: activated MWh
	money   *big.Rat // sum of activated MWh x marginal price (EUR)
	absCost *big.Rat // sum of activated MWh x |marginal price| (EUR)
	settled bool     // a bid of the direction has an outcome
}

func (c *computation) asset(id, org string) (*assetInputs, error) {
	a := c.assets[id]
	if a == nil {
		a = &assetInputs{org: org, capacity: map[bids.Product][]bids.Bid{}, energy: map[bids.Product][]bids.Bid{},
			failing: map[string][]*coverStep{}, covering: map[string][]*coverStep{}}
		c.assets[id] = a
	}
	if a.org != org {
		return nil, fmt.Errorf("settlement: asset %s appears in organisations %s and %s", id, a.org, org)
	}
	return a, nil
}

func (c *computation) addBid(b bids.Bid) error {
	if !b.Interval().Contains(c.q) {
		return nil
	}
	var add func(a *assetInputs)
	switch {
	case b.Market == bids.FCR && b.Status == bids.Successful:
		add = func(a *assetInputs) { a.fcr = append(a.fcr, b) }
	case b.Market == bids.AFRRCapacity && b.Status == bids.Successful && (b.Product == bids.Pos || b.Product == bids.Neg):
		add = func(a *assetInputs) { a.capacity[b.Product] = append(a.capacity[b.Product], b) }
	case b.Market == bids.AFRREnergy && (b.Product == bids.Pos || b.Product == bids.Neg):
		add = func(a *assetInputs) { a.energy[b.Product] = append(a.energy[b.Product], b) }
	default:
		return nil
	}
	a, err := c.asset(b.AssetID, b.OrganizationID)
	if err != nil {
		return err
	}
	add(a)
	return nil
}

// stepKey is one failing asset's obligation of one product.
type stepKey struct{ asset, product string }

// coverStep is a checked CoverStep with its exact quantities.
type coverStep struct {
	CoverStep
	mwShare         *big.Rat // MW x h / 0.25: the MW-share of the quarter-hour
	obligationShare *big.Rat // MW / ObligationMW x h / 0.25
	price           *big.Rat // the backup price; nil when uncovered
}

func (c *computation) addSteps(steps []CoverStep) error {
	end := c.q.Add(calendar.PeriodLength)
	// The MW-shares of the quarter-hour each failing obligation was short,
	// to check that its steps hold no more than the obligation.
	short := map[stepKey]*big.Rat{}
	obligation := map[stepKey]float64{}
	for i, s := range steps {
		where := func() string {
			return fmt.Sprintf("settlement: cover step %d (%s %s, %s-%s)", i, s.FailingAssetID, s.Product,
				s.From.Format(time.RFC3339), s.To.Format(time.RFC3339))
		}
		switch {
		case s.OrganizationID == "" || s.FailingAssetID == "":
			return fmt.Errorf("%s: no organisation or failing asset", where())
		case s.Product != StepFCR && s.Product != StepPos && s.Product != StepNeg:
			return fmt.Errorf("%s: unknown product %q", where(), s.Product)
		case !s.QuarterHour.Equal(c.q) || s.From.Before(c.q) || s.To.After(end) || !s.From.Before(s.To):
			return fmt.Errorf("%s: not a span inside the quarter-hour %s", where(), c.q.Format(time.RFC3339))
		case !(s.MW > 0) || math.IsInf(s.MW, 0) || !(s.ObligationMW > 0) || math.IsInf(s.ObligationMW, 0) || s.MW > s.ObligationMW:
			return fmt.Errorf("%s: %v MW of an obligation of %v MW", where(), s.MW, s.ObligationMW)
		case s.CoveringAssetID == s.FailingAssetID:
			return fmt.Errorf("%s: the failing asset covers itself", where())
		case (s.CoveringAssetID == "") != (s.BackupPrice == nil):
			return fmt.Errorf("%s: a covered step needs a backup price and an uncovered one has none", where())
		}
		k := stepKey{s.FailingAssetID, s.Product}
		if o, ok := obligation[k]; ok && o != s.ObligationMW {
			return fmt.Errorf("%s: obligation %v MW, another step says %v MW", where(), s.ObligationMW, o)
		}
		obligation[k] = s.ObligationMW
		cs := &coverStep{CoverStep: s}
		share := new(big.Rat).SetFrac64(int64(s.To.Sub(s.From)), int64(calendar.PeriodLength))
		cs.mwShare = share.Mul(share, mw(s.MW))
		obligationMW := mw(s.ObligationMW)
		cs.obligationShare = new(big.Rat).Quo(cs.mwShare, obligationMW)
		if s.BackupPrice != nil {
			cs.price = s.BackupPrice.Rat()
		}
		if short[k] == nil {
			short[k] = new(big.Rat)
		}
		if short[k].Add(short[k], cs.mwShare).Cmp(obligationMW) > 0 {
			return fmt.Errorf("%s: the steps of the obligation exceed its %v MW", where(), s.ObligationMW)
		}
		f, err := c.asset(s.FailingAssetID, s.OrganizationID)
		if err != nil {
			return err
		}
		f.failing[s.Product] = append(f.failing[s.Product], cs)
		if s.CoveringAssetID != "" {
			cv, err := c.asset(s.CoveringAssetID, s.OrganizationID)
			if err != nil {
				return err
			}
			cv.covering[s.Product] = append(cv.covering[s.Product], cs)
		}
	}
	return nil
}

// energyTotals sums the activated energy of each direction.
func (a *assetInputs) energyTotals() error {
	a.activated = map[bids.Product]energyTotal{}
	for _, d := range directions {
		t := energyTotal{mwh: new(big.Rat), money: new(big.Rat), absCost: new(big.Rat)}
		for _, b := range a.energy[d.product] {
			switch b.Status {
			case bids.Rejected, bids.Fallback:
				// Not activated (FALLBACK: the quarter-hour did not clear).
				t.settled = true
			case bids.Successful:
				if b.AwardedMW == nil || b.SettlementPrice == nil {
					return fmt.Errorf("SUCCESSFUL energy bid %s without activated power or marginal price", b.ID)
				}
				t.settled = true
				mwh := new(big.Rat).Mul(mw(*b.AwardedMW), big.NewRat(1, 4))
				p := price(*b.SettlementPrice)
				t.mwh.Add(t.mwh, mwh)
				t.money.Add(t.money, new(big.Rat).Mul(mwh, p))
				t.absCost.Add(t.absCost, new(big.Rat).Mul(mwh, new(big.Rat).Abs(p)))
			}
		}
		a.activated[d.product] = t
	}
	return nil
}

func (c *computation) block(id string) (Block, error) {
	a := c.assets[id]
	b := Block{OrganizationID: a.org, AssetID: id, Start: c.q, Products: map[ProductKey]Figure{}}
	if len(a.fcr) > 0 || len(a.failing[StepFCR]) > 0 {
		f, err := c.fcrFigure(a)
		if err != nil {
			return b, err
		}
		b.Products[FCR] = f
	}
	if cov := a.covering[StepFCR]; len(cov) > 0 {
		b.Products[FCRBackup] = Figure{Revenue: cents(coverFees(cov, c.fcrCover))}
	}
	for _, d := range directions {
		if len(a.capacity[d.product]) > 0 || len(a.failing[d.step]) > 0 {
			f, err := c.capacityFigure(a, d.product, d.step)
			if err != nil {
				return b, err
			}
			b.Products[d.capacity] = f
		}
		if a.activated[d.product].settled || len(a.failing[d.step]) > 0 {
			b.Products[d.energy] = c.energyFigure(a, d.product, d.step)
		}
		if cov := a.covering[d.step]; len(cov) > 0 {
			b.Products[d.energyBackupProduct] = Figure{Revenue: cents(coverFees(cov, c.energyCover))}
		}
	}
	return b, nil
}

// fcrFigure: revenue is the award's payment for the block (MW x
// settlement price, EUR/MW per block) spread over the block's
// quarter-hours; the penalty withholds that revenue for the MW-share of
// the quarter-hour left uncovered; the backup fee pays the coverers MW x
// hours x their backup price (EUR per MW and hour).
func (c *computation) fcrFigure(a *assetInputs) (Figure, error) {
	pay, awarded, err := awardPayments(c.q, a.fcr, func(b bids.Bid) (*bids.Price, bool) { return b.SettlementPrice, true })
	if err != nil {
		return Figure{}, err
	}
	uncovered, fee := new(big.Rat), new(big.Rat)
	for _, s := range a.failing[StepFCR] {
		if s.CoveringAssetID == "" {
			uncovered.Add(uncovered, s.mwShare)
		} else {
			fee.Add(fee, c.fcrCover(s))
		}
	}
	penalty := withheld(pay, awarded.Rat(), uncovered)
	return Figure{Revenue: centsInt(pay), BackupFee: cents(fee), Penalty: cents(penalty)}, nil
}

// fcrCover is what covering step s of FCR costs: MW x hours x backup
// price (hours = the MW-share of the quarter-hour x 0.25).
func (c *computation) fcrCover(s *coverStep) *big.Rat {
	v := new(big.Rat).Mul(s.mwShare, s.price)
	return v.Mul(v, big.NewRat(1, 4))
}

// capacityFigure: aFRR capacity is pay-as-bid per MW and hour, so a
// quarter-hour earns MW x own price x 0.25 (rounded cumulatively over the
// block); the penalty withholds that revenue for the uncovered MW-share of
// the quarter-hour plus the offer shortfall, at most the awarded MW.
func (c *computation) capacityFigure(a *assetInputs, p bids.Product, step string) (Figure, error) {
	pay, awarded, err := awardPayments(c.q, a.capacity[p], func(b bids.Bid) (*bids.Price, bool) { return b.CapacityPrice, false })
	if err != nil {
		return Figure{}, err
	}
	uncovered := new(big.Rat)
	for _, s := range a.failing[step] {
		if s.CoveringAssetID == "" {
			uncovered.Add(uncovered, s.mwShare)
		}
	}
	uncovered.Add(uncovered, OfferShortfall(c.q, p, awarded, a.energy[p]).Rat())
	return Figure{Revenue: centsInt(pay), Penalty: cents(withheld(pay, awarded.Rat(), uncovered))}, nil
}

// energyFigure: the holder's activated energy A at its marginal price;
// the share of the obligation left uncovered is not delivered: it earns
// nothing and costs its replacement (|marginal price|); the covered shares
// are the holder's revenue and cost it the coverers' backup prices.
func (c *computation) energyFigure(a *assetInputs, p bids.Product, step string) Figure {
	t := a.activated[p]
	undelivered, fee := new(big.Rat), new(big.Rat)
	for _, s := range a.failing[step] {
		if s.CoveringAssetID == "" {
			undelivered.Add(undelivered, s.obligationShare)
		} else {
			fee.Add(fee, c.energyCover(s))
		}
	}
	delivered := new(big.Rat).Sub(big.NewRat(1, 1), undelivered)
	return Figure{
		Revenue:   cents(new(big.Rat).Mul(t.money, delivered)),
		BackupFee: cents(fee),
		Penalty:   cents(new(big.Rat).Mul(t.absCost, undelivered)),
	}
}

// energyCover is what covering step s of aFRR energy costs: the failing
// asset's activated energy x the step's share of its obligation x the
// backup price.
func (c *computation) energyCover(s *coverStep) *big.Rat {
	mwh := c.assets[s.FailingAssetID].activated[bids.Product(s.Product)].mwh
	v := new(big.Rat).Mul(mwh, s.obligationShare)
	return v.Mul(v, s.price)
}

func coverFees(steps []*coverStep, fee func(*coverStep) *big.Rat) *big.Rat {
	sum := new(big.Rat)
	for _, s := range steps {
		sum.Add(sum, fee(s))
	}
	return sum
}

// awardPayments is the quarter-hour's revenue of the awards covering q,
// in cents, and the awarded MW. priceOf tells how the price is given: per
// MW and block (FCR) or per MW and hour (aFRR). Awards are grouped by
// interval (in practice one tender block); each group's quarter-hour
// revenue is round(total x k/n) - round(total x (k-1)/n) for the k-th of
// its n quarter-hours, so a block's quarter-hours add up to round(total),
// the block's capacity payment.
func awardPayments(q time.Time, awards []bids.Bid, priceOf func(bids.Bid) (*bids.Price, bool)) (*big.Int, decimal.Decimal, error) {
	type group struct {
		iv    calendar.Interval
		total *big.Rat // EUR for the whole interval
	}
	var groups []*group
	awarded := decimal.Zero
	pay := new(big.Int)
	for _, b := range awards {
		p, perBlock := priceOf(b)
		if p == nil {
			return pay, awarded, fmt.Errorf("SUCCESSFUL %s bid %s without a price", b.Market, b.ID)
		}
		mwAwarded := b.OfferedMW
		if b.AwardedMW != nil {
			mwAwarded = *b.AwardedMW
		}
		awarded = awarded.Add(decimal.NewFromFloat(mwAwarded))
		total := new(big.Rat).Mul(mw(mwAwarded), price(*p))
		if !perBlock {
			total.Mul(total, new(big.Rat).SetFrac64(int64(b.End.Sub(b.Start)), int64(time.Hour)))
		}
		var g *group
		for _, h := range groups {
			if h.iv == b.Interval() {
				g = h
			}
		}
		if g == nil {
			g = &group{iv: b.Interval(), total: new(big.Rat)}
			groups = append(groups, g)
		}
		g.total.Add(g.total, total)
	}
	for _, g := range groups {
		n := int64(g.iv.Duration() / calendar.PeriodLength)
		k := int64(q.Sub(g.iv.Start)/calendar.PeriodLength) + 1
		upTo := roundCents(new(big.Rat).Mul(g.total, big.NewRat(k, n)))
		before := roundCents(new(big.Rat).Mul(g.total, big.NewRat(k-1, n)))
		pay.Add(pay, upTo.Sub(upTo, before))
	}
	return pay, awarded, nil
}

// withheld is the part of the quarter-hour's revenue (in cents, for the
// awarded MW) that the withheld MW forfeit. They never exceed the awarded
// MW: a quarter-hour withholds at most what it pays, to the cent.
func withheld(revenue *big.Int, awarded, withheldMW *big.Rat) *big.Rat {
	if awarded.Sign() <= 0 || withheldMW.Sign() <= 0 {
		return new(big.Rat)
	}
	if withheldMW.Cmp(awarded) > 0 {
		withheldMW = awarded
	}
	v := new(big.Rat).SetFrac(revenue, hundred)
	v.Mul(v, withheldMW)
	return v.Quo(v, awarded)
}

// mw is a power in MW as the exact value of its shortest decimal form
// (the form it was entered in: 1.005 MW is 1.005, not the binary float
// next to it). Whole MW, the usual case, skip the decimal form.
func mw(v float64) *big.Rat {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return new(big.Rat).SetInt64(int64(v))
	}
	return decimal.NewFromFloat(v).Rat()
}

// price is a price in cents as EUR.
func price(p bids.Price) *big.Rat { return big.NewRat(int64(p), 100) }

var (
	hundred = big.NewInt(100)
)

// roundCents rounds an amount in EUR to whole cents, half away from zero.
func roundCents(r *big.Rat) *big.Int {
	num := new(big.Int).Mul(r.Num(), hundred)
	quo, rem := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	// QuoRem truncates toward zero; a remainder of at least half the
	// denominator moves one cent away from zero.
	if rem.Abs(rem).Lsh(rem, 1).Cmp(r.Denom()) >= 0 {
		if num.Sign() < 0 {
			quo.Sub(quo, big.NewInt(1))
		} else {
			quo.Add(quo, big.NewInt(1))
		}
	}
	return quo
}

// cents rounds an amount in EUR to the cent, half away from zero.
func cents(r *big.Rat) decimal.Decimal { return centsInt(roundCents(r)) }

// centsInt is an amount of cents in EUR with two decimals.
func centsInt(c *big.Int) decimal.Decimal { return decimal.NewFromBigInt(c, -2) }
