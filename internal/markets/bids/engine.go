package bids

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/feasibility"
	"atcp/internal/textrule"
)

// History is how far back bids can be read: bids that ended longer ago
// are not returned.
const History = 30 * 24 * time.Hour

// AssetSource resolves assets for the caller (assets.Service).
type AssetSource interface {
	Get(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error)
	// Segmented reports whether a physical asset has an active
	// segmentation (its capacity then belongs to its virtual assets).
	Segmented(ctx context.Context, a assets.Asset) (bool, error)
}

// Engine applies the bid rules of one market.
type Engine struct {
	rules  Rules
	assets AssetSource
	store  Store
	clk    clock.Clock
	opts   Options
}

// NewEngine returns the engine of the market described by rules.
func NewEngine(rules Rules, assets AssetSource, store Store, clk clock.Clock, opts ...Option) *Engine {
	return &Engine{rules: rules, assets: assets, store: store, clk: clk, opts: NewOptions(opts...)}
}

// Rules returns the market's rules.
func (e *Engine) Rules() Rules { return e.rules }

// Mode is the submission mode.
type Mode string

// The submission modes.
const (
	Create  Mode = "CREATE"
	Replace Mode = "REPLACE"
)

// NewBid is one bid of a submission, as sent.
type NewBid struct {
	IdempotencyKey *string
	Product        Product // empty: the market's only product
	Start, End     time.Time
	CapacityPrice  PriceInput
	EnergyPrice    PriceInput
	OfferedMW      float64
}

// ReplaceScope is the window a REPLACE clears first.
type ReplaceScope struct {
	Start, End time.Time
	Product    *Product // nil: every product
}

// Interval is the scope's window.
func (s ReplaceScope) Interval() calendar.Interval {
	return calendar.Interval{Start: s.Start.UTC(), End: s.End.UTC()}
}

// Submission is one POST of bids.
type Submission struct {
	Bids  []NewBid
	Mode  Mode // empty: CREATE
	Scope *ReplaceScope
}

// SubmitResult is what a submission did.
type SubmitResult struct {
	// Bids are the bids of the request in its order: new ones as stored,
	// idempotent retries as originally stored.
	Bids       []Bid
	Created    int
	DeletedIDs []string
	Warnings   []string
}

// warnings collects distinct warnings in order.
type warnings []string

func (w *warnings) add(s string) {
	if s == "" {
		return
	}
	for _, x := range *w {
		if x == s {
			return
		}
	}
	*w = append(*w, s)
}

// validIntervalsError is a 422 carrying the tender intervals to choose
// from; fields name every offending input.
func validIntervalsError(v *errs.Validation, suggestions []calendar.Interval) error {
	err := v.Err()
	if err == nil {
		return nil
	}
	if len(suggestions) > 0 {
		e := err.(*errs.Error)
		e.Extensions = map[string]any{"valid_intervals": suggestions}
	}
	return err
}

// suggestionSet gathers distinct suggested intervals in time order.
type suggestionSet struct {
	seen map[int64]bool
	list []calendar.Interval
}

func (s *suggestionSet) add(iv calendar.Interval) {
	if s.seen == nil {
		s.seen = map[int64]bool{}
	}
	for _, b := range TenderBlocksTouched(iv) {
		if !s.seen[b.Start.UnixMicro()] {
			s.seen[b.Start.UnixMicro()] = true
			s.list = append(s.list, b)
		}
	}
}

// checkPower validates an offered power.
func (e *Engine) checkPower(v *errs.Validation, loc string, mw float64) {
	switch {
	case math.IsNaN(mw) || math.IsInf(mw, 0) || mw < 1:
		v.Add(loc, "must be at least 1 MW", mw)
	case mw != math.Trunc(mw):
		v.Add(loc, "must be a whole number of MW", mw)
	}
}

