package nomination

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/segmentation"
)

// Direction is the direction of a nomination series.
type Direction string

const (
	// Pos is positive aFRR (asset discharge): the series sold from the
	// platform balancing group to the customer's.
	Pos Direction = "pos"
	// Neg is negative aFRR (asset charge): the series bought, in the
	// opposite direction.
	Neg Direction = "neg"
)

// Directions in document order.
var Directions = []Direction{Pos, Neg}

// Unit is the unit of every nominated volume.
const Unit = "MW"

// Key names one nomination: the nominating (balancing-group responsible)
// organisation, the TSO zone and the Berlin delivery day.
type Key struct {
	OrganizationID string
	TSO            assets.TSO
	Day            calendar.Day
}

func (k Key) String() string { return fmt.Sprintf("%s/%s/%s", k.OrganizationID, k.TSO, k.Day) }

// EICs are the header metadata of a zone's nomination, stated for the pos
// series (from the platform's balancing group to the customer's); the neg
// series swaps source and target.
type EICs struct {
	ControlArea          string
	SourceControlArea    string
	TargetControlArea    string
	SourceBalancingGroup string
	TargetBalancingGroup string
}

// Header is the header of one direction's series.
type Header struct {
	SourceControlArea, TargetControlArea       string
	SourceBalancingGroup, TargetBalancingGroup string
}

// Header returns the header of direction d.
func (e EICs) Header(d Direction) Header {
	h := Header{e.SourceControlArea, e.TargetControlArea, e.SourceBalancingGroup, e.TargetBalancingGroup}
	if d == Neg {
		h = Header{e.TargetControlArea, e.SourceControlArea, e.TargetBalancingGroup, e.SourceBalancingGroup}
	}
	return h
}

// Period is a published quarter-hour: the average MW of each direction
// (non-negative, three decimals).
type Period struct {
	Start    time.Time
	Pos, Neg decimal.Decimal
}

// Volume is the period's volume of direction d.
func (p Period) Volume(d Direction) decimal.Decimal {
	if d == Neg {
		return p.Neg
	}
	return p.Pos
}

// AssetRow is one asset's informational share of a zone's nomination.
type AssetRow struct {
	AssetID        string
	OrganizationID string // the asset's owner
	Periods        []Period
}

// Content is what a revision nominates: the header (nil while the zone
// has no EIC configuration), the authoritative zone periods and the asset
// rows. Only published quarter-hours are listed, in time order.
type Content struct {
	EICs    *EICs
	Periods []Period
	Assets  []AssetRow
}

// Config is the balancing-group configuration of an organisation (the
// assets' owner) in a TSO zone: who is responsible for the balancing group
// of its assets there, and, used when the organisation itself is the
// responsible one, the EICs of its nominations.
type Config struct {
	OrganizationID            string
	TSO                       assets.TSO
	ResponsibleOrganizationID string
	EICs                      EICs
	Note                      string // free text, e.g. that the EICs are test values
	UpdatedAt                 time.Time
}

// AssetZone is the TSO zone of a physical asset and its owner.
type AssetZone struct {
	AssetID        string
	OrganizationID string
	TSO            assets.TSO
}

// Input is what Build derives a day's nominations from.
type Input struct {
	Day     calendar.Day
	Bids    []bids.Bid  // the aFRR energy bids delivered on Day, any status
	Assets  []AssetZone // physical assets with a TSO zone
	Configs []Config
}

// outcome reports whether a bid of status s has its outcome: false for
// one still waiting for it (PENDING, SUBMITTED), and counted reports
// whether it takes part at all (FAILED and CANCELLED never reach the
// market).
func outcome(s bids.Status) (known, counted bool) {
	switch s {
	case bids.Pending, bids.Submitted:
		return false, true
	case bids.Successful, bids.Rejected, bids.Fallback:
		return true, true
	}
	return false, false
}

// Complete reports whether every counted bid of in has its outcome.
func Complete(in []bids.Bid) bool {
	for _, b := range in {
		if known, counted := outcome(b.Status); counted && !known {
			return false
		}
	}
	return true
}

// mwScale is the precision of nominated volumes: kW.
const mwScale = 3

type quarter struct {
	pos, neg decimal.Decimal
	waiting  bool // a bid has no outcome yet
}

