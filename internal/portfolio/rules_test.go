package portfolio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

func f(v float64) *float64 { return &v }

func price(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }

func TestDeliverable(t *testing.T) {
	tests := []struct {
		name     string
		c        Condition
		dis, chg float64
	}{
		{"free battery", Condition{RatedMW: 10}, 10, 10},
		{"no rating recorded", Condition{}, 0, 0},
		{"unavailable", Condition{RatedMW: 10, Unavailable: true}, 0, 0},
		{"adapter offline", Condition{RatedMW: 10, Offline: true}, 0, 0},
		{"power limit", Condition{RatedMW: 10, MaxDischargeMW: f(4), MaxChargeMW: f(6)}, 4, 6},
		{"limit forbidding a direction", Condition{RatedMW: 10, MaxDischargeMW: f(-2)}, 0, 10},
		// 1 MWh sustains 4 MW for a quarter-hour.
		{"almost empty", Condition{RatedMW: 10, DischargeEnergyMWh: f(1), ChargeEnergyMWh: f(19)}, 4, 10},
		{"full", Condition{RatedMW: 10, DischargeEnergyMWh: f(20), ChargeEnergyMWh: f(0)}, 10, 0},
		{"rounded down to 1 kW", Condition{RatedMW: 10, ChargeEnergyMWh: f(1.23456)}, 10, 4.938},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dis, chg := tt.c.Deliverable()
			if dis != tt.dis || chg != tt.chg {
				t.Fatalf("Deliverable() = %v, %v; want %v, %v", dis, chg, tt.dis, tt.chg)
			}
		})
	}
}

func TestAssess(t *testing.T) {
	tests := []struct {
		name        string
		ob          Obligation
		dis, chg    float64
		held, short Obligation
	}{
		{"all held", Obligation{FCR: 2, Pos: 3, Neg: 4}, 10, 10, Obligation{2, 3, 4}, Obligation{}},
		{"unavailable", Obligation{FCR: 2, Neg: 4}, 0, 0, Obligation{}, Obligation{FCR: 2, Neg: 4}},
		// FCR is served first and needs both sides: 3 MW of charge
		// leave FCR 3 of 5, and nothing for aFRR neg.
		{"FCR first", Obligation{FCR: 5, Neg: 4}, 10, 3, Obligation{FCR: 3}, Obligation{FCR: 2, Neg: 4}},
		{"aFRR pos takes the rest of the discharge side", Obligation{FCR: 4, Pos: 8}, 10, 10, Obligation{FCR: 4, Pos: 6}, Obligation{Pos: 2}},
		{"nothing awarded", Obligation{}, 0, 0, Obligation{}, Obligation{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			held, short := Assess(tt.ob, tt.dis, tt.chg)
			if held != tt.held || short != tt.short {
				t.Fatalf("Assess = %+v, %+v; want %+v, %+v", held, short, tt.held, tt.short)
			}
		})
	}
}

// coverer is a free 10 MW battery prequalified for everything that offers
// product p at price pr (cap nil: no cap).
func coverer(id string, p Product, pr string, capMW *float64) Member {
	return Member{AssetID: id, DischargeMW: 10, ChargeMW: 10, Prequalified: Obligation{10, 10, 10},
		FCREnabled: true, AFRREnabled: true, Offers: map[Product]Offer{p: {Price: price(pr), CapMW: capMW, PriceSource: "default"}}}
}

// failing is a battery holding ob that can deliver nothing.
func failing(id string, ob Obligation) Member {
	return Member{AssetID: id, Obligation: ob, Prequalified: Obligation{10, 10, 10}, FCREnabled: true, AFRREnabled: true}
}