// checkPrices parses the prices of a bid; a bound failure is
// PRICE_OUT_OF_RANGE, reported after the other field errors.
func (e *Engine) checkPrices(v *errs.Validation, outOfRange *errs.Validation, loc string, capIn, energyIn PriceInput) (capPrice, energyPrice *Price) {
	one := func(bounds *PriceBounds, in PriceInput, field string) *Price {
		switch {
		case bounds == nil && in.Given():
			v.Add(loc+field, "this market has no such price", in.Sent())
		case bounds == nil:
		case !in.Given():
			v.Add(loc+field, "required", nil)
		default:
			p, oor, err := bounds.Check(in)
			switch {
			case oor:
				outOfRange.Add(loc+field, err.Error(), in.Sent())
			case err != nil:
				v.Add(loc+field, err.Error(), in.Sent())
			default:
				return &p
			}
		}
		return nil
	}
	return one(e.rules.CapacityPrice, capIn, ".capacity_price_eur_per_mw"), one(e.rules.EnergyPrice, energyIn, ".energy_price_eur_per_mwh")
}

// fieldErrors merges price-range failures: when the only failures are
// prices out of range the code is PRICE_OUT_OF_RANGE.
func fieldErrors(v, outOfRange *errs.Validation, sugg []calendar.Interval) error {
	if err := validIntervalsError(v, sugg); err != nil {
		if oor := outOfRange.Err(); oor != nil {
			err.(*errs.Error).Fields = append(err.(*errs.Error).Fields, oor.(*errs.Error).Fields...)
		}
		return err
	}
	if err := outOfRange.Err(); err != nil {
		e := err.(*errs.Error)
		e.Code, e.Message = CodePriceOutOfRange, "price out of range"
		return e
	}
	return nil
}

// prepare validates the bids of a submission and returns them as bids
// without id, owner or timestamps.
func (e *Engine) prepare(sub Submission) ([]Bid, error) {
	var v, oor errs.Validation
	var sugg suggestionSet
	if len(sub.Bids) == 0 {
		v.Add("body.bids", "at least one bid is required", nil)
	}
	mode := sub.Mode
	if mode == "" {
		mode = Create
	}
	var scope calendar.Interval
	switch {
	case mode != Create && mode != Replace:
		v.Add("body.mode", "must be CREATE or REPLACE", string(mode))
	case mode == Replace && sub.Scope == nil:
		v.Add("body.replace_scope", "required when mode is REPLACE", nil)
	case mode == Create && sub.Scope != nil:
		v.Add("body.replace_scope", "only allowed when mode is REPLACE", nil)
	case mode == Replace:
		scope = sub.Scope.Interval()
		if !scope.End.After(scope.Start) || !calendar.AlignedToPeriod(scope.Start) || !calendar.AlignedToPeriod(scope.End) {
			v.Add("body.replace_scope", "start_time and end_time must be UTC quarter-hours with end_time after start_time", nil)
		}
		if p := sub.Scope.Product; p != nil && !e.rules.HasProduct(*p) {
			v.Add("body.replace_scope.product", fmt.Sprintf("not a product of the %s market", e.rules.Name), string(*p))
		}
	}
	out := make([]Bid, len(sub.Bids))
	for i, nb := range sub.Bids {
		loc := fmt.Sprintf("body.bids[%d]", i)
		b := Bid{Market: e.rules.Market, Product: nb.Product, Start: nb.Start.UTC(), End: nb.End.UTC(), OfferedMW: nb.OfferedMW, Status: Pending, Source: SourceAPI}
		if nb.IdempotencyKey != nil {
			k := *nb.IdempotencyKey
			b.IdempotencyKey = &k
			checkIdempotencyKey(&v, loc+".idempotency_key", k)
		}
		if b.Product == "" && len(e.rules.Products) == 1 {
			b.Product = e.rules.Products[0]
		}
		if !e.rules.HasProduct(b.Product) {
			v.Add(loc+".product", fmt.Sprintf("not a product of the %s market", e.rules.Name), string(nb.Product))
		}
		e.checkPower(&v, loc+".offered_power_mw", nb.OfferedMW)
		b.CapacityPrice, b.EnergyPrice = e.checkPrices(&v, &oor, loc, nb.CapacityPrice, nb.EnergyPrice)
		if msg, tender := e.rules.intervalProblem(b.Interval()); msg != "" {
			v.Add(loc+".start_time", msg, b.Start.Format(time.RFC3339))
			if tender {
				sugg.add(b.Interval())
			}
		} else if mode == Replace && sub.Scope != nil && !scope.Covers(b.Interval()) {
			v.Add(loc, "a bid of a REPLACE must lie inside replace_scope", nil)
		} else if mode == Replace && sub.Scope != nil && sub.Scope.Product != nil && *sub.Scope.Product != b.Product {
			v.Add(loc+".product", "a bid of a REPLACE must have the product of replace_scope", string(b.Product))
		}
		for j := range i {
			if b.sameScope(out[j]) {
				v.Add(loc+".idempotency_key", fmt.Sprintf("repeats the idempotency key of body.bids[%d] for the same interval", j), *b.IdempotencyKey)
			}
		}
		out[i] = b
	}
	if err := fieldErrors(&v, &oor, sugg.list); err != nil {
		return nil, err
	}
	return out, nil
}

