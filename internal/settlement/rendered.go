package settlement

import (
	"bytes"
	"context"
	"slices"
	"time"

	"atcp/internal/auth"
	"atcp/internal/markets/calendar"
)

// Rendered is the settlement envelope of a query as the endpoint sends
// it, gathered from the rendered days the window covers whole and the
// blocks of the (at most two) days it cuts (AppendJSON writes it).
type Rendered struct {
	org    string
	w      calendar.Interval
	status Status
	rule   Rule
	assets []renderedAsset
	size   int // bytes of the pre-rendered days
	blocks int // in all
	edge   int // of the days cut, rendered when written
}

// renderedAsset is an asset's part in block order: the blocks before the
// first whole day, the whole days, the blocks after them.
type renderedAsset struct {
	id         string
	lead, tail []Block
	days       []Day
}

// Rendered is GET /v1/settlements as Settlement, read from the rendered
// days (Store.Days) and, for the days the window only cuts, the figures.
func (s *Service) Rendered(ctx context.Context, p *auth.Principal, q Query) (*Rendered, error) {
	w, status, sc, err := s.query(ctx, p, q)
	if err != nil {
		return nil, err
	}
	r := &Rendered{org: sc.org, w: w, status: status, rule: s.d.Rule}
	read := intersect(w, s.d.Rule.Published(status, s.d.Clock.Now()))
	var lead, tail []Block
	var days []Day
	if read.Start.Before(read.End) {
		// The whole days are [first, last); the window is 15-minute
		// aligned, so it may cut the day before first and last.
		first, last := calendar.DayOf(read.Start), calendar.DayOf(read.End)
		if first.Local(0, 0).Before(read.Start) {
			first = first.AddDays(1)
		}
		if !first.Local(0, 0).Before(last.Local(0, 0)) {
			lead, err = s.blocks(ctx, &sc, read)
		} else {
			if lead, err = s.blocks(ctx, &sc, calendar.Interval{Start: read.Start, End: first.Local(0, 0)}); err == nil {
				tail, err = s.blocks(ctx, &sc, calendar.Interval{Start: last.Local(0, 0), End: read.End})
			}
			if err == nil {
				days, err = s.days(ctx, &sc, first, last)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	r.assets = make([]renderedAsset, len(sc.ids))
	at := make(map[string]*renderedAsset, len(sc.ids))
	for i, id := range sc.ids {
		r.assets[i].id = id
		at[id] = &r.assets[i]
	}
	// Each comes ordered by asset: slice the runs out.
	for i := 0; i < len(lead); {
		j := runEnd(len(lead), i, func(k int) bool { return lead[k].AssetID == lead[i].AssetID })
		at[lead[i].AssetID].lead = lead[i:j:j]
		r.blocks, r.edge = r.blocks+j-i, r.edge+j-i
		i = j
	}
	for i := 0; i < len(tail); {
		j := runEnd(len(tail), i, func(k int) bool { return tail[k].AssetID == tail[i].AssetID })
		at[tail[i].AssetID].tail = tail[i:j:j]
		r.blocks, r.edge = r.blocks+j-i, r.edge+j-i
		i = j
	}
	for i := 0; i < len(days); {
		j := runEnd(len(days), i, func(k int) bool { return days[k].AssetID == days[i].AssetID })
		at[days[i].AssetID].days = days[i:j:j]
		for _, d := range days[i:j] {
			r.size += len(d.JSON)
			r.blocks += d.Blocks
		}
		i = j
	}
	return r, nil
}

// runEnd is the end of the run of elements from i on for which same holds.
func runEnd(n, i int, same func(int) bool) int {
	j := i + 1
	for j < n && same(j) {
		j++
	}
	return j
}

// days reads the rendered days of the scope in [from, to); with all, the
// assets that have days join the scope.
func (s *Service) days(ctx context.Context, sc *scope, from, to calendar.Day) ([]Day, error) {
	ids := sc.ids
	if sc.all {
		ids = nil
	}
	out, err := s.d.Store.Days(ctx, sc.v, sc.org, ids, from, to)
	if err != nil || !sc.all {
		return out, err
	}
	found := make([]string, len(out))
	for i, d := range out {
		found[i] = d.AssetID
	}
	sc.join(found)
	return out, nil
}

// join adds the assets of ids not in the scope yet (ids with figures).
func (sc *scope) join(ids []string) {
	in := make(map[string]bool, len(sc.ids))
	for _, id := range sc.ids {
		in[id] = true
	}
	added := false
	for _, id := range ids {
		if !in[id] {
			in[id], added = true, true
			sc.ids = append(sc.ids, id)
		}
	}
	if added {
		slices.Sort(sc.ids)
	}
}

// Blocks is the number of blocks of the envelope.
func (r *Rendered) Blocks() int { return r.blocks }

// AppendJSON appends the envelope as the endpoint's JSON (the
// SettlementEnvelope schema of settlementhttp, members in its order, a
// newline at the end as the server's JSON encoder writes), totals summed
// in integer cents.
func (r *Rendered) AppendJSON(dst []byte) []byte {
	mids := map[calendar.Day][]byte{}
	mid := func(d calendar.Day) []byte {
		m, ok := mids[d]
		if !ok {
			m = append([]byte(`,"status":"`), r.status...)
			m = append(m, `","final_at":"`...)
			m = r.rule.FinalAt(d.Local(0, 0)).AppendFormat(m, time.RFC3339Nano)
			m = append(m, '"')
			mids[d] = m
		}
		return m
	}
	// One allocation: the days, their status members, the cut days'
	// blocks and the totals (about 1 kB per asset).
	dst = slices.Grow(dst, r.size+r.blocks*len(`,"status":"PRELIMINARY","final_at":"2026-03-02T23:00:00Z"`)+
		r.edge*600+(len(r.assets)+1)*1200)
	dst = append(dst, `{"organization_id":`...)
	dst = appendString(dst, r.org)
	dst = append(dst, `,"start":"`...)
	dst = r.w.Start.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","end":"`...)
	dst = r.w.End.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","status":"`...)
	dst = append(dst, r.status...)
	dst = append(dst, `","currency":"EUR","assets":[`...)
	var total Cents
	for i := range r.assets {
		a := &r.assets[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"asset_id":`...)
		dst = appendString(dst, a.id)
		dst = append(dst, `,"blocks":[`...)
		var sum Cents
		n := 0
		for _, b := range a.lead {
			dst = appendComma(dst, n)
			dst = appendBlock(dst, b, mid(calendar.DayOf(b.Start)), &sum)
			n++
		}
		for k := range a.days {
			d := &a.days[k]
			dst = appendComma(dst, n)
			dst = appendDay(dst, d.JSON, mid(d.Day))
			sum.Add(&d.Totals)
			n++
		}
		for _, b := range a.tail {
			dst = appendComma(dst, n)
			dst = appendBlock(dst, b, mid(calendar.DayOf(b.Start)), &sum)
			n++
		}
		dst = append(dst, ']')
		dst = appendTotals(dst, &sum)
		dst = append(dst, '}')
		total.Add(&sum)
	}
	dst = append(dst, ']')
	dst = appendTotals(dst, &total)
	return append(dst, '}', '\n')
}

func appendComma(dst []byte, n int) []byte {
	if n > 0 {
		return append(dst, ',')
	}
	return dst
}

// appendDay appends a rendered day with mid in place of each Mark.
func appendDay(dst, day, mid []byte) []byte {
	for {
		i := bytes.IndexByte(day, Mark)
		if i < 0 {
			return append(dst, day...)
		}
		dst = append(dst, day[:i]...)
		dst = append(dst, mid...)
		day = day[i+1:]
	}
}

// appendTotals appends the ten product members of sums.
func appendTotals(dst []byte, sums *Cents) []byte {
	for i, k := range ProductKeys {
		dst = append(dst, ',', '"')
		dst = append(dst, k...)
		dst = append(dst, `":`...)
		dst = appendProduct(dst, k, sums[i])
	}
	return dst
}