func describe(as []Assignment) []string {
	out := make([]string, len(as))
	for i, a := range as {
		p := "-"
		if a.Price != nil {
			p = a.Price.String()
		}
		out[i] = fmt.Sprintf("%s %s<-%q %g/%g @%s", a.Product, a.Failing, a.Covering, a.MW, a.ObligationMW, p)
	}
	return out
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name string
		pool Pool
		want []string
	}{
		{"unavailable member covered by the other at its backup price",
			Pool{Members: []Member{failing("a", Obligation{Neg: 10}), coverer("b", AFRRNeg, "45.5", nil)}},
			[]string{`neg a<-"b" 10/10 @45.5`}},
		{"cheapest first, within caps; the rest uncovered",
			Pool{Members: []Member{failing("a", Obligation{Neg: 10}), coverer("dear", AFRRNeg, "80", f(5)), coverer("cheap", AFRRNeg, "40", f(3))}},
			[]string{`neg a<-"cheap" 3/10 @40`, `neg a<-"dear" 5/10 @80`, `neg a<-"" 2/10 @-`}},
		{"equal prices: asset id order",
			Pool{Members: []Member{failing("a", Obligation{Pos: 4}), coverer("z", AFRRPos, "10", f(3)), coverer("y", AFRRPos, "10", f(3))}},
			[]string{`pos a<-"y" 3/4 @10`, `pos a<-"z" 1/4 @10`}},
		{"a cap of 0 and no price do not cover",
			Pool{Members: []Member{failing("a", Obligation{Neg: 2}), coverer("b", AFRRNeg, "1", f(0)),
				{AssetID: "c", DischargeMW: 10, ChargeMW: 10, Prequalified: Obligation{10, 10, 10}, AFRREnabled: true, Offers: map[Product]Offer{AFRRNeg: {}}}}},
			[]string{`neg a<-"" 2/2 @-`}},
		{"an offer of the other direction does not cover",
			Pool{Members: []Member{failing("a", Obligation{Neg: 2}), coverer("b", AFRRPos, "1", nil)}},
			[]string{`neg a<-"" 2/2 @-`}},
		{"the coverer's prequalified capacity bounds its own award and the cover together",
			Pool{Members: []Member{failing("a", Obligation{Neg: 6}), func() Member {
				m := coverer("b", AFRRNeg, "30", nil)
				m.Obligation, m.Prequalified.Neg = Obligation{Neg: 7}, 10
				return m
			}()}},
			[]string{`neg a<-"b" 3/6 @30`, `neg a<-"" 3/6 @-`}},
		{"the coverer's free power bounds the cover",
			Pool{Members: []Member{failing("a", Obligation{Pos: 6}), func() Member {
				m := coverer("b", AFRRPos, "30", nil)
				m.DischargeMW = 2.5 // almost empty
				return m
			}()}},
			[]string{`pos a<-"b" 2.5/6 @30`, `pos a<-"" 3.5/6 @-`}},
		{"aFRR not enabled on the coverer",
			Pool{Members: []Member{failing("a", Obligation{Neg: 2}), func() Member { m := coverer("b", AFRRNeg, "1", nil); m.AFRREnabled = false; return m }()}},
			[]string{`neg a<-"" 2/2 @-`}},
		{"FCR cover needs internal collateralisation",
			Pool{Members: []Member{failing("a", Obligation{FCR: 3}), coverer("b", FCR, "12", nil)}},
			[]string{`fcr a<-"" 3/3 @-`}},
		{"FCR cover with collateralisation, symmetric free power",
			Pool{Collateralisation: true, Members: []Member{failing("a", Obligation{FCR: 5}), func() Member {
				m := coverer("b", FCR, "12", nil)
				m.ChargeMW = 4 // nearly full: FCR needs both sides
				return m
			}()}},
			[]string{`fcr a<-"b" 4/5 @12`, `fcr a<-"" 1/5 @-`}},
		{"two failing members share one coverer in asset id order",
			Pool{Members: []Member{failing("m2", Obligation{Neg: 6}), failing("m1", Obligation{Neg: 6}), coverer("c", AFRRNeg, "20", nil)}},
			[]string{`neg m1<-"c" 6/6 @20`, `neg m2<-"c" 4/6 @20`, `neg m2<-"" 2/6 @-`}},
		{"a partly failing member keeps what it holds",
			Pool{Members: []Member{func() Member {
				m := failing("a", Obligation{Neg: 10})
				m.DischargeMW, m.ChargeMW = 10, 4 // nearly full
				return m
			}(), coverer("b", AFRRNeg, "5", nil)}},
			[]string{`neg a<-"b" 6/10 @5`}},
		{"no pool: nobody covers", Pool{Members: []Member{failing("a", Obligation{FCR: 1, Pos: 2})}},
			[]string{`fcr a<-"" 1/1 @-`, `pos a<-"" 2/2 @-`}},
		{"nobody fails", Pool{Members: []Member{coverer("a", AFRRNeg, "1", nil), coverer("b", AFRRNeg, "1", nil)}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := describe(Plan(tt.pool))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("Plan =\n%q\nwant\n%q", got, tt.want)
			}
			if Shortfalls(tt.pool) != (len(tt.want) > 0) {
				t.Fatalf("Shortfalls = %v with plan %q", Shortfalls(tt.pool), tt.want)
			}
		})
	}
}

