package settlement

import (
	"context"
	"slices"
	"strings"
	"time"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

// Gate is a reason why a block is not (yet) in the FINAL set, or why its
// figures may differ from what was read before.
type Gate string

// The gates, in the order a block passes them.
const (
	// GateNotPublished: the delivery day is not over; the block is in
	// neither set until 00:00 Berlin of the next day (Until).
	GateNotPublished Gate = "not_published"
	// GateNotComputed: the quarter-hour is delivered but the job
	// settlement.compute has not settled it yet (it is behind, or stopped).
	GateNotComputed Gate = "not_computed"
	// GateEnergyOutcomePending: an aFRR energy bid of the asset for the
	// quarter-hour has no outcome yet (PENDING or SUBMITTED); the job waits
	// for it until the end of its lookback (Until), then settles with what
	// there is (the bid earns nothing).
	GateEnergyOutcomePending Gate = "energy_outcome_pending"
	// GateAwaitingTSOSettlement: published as PRELIMINARY; FINAL at Until.
	GateAwaitingTSOSettlement Gate = "awaiting_tso_settlement"
	// GateRecentlyChanged: the block's figures changed within the job's
	// lookback before now (ProcessedAt): they may still change.
	GateRecentlyChanged Gate = "recently_changed"
	// GateChangedAfterPublication: the figures changed after the block was
	// published (ProcessedAt after PublishedAt): a read before ProcessedAt
	// showed other amounts.
	GateChangedAfterPublication Gate = "changed_after_publication"
)

// Gates are every gate in their order.
var Gates = []Gate{GateNotPublished, GateNotComputed, GateEnergyOutcomePending, GateAwaitingTSOSettlement,
	GateRecentlyChanged, GateChangedAfterPublication}

// GateRun is a gate holding a run of consecutive blocks of one asset
// [Start, End) with the same Until.
type GateRun struct {
	AssetID    string
	Gate       Gate
	Start, End time.Time
	// Until is when the gate lifts, zero when that is not known (the job
	// catching up).
	Until time.Time
	// ProcessedAt is the latest processed_at of the run's blocks, for the
	// gates about changed figures (zero for the others).
	ProcessedAt time.Time
}

// Blocks is the number of quarter-hours in the run.
func (r GateRun) Blocks() int { return int(r.End.Sub(r.Start) / calendar.PeriodLength) }

// GateInput is what the gates of a window are decided from.
type GateInput struct {
	Window calendar.Interval // aligned quarter-hours
	Assets []string          // sorted
	Blocks []Block           // stored, of those assets, in the window, ordered by asset and start
	// Pending are the quarter-hours with an aFRR energy bid without outcome.
	Pending []AssetQuarter
	// Progress is the job's first unsettled quarter-hour (HasProgress false
	// before its first run: nothing is settled).
	Progress    time.Time
	HasProgress bool
	Now         time.Time
	Rule        Rule
}

// DecideGates lists, per asset and gate, the runs of quarter-hours of the
// window the gate holds. The gates about publication and computation hold
// every quarter-hour (whether or not the asset will have figures there);
// the others only blocks with figures (awaiting_tso_settlement, the
// changes) or with a pending energy bid.
func DecideGates(in GateInput) []GateRun {
	byAsset := map[string][]Block{}
	for i := 0; i < len(in.Blocks); {
		j := i + 1
		for j < len(in.Blocks) && in.Blocks[j].AssetID == in.Blocks[i].AssetID {
			j++
		}
		byAsset[in.Blocks[i].AssetID] = in.Blocks[i:j]
		i = j
	}
	pending := map[AssetQuarter]bool{}
	for _, p := range in.Pending {
		pending[AssetQuarter{p.AssetID, p.Start.UTC()}] = true
	}
	var out []GateRun
	for _, id := range in.Assets {
		open := map[Gate]int{} // gate -> index in out of the run it may extend
		hold := func(g Gate, q, until, processed time.Time) {
			if i, ok := open[g]; ok && out[i].End.Equal(q) && out[i].Until.Equal(until) {
				out[i].End = q.Add(calendar.PeriodLength)
				if processed.After(out[i].ProcessedAt) {
					out[i].ProcessedAt = processed
				}
				return
			}
			open[g] = len(out)
			out = append(out, GateRun{AssetID: id, Gate: g, Start: q, End: q.Add(calendar.PeriodLength), Until: until, ProcessedAt: processed})
		}
		blocks := byAsset[id]
		for q := in.Window.Start; q.Before(in.Window.End); q = q.Add(calendar.PeriodLength) {
			var b *Block
			for len(blocks) > 0 && blocks[0].Start.Before(q) {
				blocks = blocks[1:]
			}
			if len(blocks) > 0 && blocks[0].Start.Equal(q) {
				b = &blocks[0]
			}
			published := PublishedAt(q)
			delivered := !q.Add(calendar.PeriodLength).After(in.Now)
			if in.Now.Before(published) {
				hold(GateNotPublished, q, published, time.Time{})
			}
			if delivered && (!in.HasProgress || !q.Before(in.Progress)) {
				hold(GateNotComputed, q, time.Time{}, time.Time{})
			}
			if delivered && pending[AssetQuarter{id, q}] {
				hold(GateEnergyOutcomePending, q, q.Add(calendar.PeriodLength+Lookback), time.Time{})
			}
			if b == nil {
				continue
			}
			if st, ok := in.Rule.StatusAt(q, in.Now); ok && st == Preliminary {
				hold(GateAwaitingTSOSettlement, q, in.Rule.FinalAt(q), time.Time{})
			}
			if b.ProcessedAt.After(in.Now.Add(-Lookback)) {
				hold(GateRecentlyChanged, q, time.Time{}, b.ProcessedAt)
			}
			if !b.ProcessedAt.Before(published) {
				hold(GateChangedAfterPublication, q, time.Time{}, b.ProcessedAt)
			}
		}
	}
	return out
}

// GateQuery is a read of the quality gates.
type GateQuery struct {
	Start, End     time.Time // UTC quarter-hours
	AssetIDs       []string  // nil: every asset of the organisation
	OrganizationID string
}

// GateReport is the quality-gate detail of a window.
type GateReport struct {
	OrganizationID string
	Window         calendar.Interval
	AsOf           time.Time
	Runs           []GateRun // ordered by asset, start and gate order
}

// QualityGates tells, per asset and run of blocks of [Start, End), why the
// blocks are not (yet) FINAL or why their figures changed.
func (s *Service) QualityGates(ctx context.Context, p *auth.Principal, q GateQuery) (GateReport, error) {
	var v errs.Validation
	w := alignedWindow(&v, q.Start, q.End)
	if err := v.Err(); err != nil {
		return GateReport{}, err
	}
	sc, err := s.resolve(ctx, p, q.OrganizationID, q.AssetIDs)
	if err != nil {
		return GateReport{}, err
	}
	now := s.d.Clock.Now()
	blocks, err := s.blocks(ctx, &sc, w)
	if err != nil {
		return GateReport{}, err
	}
	pending, err := s.d.Store.PendingEnergy(ctx, sc.v, sc.org, w)
	if err != nil {
		return GateReport{}, err
	}
	progress, has, err := s.d.Store.Progress(ctx)
	if err != nil {
		return GateReport{}, err
	}
	runs := DecideGates(GateInput{Window: w, Assets: sc.ids, Blocks: blocks, Pending: pending, Progress: progress,
		HasProgress: has, Now: now, Rule: s.d.Rule})
	sortRuns(runs)
	return GateReport{OrganizationID: sc.org, Window: w, AsOf: now, Runs: runs}, nil
}

var gateOrder = func() map[Gate]int {
	m := map[Gate]int{}
	for i, g := range Gates {
		m[g] = i
	}
	return m
}()

func sortRuns(runs []GateRun) {
	slices.SortStableFunc(runs, func(a, b GateRun) int {
		if c := strings.Compare(a.AssetID, b.AssetID); c != 0 {
			return c
		}
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return gateOrder[a.Gate] - gateOrder[b.Gate]
	})
}