// MaxIdempotencyKeyLength bounds an idempotency key, in characters.
const MaxIdempotencyKeyLength = 200

// checkIdempotencyKey checks a client's idempotency key: 1 to
// MaxIdempotencyKeyLength characters, no control characters.
func checkIdempotencyKey(v *errs.Validation, loc, k string) {
	switch {
	case k == "":
		v.Add(loc, "must not be empty", k)
	case utf8.RuneCountInString(k) > MaxIdempotencyKeyLength:
		v.Add(loc, fmt.Sprintf("must be at most %d characters", MaxIdempotencyKeyLength), k)
	default:
		textrule.CheckName(v, loc, k)
	}
}

// Hull is the smallest interval covering every interval given.
func Hull(ivs ...calendar.Interval) calendar.Interval {
	h := ivs[0]
	for _, iv := range ivs[1:] {
		if iv.Start.Before(h.Start) {
			h.Start = iv.Start
		}
		if iv.End.After(h.End) {
			h.End = iv.End
		}
	}
	return h
}

func (e *Engine) notEnabled(a assets.Asset) error {
	return errs.Conflictf(CodeMarketNotEnabled, "asset %q does not take part in the %s market (enable it on the asset first)", a.ID, e.rules.Name)
}

// biddable resolves the asset a bid write addresses and refuses a
// physical asset whose segmentation is active (409 asset_segmented): its
// capacity belongs to its virtual assets, which bid instead, each
// against its own scaled ceiling, so that together they never exceed the
// parent's.
func (e *Engine) biddable(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error) {
	a, err := e.assets.Get(ctx, v, assetID)
	if err != nil {
		return assets.Asset{}, err
	}
	segmented, err := e.assets.Segmented(ctx, a)
	if err != nil {
		return assets.Asset{}, err
	}
	if segmented {
		return assets.Asset{}, errs.Conflictf(CodeAssetSegmented,
			"asset %q has an active segmentation; bid on its virtual assets (%s.<segment>) instead", a.ID, a.ID)
	}
	return a, nil
}

func (e *Engine) ceilingOf(a assets.Asset) func(Product) float64 {
	return func(p Product) float64 { return e.rules.Ceiling(a, p) }
}