// Build derives the day's nominations. A zone of an organisation is
// nominated when the assets it is responsible for there have aFRR energy
// bids on the day that reached or may reach the market. Per quarter-hour
// the volume of a direction is the sum of the activated MW (awarded power
// of SUCCESSFUL bids); a quarter-hour with a bid still without its outcome
// is not published (left out), one with none activated is 0. A virtual
// asset is in its parent's zone; a bid of an asset without a zone is not
// nominated.
func Build(in Input) map[Key]Content {
	zones := make(map[string]AssetZone, len(in.Assets))
	for _, a := range in.Assets {
		zones[a.AssetID] = a
	}
	configs := make(map[[2]string]Config, len(in.Configs))
	for _, c := range in.Configs {
		configs[[2]string{c.OrganizationID, string(c.TSO)}] = c
	}
	periods := in.Day.Periods()
	index := make(map[time.Time]int, len(periods))
	for i, p := range periods {
		index[p.Start] = i
	}
	type assetKey struct {
		key     Key
		assetID string
		owner   string
	}
	rows := map[assetKey][]quarter{}
	for _, b := range in.Bids {
		_, counted := outcome(b.Status)
		i, ok := index[b.Start]
		if b.Market != bids.AFRREnergy || !counted || !ok {
			continue
		}
		z, ok := zones[b.AssetID]
		if !ok {
			if parent, _, virtual := segmentation.SplitVirtualAssetID(b.AssetID); virtual {
				z, ok = zones[parent]
			}
		}
		if !ok {
			continue
		}
		responsible := b.OrganizationID
		if c, ok := configs[[2]string{b.OrganizationID, string(z.TSO)}]; ok && c.ResponsibleOrganizationID != "" {
			responsible = c.ResponsibleOrganizationID
		}
		ak := assetKey{Key{responsible, z.TSO, in.Day}, b.AssetID, b.OrganizationID}
		qs := rows[ak]
		if qs == nil {
			qs = make([]quarter, len(periods))
			rows[ak] = qs
		}
		q := &qs[i]
		switch known, _ := outcome(b.Status); {
		case !known:
			q.waiting = true
		case b.Status == bids.Successful && b.AwardedMW != nil:
			mw := decimal.NewFromFloat(*b.AwardedMW).Abs()
			if b.Product == bids.Neg {
				q.neg = q.neg.Add(mw)
			} else {
				q.pos = q.pos.Add(mw)
			}
		}
	}
	zoneQs := map[Key][]quarter{}
	out := map[Key]Content{}
	for ak, qs := range rows {
		zq := zoneQs[ak.key]
		if zq == nil {
			zq = make([]quarter, len(periods))
			zoneQs[ak.key] = zq
		}
		for i, q := range qs {
			zq[i].pos, zq[i].neg, zq[i].waiting = zq[i].pos.Add(q.pos), zq[i].neg.Add(q.neg), zq[i].waiting || q.waiting
		}
		c := out[ak.key]
		c.Assets = append(c.Assets, AssetRow{AssetID: ak.assetID, OrganizationID: ak.owner, Periods: published(periods, qs)})
		out[ak.key] = c
	}
	for k, c := range out {
		c.Periods = published(periods, zoneQs[k])
		slices.SortFunc(c.Assets, func(a, b AssetRow) int { return strings.Compare(a.AssetID, b.AssetID) })
		if cfg, ok := configs[[2]string{k.OrganizationID, string(k.TSO)}]; ok {
			e := cfg.EICs
			c.EICs = &e
		}
		out[k] = c
	}
	return out
}

func published(periods []calendar.Interval, qs []quarter) []Period {
	out := []Period{}
	for i, q := range qs {
		if !q.waiting {
			out = append(out, Period{Start: periods[i].Start, Pos: q.pos.Round(mwScale), Neg: q.neg.Round(mwScale)})
		}
	}
	return out
}

// Diff compares a new content with the latest revision's (nil for none)
// and says what changed, "" when nothing did: the reason of the next
// revision.
func Diff(prev *Content, next Content) string {
	if prev == nil {
		return "first revision"
	}
	var parts []string
	if !eicsEqual(prev.EICs, next.EICs) {
		parts = append(parts, "header EICs changed")
	}
	if n := periodChanges(prev.Periods, next.Periods); n > 0 {
		parts = append(parts, fmt.Sprintf("%d zone period(s) changed", n))
	}
	if n := assetChanges(prev.Assets, next.Assets); n > 0 {
		parts = append(parts, fmt.Sprintf("%d asset row(s) changed", n))
	}
	return strings.Join(parts, "; ")
}

func eicsEqual(a, b *EICs) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// periodChanges counts the quarter-hours published, withdrawn or changed.
func periodChanges(a, b []Period) int {
	old := make(map[time.Time]Period, len(a))
	for _, p := range a {
		old[p.Start] = p
	}
	n := 0
	for _, p := range b {
		o, ok := old[p.Start]
		if !ok || !o.Pos.Equal(p.Pos) || !o.Neg.Equal(p.Neg) {
			n++
		}
		delete(old, p.Start)
	}
	return n + len(old)
}

func assetChanges(a, b []AssetRow) int {
	old := make(map[string]AssetRow, len(a))
	for _, r := range a {
		old[r.AssetID] = r
	}
	n := 0
	for _, r := range b {
		o, ok := old[r.AssetID]
		if !ok || o.OrganizationID != r.OrganizationID || periodChanges(o.Periods, r.Periods) > 0 {
			n++
		}
		delete(old, r.AssetID)
	}
	return n + len(old)
}