// TestPlanInvariants checks random pools: every shortfall is accounted
// for exactly (covered plus uncovered), and no coverer goes beyond its
// cap, its prequalified capacity or its free power.
func TestPlanInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	mw := func(hi float64) float64 { return math.Round(r.Float64()*hi*1000) / 1000 }
	for n := range 2000 {
		pool := Pool{Collateralisation: r.IntN(2) == 0}
		for i := range 1 + r.IntN(6) {
			m := Member{AssetID: fmt.Sprintf("m%d", i), Obligation: Obligation{mw(5), mw(5), mw(5)},
				DischargeMW: mw(12), ChargeMW: mw(12), Prequalified: Obligation{mw(12), mw(12), mw(12)},
				FCREnabled: r.IntN(4) > 0, AFRREnabled: r.IntN(4) > 0, Offers: map[Product]Offer{}}
			for _, p := range Products {
				if r.IntN(3) > 0 {
					o := Offer{Price: price(fmt.Sprint(r.IntN(200) - 50))}
					if r.IntN(2) == 0 {
						o.CapMW = f(mw(6))
					}
					m.Offers[p] = o
				}
			}
			pool.Members = append(pool.Members, m)
		}
		plan := Plan(pool)
		byID := map[string]Member{}
		for _, m := range pool.Members {
			byID[m.AssetID] = m
		}
		got := map[string]Obligation{}
		covered := map[string]Obligation{}
		for _, a := range plan {
			o := got[a.Failing]
			o.add(a.Product, a.MW)
			got[a.Failing] = o
			if a.Covering != "" {
				c := covered[a.Covering]
				c.add(a.Product, a.MW)
				covered[a.Covering] = c
			}
		}
		for id, m := range byID {
			_, short := Assess(m.Obligation, m.DischargeMW, m.ChargeMW)
			for _, p := range Products {
				if math.Abs(got[id].Of(p)-short.Of(p)) > 1e-6 {
					t.Fatalf("pool %d member %s %s: planned %v for a shortfall of %v", n, id, p, got[id].Of(p), short.Of(p))
				}
			}
			c := covered[id]
			held, _ := Assess(m.Obligation, m.DischargeMW, m.ChargeMW)
			for _, p := range Products {
				if c.Of(p) > 0 {
					o := m.Offers[p]
					if o.CapMW != nil && c.Of(p) > *o.CapMW+1e-6 {
						t.Fatalf("pool %d: %s covers %v %s beyond its cap %v", n, id, c.Of(p), p, *o.CapMW)
					}
					if m.Obligation.Of(p)+c.Of(p) > m.Prequalified.Of(p)+1e-6 {
						t.Fatalf("pool %d: %s holds %v+%v %s beyond its prequalification %v", n, id, m.Obligation.Of(p), c.Of(p), p, m.Prequalified.Of(p))
					}
				}
			}
			if held.FCR+held.Pos+c.FCR+c.Pos > m.DischargeMW+1e-6 || held.FCR+held.Neg+c.FCR+c.Neg > m.ChargeMW+1e-6 {
				t.Fatalf("pool %d: %s covers beyond its free power: held %+v, covers %+v, can %v/%v", n, id, held, c, m.DischargeMW, m.ChargeMW)
			}
		}
	}
}

func TestDiff(t *testing.T) {
	a := Assignment{Product: AFRRNeg, Failing: "a", Covering: "b", MW: 5, ObligationMW: 10, Price: price("40")}
	u := Assignment{Product: AFRRNeg, Failing: "a", MW: 5, ObligationMW: 10}
	step := func(id string, as Assignment) Step { return Step{ID: id, Assignment: as} }
	changed := a
	changed.MW = 6
	dearer := a
	dearer.Price = price("40.01")
	samePrice := a
	samePrice.Price = price("40.00")
	tests := []struct {
		name    string
		open    []Step
		planned []Assignment
		closing []string // step ids
		opening []string // product, coverer, MW
	}{
		{"unchanged goes on", []Step{step("1", a), step("2", u)}, []Assignment{samePrice, u}, nil, nil},
		{"new", nil, []Assignment{a, u}, nil, []string{"neg b 5", "neg  5"}},
		{"gone", []Step{step("1", a), step("2", u)}, nil, []string{"1", "2"}, nil},
		{"MW changed", []Step{step("1", a), step("2", u)}, []Assignment{changed, u}, []string{"1"}, []string{"neg b 6"}},
		{"price changed", []Step{step("1", a)}, []Assignment{dearer}, []string{"1"}, []string{"neg b 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			closing, opening := Diff(tt.open, tt.planned)
			var ids, opened []string
			for _, s := range closing {
				ids = append(ids, s.ID)
			}
			for _, o := range opening {
				opened = append(opened, fmt.Sprintf("%s %s %g", o.Product, o.Covering, o.MW))
			}
			if fmt.Sprintf("%q", ids) != fmt.Sprintf("%q", tt.closing) || fmt.Sprintf("%q", opened) != fmt.Sprintf("%q", tt.opening) {
				t.Fatalf("Diff = closing %q, opening %q; want %q, %q", ids, opened, tt.closing, tt.opening)
			}
		})
	}
}