// Submit places the bids of a submission on a visible asset, atomically:
// either every bid is stored (new ones PENDING) and every bid a REPLACE
// clears is deleted, or nothing changes. An asset that is not live is 409
// asset_not_live (see CheckLive).
func (e *Engine) Submit(ctx context.Context, v auth.Visibility, assetID string, sub Submission) (SubmitResult, error) {
	asset, err := e.biddable(ctx, v, assetID)
	if err != nil {
		return SubmitResult{}, err
	}
	req, err := e.prepare(sub)
	if err != nil {
		return SubmitResult{}, err
	}
	if !e.rules.Enabled(asset) {
		return SubmitResult{}, e.notEnabled(asset)
	}
	if err := e.opts.CheckLive(asset, e.rules.Name); err != nil {
		return SubmitResult{}, err
	}
	now := e.clk.Now().UTC()
	var warn warnings
	ivs := make([]calendar.Interval, 0, len(req)+1)
	for _, b := range req {
		w, err := e.rules.GateError(b.Interval(), now)
		if err != nil {
			return SubmitResult{}, err
		}
		warn.add(w)
		ivs = append(ivs, b.Interval())
	}
	replacing := sub.Mode == Replace
	if replacing {
		ivs = append(ivs, sub.Scope.Interval())
	}
	var res SubmitResult
	// The whole tender blocks the request touches: the energy rule of
	// cross-market feasibility sums a block's commitments.
	window := feasibility.Blocks(Hull(ivs...))
	err = e.store.ApplyAcross(ctx, v, asset, e.rules.Market, window, othersThan(e.rules.Market), func(a assets.Asset, existing, others []Bid) (Changes, error) {
		if !e.rules.Enabled(a) {
			return Changes{}, e.notEnabled(a)
		}
		if err := e.opts.CheckLive(a, e.rules.Name); err != nil {
			return Changes{}, err
		}
		res = SubmitResult{Bids: make([]Bid, len(req)), Warnings: slices.Clone(warn)}
		var ch Changes
		fresh := make([]Bid, 0, len(req))
		kept := map[string]bool{}
		for i, b := range req {
			if old, ok := findScope(existing, b); ok {
				res.Bids[i], kept[old.ID] = old, true
				continue
			}
			b.ID, b.OrganizationID, b.AssetID = NewID(), a.OrganizationID, a.ID
			b.CreatedAt, b.UpdatedAt = now, now
			res.Bids[i] = b
			fresh = append(fresh, b)
		}
		deleted := map[string]bool{}
		if replacing {
			scope := sub.Scope.Interval()
			for _, old := range existing {
				if old.Status != Pending || kept[old.ID] || !scope.Covers(old.Interval()) ||
					(sub.Scope.Product != nil && *sub.Scope.Product != old.Product) {
					continue
				}
				if _, err := e.rules.GateError(old.Interval(), now); err != nil {
					return Changes{}, err
				}
				deleted[old.ID] = true
				ch.Delete = append(ch.Delete, old.ID)
			}
		}
		if !a.DisablePQCapacityCheck {
			if br := CheckCeiling(e.rules.Market, e.ceilingOf(a), existing, fresh, deleted); len(br) > 0 {
				return Changes{}, CeilingError(e.rules.CeilingCode, e.rules.Name, br)
			}
		}
		after := slices.DeleteFunc(slices.Clone(existing), func(b Bid) bool { return deleted[b.ID] })
		more, err := feasible(a, window, slices.Concat(existing, others), slices.Concat(after, fresh, others))
		if err != nil {
			return Changes{}, err
		}
		res.Warnings = append(res.Warnings, more...)
		ch.Insert = fresh
		res.Created, res.DeletedIDs = len(fresh), ch.Delete
		return ch, nil
	})
	if err != nil {
		return SubmitResult{}, err
	}
	if res.DeletedIDs == nil {
		res.DeletedIDs = []string{}
	}
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	return res, nil
}

// findScope returns the stored bid of b's idempotency scope.
func findScope(existing []Bid, b Bid) (Bid, bool) {
	if b.IdempotencyKey == nil {
		return Bid{}, false
	}
	for i := range existing {
		if existing[i].sameScope(b) {
			return existing[i], true
		}
	}
	return Bid{}, false
}

// Change is a PUT of one bid: its full new values.
type Change struct {
	IdempotencyKey *string // nil keeps the stored key
	Start, End     time.Time
	CapacityPrice  PriceInput
	EnergyPrice    PriceInput
	OfferedMW      float64
}

