package nomination

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

func energyBid(org, asset string, p bids.Product, start time.Time, st bids.Status, activated float64) bids.Bid {
	b := bids.Bid{OrganizationID: org, AssetID: asset, Market: bids.AFRREnergy, Product: p, Start: start,
		End: start.Add(calendar.PeriodLength), OfferedMW: 10, Status: st}
	if st == bids.Successful || st == bids.Rejected || st == bids.Fallback {
		b.AwardedMW = &activated
	}
	return b
}

func mw(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestBuild(t *testing.T) {
	zones := []AssetZone{
		{AssetID: "a1", OrganizationID: "o1", TSO: assets.TSO50Hertz},
		{AssetID: "a2", OrganizationID: "o1", TSO: assets.TSO50Hertz},
		{AssetID: "b1", OrganizationID: "o2", TSO: assets.TSO50Hertz},
		{AssetID: "c1", OrganizationID: "o1", TSO: assets.TSOTenneT},
	}
	eics := EICs{ControlArea: "10YDE-VE-------2"}
	configs := []Config{
		{OrganizationID: "o1", TSO: assets.TSO50Hertz, ResponsibleOrganizationID: "o1", EICs: eics},
		// o2's assets in 50Hertz are in o1's balancing group.
		{OrganizationID: "o2", TSO: assets.TSO50Hertz, ResponsibleOrganizationID: "o1"},
	}
	for _, tc := range []struct {
		day     string
		periods int
	}{{"2026-02-02", 96}, {"2026-03-29", 92}, {"2026-10-25", 100}} {
		t.Run(tc.day, func(t *testing.T) {
			d := day(t, tc.day)
			qs := d.Periods()
			last := qs[len(qs)-1].Start
			in := Input{Day: d, Assets: zones, Configs: configs, Bids: []bids.Bid{
				energyBid("o1", "a1", bids.Neg, qs[0].Start, bids.Successful, 3.1),
				energyBid("o1", "a1.s1", bids.Neg, qs[0].Start, bids.Successful, 0.5), // virtual: the parent's zone
				energyBid("o2", "b1", bids.Neg, qs[0].Start, bids.Successful, 1.25),
				energyBid("o1", "a2", bids.Pos, qs[1].Start, bids.Rejected, 0),
				energyBid("o1", "a2", bids.Pos, qs[2].Start, bids.Submitted, 0), // no outcome: q2 unpublished
				energyBid("o1", "a2", bids.Pos, last, bids.Successful, 2),
				energyBid("o1", "a1", bids.Pos, last, bids.Cancelled, 0), // never reached the market
				energyBid("o1", "c1", bids.Pos, qs[5].Start, bids.Fallback, 0),
				energyBid("o1", "zoneless", bids.Pos, qs[5].Start, bids.Successful, 4),
				energyBid("o1", "a1", bids.Pos, d.AddDays(1).Span().Start, bids.Successful, 4), // another day
			}}
			got := Build(in)
			if len(got) != 2 {
				t.Fatalf("%d nominations, want 2: %v", len(got), got)
			}
			z := got[Key{"o1", assets.TSO50Hertz, d}]
			if z.EICs == nil || z.EICs.ControlArea != eics.ControlArea {
				t.Errorf("EICs %v", z.EICs)
			}
			if len(z.Periods) != tc.periods-1 {
				t.Fatalf("%d published periods, want %d", len(z.Periods), tc.periods-1)
			}
			if p := z.Periods[0]; !p.Neg.Equal(mw("4.85")) || !p.Pos.IsZero() || !p.Start.Equal(qs[0].Start) {
				t.Errorf("first period %v", p)
			}
			if p := z.Periods[2]; !p.Start.Equal(qs[3].Start) || !p.Pos.IsZero() || !p.Neg.IsZero() {
				t.Errorf("q2 not left out or q3 not 0: %v", p)
			}
			if p := z.Periods[len(z.Periods)-1]; !p.Pos.Equal(mw("2")) {
				t.Errorf("last period %v", p)
			}
			if len(z.Assets) != 4 || z.Assets[0].AssetID != "a1" || z.Assets[1].AssetID != "a1.s1" || z.Assets[3].AssetID != "b1" ||
				z.Assets[3].OrganizationID != "o2" {
				t.Fatalf("asset rows %+v", z.Assets)
			}
			if len(z.Assets[0].Periods) != tc.periods || len(z.Assets[2].Periods) != tc.periods-1 {
				t.Errorf("a1 has %d periods, a2 %d", len(z.Assets[0].Periods), len(z.Assets[2].Periods))
			}
			c := got[Key{"o1", assets.TSOTenneT, d}]
			if c.EICs != nil || len(c.Periods) != tc.periods || !c.Periods[5].Pos.IsZero() {
				t.Errorf("TenneT: %+v", c)
			}
		})
	}
}

func TestComplete(t *testing.T) {
	q := day(t, "2026-02-02").Periods()[0].Start
	if !Complete([]bids.Bid{energyBid("o", "a", bids.Pos, q, bids.Rejected, 0), energyBid("o", "a", bids.Pos, q, bids.Failed, 0)}) {
		t.Error("outcomes all in: not complete")
	}
	if Complete([]bids.Bid{energyBid("o", "a", bids.Pos, q, bids.Pending, 0)}) {
		t.Error("a pending bid: complete")
	}
}

func TestDiff(t *testing.T) {
	q := day(t, "2026-10-25").Periods()
	e := EICs{ControlArea: "10YDE-VE-------2"}
	base := Content{EICs: &e, Periods: []Period{{Start: q[0].Start, Pos: mw("1"), Neg: mw("0")}},
		Assets: []AssetRow{{AssetID: "a", OrganizationID: "o", Periods: []Period{{Start: q[0].Start, Pos: mw("1"), Neg: mw("0")}}}}}
	e2 := EICs{ControlArea: "10YDE-EON------1"}
	for _, tc := range []struct {
		name string
		prev *Content
		next func(c Content) Content
		want string
	}{
		{"first", nil, func(c Content) Content { return c }, "first revision"},
		{"same", &base, func(c Content) Content { return c }, ""},
		{"same value, other scale", &base, func(c Content) Content {
			c.Periods = []Period{{Start: q[0].Start, Pos: mw("1.000"), Neg: mw("0.000")}}
			return c
		}, ""},
		{"late outcome", &base, func(c Content) Content {
			c.Periods = append([]Period{}, c.Periods...)
			c.Periods = append(c.Periods, Period{Start: q[8].Start, Pos: mw("0"), Neg: mw("2")})
			c.Assets = []AssetRow{{AssetID: "a", OrganizationID: "o", Periods: c.Periods}}
			return c
		}, "1 zone period(s) changed; 1 asset row(s) changed"},
		{"EICs configured", &Content{Periods: base.Periods, Assets: base.Assets}, func(c Content) Content { return c }, "header EICs changed"},
		{"EICs changed", &base, func(c Content) Content { c.EICs = &e2; return c }, "header EICs changed"},
		{"asset gone", &base, func(c Content) Content { c.Assets = nil; return c }, "1 asset row(s) changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Diff(tc.prev, tc.next(base)); got != tc.want {
				t.Errorf("Diff = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEICHeaders(t *testing.T) {
	e := EICs{SourceControlArea: "CA1", TargetControlArea: "CA2", SourceBalancingGroup: "BG1", TargetBalancingGroup: "BG2"}
	if h := e.Header(Pos); h != (Header{"CA1", "CA2", "BG1", "BG2"}) {
		t.Errorf("pos %v", h)
	}
	if h := e.Header(Neg); h != (Header{"CA2", "CA1", "BG2", "BG1"}) {
		t.Errorf("neg %v", h)
	}
}
