package settlement

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
	"atcp/internal/reporting"
)

// Granularity is the period of the revenue summary: Berlin days or months.
type Granularity string

// The revenue summary's granularities.
const (
	Daily   Granularity = "daily"
	Monthly Granularity = "monthly"
)

// PeriodStart is the start of the Berlin day or month containing t.
func (g Granularity) PeriodStart(t time.Time) time.Time {
	d := calendar.DayOf(t)
	if g == Monthly {
		d.Day = 1
	}
	return d.Local(0, 0)
}

// PeriodEnd is the end of the period starting at start.
func (g Granularity) PeriodEnd(start time.Time) time.Time {
	d := calendar.DayOf(start)
	if g == Monthly {
		first := time.Date(d.Year, d.Month+1, 1, 0, 0, 0, 0, calendar.Berlin)
		return first.UTC()
	}
	return d.AddDays(1).Local(0, 0)
}

// Mixed is the status of a sum over PRELIMINARY and FINAL blocks.
const Mixed Status = "MIXED"

// statusSum is the status of a sum: the one status of all its blocks, or
// Mixed.
type statusSum struct{ final, preliminary int }

func (s *statusSum) add(st Status) {
	if st == Final {
		s.final++
	} else {
		s.preliminary++
	}
}

func (s statusSum) status() Status {
	switch {
	case s.preliminary == 0:
		return Final
	case s.final == 0:
		return Preliminary
	}
	return Mixed
}

// RevenueRow is one asset's figures of one product over one period.
type RevenueRow struct {
	PeriodStart, PeriodEnd time.Time
	AssetID                string
	Product                ProductKey
	Figure                 Figure
	Status                 Status // PRELIMINARY, FINAL or MIXED
	Blocks                 int    // the blocks summed
}

// Net is revenue less backup fees and penalties.
func (f Figure) Net() decimal.Decimal { return f.Revenue.Sub(f.BackupFee).Sub(f.Penalty) }

// ProductTotal is the organisation's total of one product over the window.
type ProductTotal struct {
	Product ProductKey
	Figure  Figure
	Status  Status
	Blocks  int
}

// RevenueSummary sums published blocks per asset, product and period.
type RevenueSummary struct {
	OrganizationID string
	Window         calendar.Interval
	Granularity    Granularity
	AsOf           time.Time
	Rows           []RevenueRow   // ordered by period, asset and product order
	Totals         []ProductTotal // every product key in order, zero when no block had it
	Total          Figure         // every product together
	Status         Status         // of every block summed; FINAL when there is none
}

// Summarise sums the published blocks (ordered by asset and start) into
// rows per period of g, asset and product the asset took part in, and the
// organisation's totals. Blocks not published at now count nowhere.
func Summarise(org string, w calendar.Interval, g Granularity, now time.Time, rule Rule, blocks []Block) RevenueSummary {
	type key struct {
		period time.Time
		asset  string
		p      int
	}
	type acc struct {
		f  Figure
		st statusSum
		n  int
	}
	sums := map[key]*acc{}
	var totals [productCount]acc
	var all statusSum
	for _, b := range blocks {
		st, ok := rule.StatusAt(b.Start, now)
		if !ok {
			continue
		}
		period := g.PeriodStart(b.Start)
		for i, k := range ProductKeys {
			f, ok := b.Products[k]
			if !ok {
				continue
			}
			kk := key{period, b.AssetID, i}
			a := sums[kk]
			if a == nil {
				a = &acc{}
				sums[kk] = a
			}
			for _, x := range []*acc{a, &totals[i]} {
				x.f = Figure{Revenue: x.f.Revenue.Add(f.Revenue), BackupFee: x.f.BackupFee.Add(f.BackupFee), Penalty: x.f.Penalty.Add(f.Penalty)}
				x.st.add(st)
				x.n++
			}
		}
		all.add(st)
	}
	out := RevenueSummary{OrganizationID: org, Window: w, Granularity: g, AsOf: now, Rows: make([]RevenueRow, 0, len(sums))}
	for k, a := range sums {
		out.Rows = append(out.Rows, RevenueRow{PeriodStart: k.period, PeriodEnd: g.PeriodEnd(k.period), AssetID: k.asset,
			Product: ProductKeys[k.p], Figure: a.f, Status: a.st.status(), Blocks: a.n})
	}
	index := map[ProductKey]int{}
	for i, k := range ProductKeys {
		index[k] = i
	}
	slices.SortFunc(out.Rows, func(a, b RevenueRow) int {
		if c := a.PeriodStart.Compare(b.PeriodStart); c != 0 {
			return c
		}
		if c := strings.Compare(a.AssetID, b.AssetID); c != 0 {
			return c
		}
		return index[a.Product] - index[b.Product]
	})
	for i, k := range ProductKeys {
		t := totals[i]
		out.Totals = append(out.Totals, ProductTotal{Product: k, Figure: t.f, Status: t.st.status(), Blocks: t.n})
		out.Total = Figure{Revenue: out.Total.Revenue.Add(t.f.Revenue), BackupFee: out.Total.BackupFee.Add(t.f.BackupFee),
			Penalty: out.Total.Penalty.Add(t.f.Penalty)}
	}
	out.Status = all.status()
	return out
}

// RevenueQuery is a read of the revenue summary.
type RevenueQuery struct {
	Start, End     time.Time // zero: the reporting window's defaults (the last 24 hours)
	Granularity    string    // daily (default) or monthly
	AssetIDs       []string
	OrganizationID string
}

// Revenue sums the organisation's published settlement per asset, product
// and Berlin day or month of [Start, End): blocks whose start lies in the
// window count, a period the window cuts only with its blocks inside.
func (s *Service) Revenue(ctx context.Context, p *auth.Principal, q RevenueQuery) (RevenueSummary, error) {
	var v errs.Validation
	g := Granularity(q.Granularity)
	switch g {
	case "":
		g = Daily
	case Daily, Monthly:
	default:
		v.Add("query.granularity", "must be daily or monthly", q.Granularity)
	}
	now := s.d.Clock.Now()
	win, err := reporting.Window{Start: q.Start, End: q.End}.Resolve(now, MaxWindow)
	if err != nil {
		for _, f := range err.(*errs.Error).Fields {
			v.Add(f.Location, f.Message, f.Value)
		}
	}
	if err := v.Err(); err != nil {
		return RevenueSummary{}, err
	}
	w := calendar.Interval{Start: win.Start.UTC(), End: win.End.UTC()}
	sc, err := s.resolve(ctx, p, q.OrganizationID, q.AssetIDs)
	if err != nil {
		return RevenueSummary{}, err
	}
	// Only published blocks count: none starts on today or later.
	read := intersect(w, calendar.Interval{End: calendar.DayOf(now).Local(0, 0)})
	blocks, err := s.blocks(ctx, &sc, read)
	if err != nil {
		return RevenueSummary{}, err
	}
	return Summarise(sc.org, w, g, now, s.d.Rule, blocks), nil
}