// Update changes a bid. A PENDING bid changes in place. A SUBMITTED bid
// keeps the values the market holds and records the change in its
// last_edit_attempt (PENDING_RESYNC) for the market to take it; only its
// power and prices may change. The ceiling does not count the bid's own
// current power. An asset no longer in the market takes no changes (409
// market_not_enabled); its PENDING bids can still be deleted. A change
// that raises the commitment (more power, another interval) of an asset
// that is not live is 409 asset_not_live (see CheckLive). It returns
// the bid as stored and warnings.
func (e *Engine) Update(ctx context.Context, v auth.Visibility, assetID, bidID string, c Change) (Bid, []string, error) {
	asset, err := e.biddable(ctx, v, assetID)
	if err != nil {
		return Bid{}, nil, err
	}
	cur, err := e.Get(ctx, v, assetID, bidID)
	if err != nil {
		return Bid{}, nil, err
	}
	var val, oor errs.Validation
	var sugg suggestionSet
	next := calendar.Interval{Start: c.Start.UTC(), End: c.End.UTC()}
	e.checkPower(&val, "body.offered_power_mw", c.OfferedMW)
	capPrice, energyPrice := e.checkPrices(&val, &oor, "body", c.CapacityPrice, c.EnergyPrice)
	if msg, tender := e.rules.intervalProblem(next); msg != "" {
		val.Add("body.start_time", msg, next.Start.Format(time.RFC3339))
		if tender {
			sugg.add(next)
		}
	}
	if c.IdempotencyKey != nil {
		checkIdempotencyKey(&val, "body.idempotency_key", *c.IdempotencyKey)
	}
	if err := fieldErrors(&val, &oor, sugg.list); err != nil {
		return Bid{}, nil, err
	}
	now := e.clk.Now().UTC()
	var out Bid
	var warn warnings
	window := feasibility.Blocks(Hull(cur.Interval(), next))
	err = e.store.ApplyAcross(ctx, v, asset, e.rules.Market, window, othersThan(e.rules.Market), func(a assets.Asset, existing, others []Bid) (Changes, error) {
		warn = nil
		b, ok := findID(existing, bidID)
		if !ok {
			return Changes{}, bidNotFound(bidID)
		}
		if !e.rules.Enabled(a) {
			return Changes{}, e.notEnabled(a)
		}
		for _, iv := range []calendar.Interval{b.Interval(), next} {
			w, err := e.rules.GateError(iv, now)
			if err != nil {
				return Changes{}, err
			}
			warn.add(w)
		}
		upd := b
		switch b.Status {
		case Pending:
			upd.Start, upd.End, upd.OfferedMW, upd.CapacityPrice, upd.EnergyPrice = next.Start, next.End, c.OfferedMW, capPrice, energyPrice
			if c.IdempotencyKey != nil {
				k := *c.IdempotencyKey
				upd.IdempotencyKey = &k
			}
			for _, o := range existing {
				if o.ID != b.ID && o.sameScope(upd) {
					return Changes{}, errs.Conflictf(CodeIdempotencyKeyInUse, "bid %s already uses idempotency key %q for this interval", o.ID, *upd.IdempotencyKey)
				}
			}
		case Submitted:
			if !next.Start.Equal(b.Start) || !next.End.Equal(b.End) {
				return Changes{}, errs.Conflictf(CodeBidNotPending, "start_time and end_time of a submitted bid cannot change; only offered_power_mw and the prices can")
			}
			if c.IdempotencyKey != nil && (b.IdempotencyKey == nil || *b.IdempotencyKey != *c.IdempotencyKey) {
				return Changes{}, errs.Conflictf(CodeBidNotPending, "the idempotency_key of a submitted bid cannot change")
			}
			upd.LastEdit = &EditAttempt{EditType: EditModify, Status: EditPendingResync, AttemptedAt: now,
				RequestedValues: EditValues{OfferedMW: c.OfferedMW, CapacityPrice: capPrice, EnergyPrice: energyPrice}}
		default:
			return Changes{}, errs.Conflictf(CodeBidNotPending, "bid %s is %s; only PENDING and SUBMITTED bids can change", b.ID, b.Status)
		}
		upd.UpdatedAt = now
		probe := upd
		probe.OfferedMW = c.OfferedMW
		raises := !next.Start.Equal(b.Start) || !next.End.Equal(b.End) || c.OfferedMW > b.CommittedMW()
		if raises {
			// Lowering a bid or changing its prices commits nothing new,
			// so it stays possible for an asset that is no longer live.
			if err := e.opts.CheckLive(a, e.rules.Name); err != nil {
				return Changes{}, err
			}
		}
		if raises && !a.DisablePQCapacityCheck {
			if br := CheckCeiling(e.rules.Market, e.ceilingOf(a), existing, []Bid{probe}, map[string]bool{b.ID: true}); len(br) > 0 {
				return Changes{}, CeilingError(e.rules.CeilingCode, e.rules.Name, br)
			}
		}
		after := slices.DeleteFunc(slices.Clone(existing), func(o Bid) bool { return o.ID == b.ID })
		more, err := feasible(a, window, slices.Concat(existing, others), slices.Concat(after, []Bid{upd}, others))
		if err != nil {
			return Changes{}, err
		}
		for _, w := range more {
			warn.add(w)
		}
		out = upd
		return Changes{Update: []Bid{upd}}, nil
	})
	if err != nil {
		return Bid{}, nil, err
	}
	if warn == nil {
		warn = warnings{}
	}
	return out, warn, nil
}

