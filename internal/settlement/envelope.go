package settlement

import (
	"context"
	"time"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

// Query is a read of GET /v1/settlements.
type Query struct {
	Start, End     time.Time // UTC quarter-hours, [Start, End)
	Status         string    // PRELIMINARY or FINAL, any case
	AssetIDs       []string  // nil: every asset of the organisation
	OrganizationID string    // "": the caller's
}

// productCount is the number of product keys.
const productCount = 10

// Totals are the sums of one figure per product key, indexed like
// ProductKeys.
type Totals [productCount]Figure

// add adds the block's figures.
func (t *Totals) add(b Block) {
	for i, k := range ProductKeys {
		if f, ok := b.Products[k]; ok {
			t[i].Revenue = t[i].Revenue.Add(f.Revenue)
			t[i].BackupFee = t[i].BackupFee.Add(f.BackupFee)
			t[i].Penalty = t[i].Penalty.Add(f.Penalty)
		}
	}
}

// addTotals adds o.
func (t *Totals) addTotals(o Totals) {
	for i := range t {
		t[i].Revenue = t[i].Revenue.Add(o[i].Revenue)
		t[i].BackupFee = t[i].BackupFee.Add(o[i].BackupFee)
		t[i].Penalty = t[i].Penalty.Add(o[i].Penalty)
	}
}

// Of returns the total of product k.
func (t Totals) Of(k ProductKey) Figure {
	for i, p := range ProductKeys {
		if p == k {
			return t[i]
		}
	}
	return Figure{}
}

// AssetSettlement is one asset's part of the envelope: its totals and its
// blocks of the selected status, in block order (none: an empty list).
type AssetSettlement struct {
	AssetID string
	Totals  Totals
	Blocks  []Block
}

// Envelope is the settlement of an organisation over [Window.Start,
// Window.End) in one status (document 1, "Settlement envelope").
type Envelope struct {
	OrganizationID string
	Window         calendar.Interval
	Status         Status
	Totals         Totals
	Assets         []AssetSettlement
}

// Build sums the blocks (ordered by asset and block start, of assets in
// ids) into the envelope: every asset of ids gets an entry, those without
// blocks an empty list.
func Build(org string, w calendar.Interval, status Status, ids []string, blocks []Block) Envelope {
	env := Envelope{OrganizationID: org, Window: w, Status: status, Assets: make([]AssetSettlement, len(ids))}
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		env.Assets[i] = AssetSettlement{AssetID: id, Blocks: []Block{}}
		at[id] = i
	}
	// Blocks come grouped by asset: slice each asset's run out of blocks
	// instead of appending one by one.
	for i := 0; i < len(blocks); {
		j := i + 1
		for j < len(blocks) && blocks[j].AssetID == blocks[i].AssetID {
			j++
		}
		if n, ok := at[blocks[i].AssetID]; ok {
			a := &env.Assets[n]
			a.Blocks = blocks[i:j:j]
			for _, b := range a.Blocks {
				a.Totals.add(b)
			}
			env.Totals.addTotals(a.Totals)
		}
		i = j
	}
	return env
}

// Settlement is GET /v1/settlements: the organisation's blocks of one
// status whose start lies in [Start, End), per asset, with the totals.
// Blocks not published yet are in neither status.
//
// It is the reference the endpoint's rendered form (Service.Rendered) is
// tested against.
func (s *Service) Settlement(ctx context.Context, p *auth.Principal, q Query) (Envelope, error) {
	w, status, sc, err := s.query(ctx, p, q)
	if err != nil {
		return Envelope{}, err
	}
	read := intersect(w, s.d.Rule.Published(status, s.d.Clock.Now()))
	blocks, err := s.blocks(ctx, &sc, read)
	if err != nil {
		return Envelope{}, err
	}
	return Build(sc.org, w, status, sc.ids, blocks), nil
}

// query checks the query and resolves its scope.
func (s *Service) query(ctx context.Context, p *auth.Principal, q Query) (calendar.Interval, Status, scope, error) {
	var v errs.Validation
	w := alignedWindow(&v, q.Start, q.End)
	status, ok := ParseStatus(q.Status)
	switch {
	case q.Status == "":
		v.Add("query.status", "is required: PRELIMINARY or FINAL", nil)
	case !ok:
		v.Add("query.status", "must be PRELIMINARY or FINAL (any case)", q.Status)
	}
	if err := v.Err(); err != nil {
		return w, status, scope{}, err
	}
	sc, err := s.resolve(ctx, p, q.OrganizationID, q.AssetIDs)
	return w, status, sc, err
}