func findID(existing []Bid, id string) (Bid, bool) {
	for _, b := range existing {
		if b.ID == id {
			return b, true
		}
	}
	return Bid{}, false
}

func bidNotFound(id string) error { return errs.NotFoundf("bid %q not found", id) }

// Get returns one bid of a visible asset.
func (e *Engine) Get(ctx context.Context, v auth.Visibility, assetID, bidID string) (Bid, error) {
	if uuid.Validate(bidID) != nil {
		return Bid{}, bidNotFound(bidID)
	}
	return e.store.Get(ctx, v, assetID, e.rules.Market, bidID)
}

// List returns the bids of a visible asset overlapping [start, end)
// (either bound optional), within the read horizon.
func (e *Engine) List(ctx context.Context, v auth.Visibility, assetID string, start, end *time.Time, product *Product) ([]Bid, error) {
	if _, err := e.assets.Get(ctx, v, assetID); err != nil {
		return nil, err
	}
	if start != nil && end != nil && !end.After(*start) {
		return nil, errs.Invalidf("query.end_time", end.Format(time.RFC3339), "must be after start_time")
	}
	if product != nil && !e.rules.HasProduct(*product) {
		return nil, errs.Invalidf("query.product", string(*product), "not a product of the %s market", e.rules.Name)
	}
	f := Filter{EndAfter: e.clk.Now().UTC().Add(-History), Start: start, End: end, Product: product}
	return e.store.List(ctx, v, assetID, e.rules.Market, f)
}

// DeleteInterval deletes the PENDING bids whose interval is exactly iv
// (and of product, when given) and returns their ids; bids in other
// statuses stay.
func (e *Engine) DeleteInterval(ctx context.Context, v auth.Visibility, assetID string, iv calendar.Interval, product *Product) ([]string, error) {
	asset, err := e.assets.Get(ctx, v, assetID)
	if err != nil {
		return nil, err
	}
	iv = calendar.Interval{Start: iv.Start.UTC(), End: iv.End.UTC()}
	if !iv.End.After(iv.Start) || !calendar.AlignedToPeriod(iv.Start) || !calendar.AlignedToPeriod(iv.End) {
		return nil, errs.Invalidf("query.start_time", iv.Start.Format(time.RFC3339), "start_time and end_time must be UTC quarter-hours with end_time after start_time")
	}
	if product != nil && !e.rules.HasProduct(*product) {
		return nil, errs.Invalidf("query.product", string(*product), "not a product of the %s market", e.rules.Name)
	}
	if _, err := e.rules.GateError(iv, e.clk.Now().UTC()); err != nil {
		return nil, err
	}
	ids := []string{}
	err = e.store.Apply(ctx, v, asset, e.rules.Market, iv, func(_ assets.Asset, existing []Bid) (Changes, error) {
		ids = ids[:0]
		for _, b := range existing {
			if b.Status == Pending && b.Start.Equal(iv.Start) && b.End.Equal(iv.End) && (product == nil || *product == b.Product) {
				ids = append(ids, b.ID)
			}
		}
		return Changes{Delete: ids}, nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// Delete deletes one PENDING bid before its gate.
func (e *Engine) Delete(ctx context.Context, v auth.Visibility, assetID, bidID string) error {
	asset, err := e.assets.Get(ctx, v, assetID)
	if err != nil {
		return err
	}
	cur, err := e.Get(ctx, v, assetID, bidID)
	if err != nil {
		return err
	}
	now := e.clk.Now().UTC()
	return e.store.Apply(ctx, v, asset, e.rules.Market, cur.Interval(), func(_ assets.Asset, existing []Bid) (Changes, error) {
		b, ok := findID(existing, bidID)
		if !ok {
			return Changes{}, bidNotFound(bidID)
		}
		if _, err := e.rules.GateError(b.Interval(), now); err != nil {
			return Changes{}, err
		}
		if b.Status != Pending {
			return Changes{}, errs.Conflictf(CodeBidNotPending, "bid %s is %s; only PENDING bids can be deleted", b.ID, b.Status)
		}
		return Changes{Delete: []string{b.ID}}, nil
	})
}
