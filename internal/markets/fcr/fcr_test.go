package fcr

import (
	"testing"

	"atcp/internal/assets"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

func TestRules(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want bids.Price
	}{{Config{}, bids.EUR(15000)}, {Config{MaxPrice: bids.EUR(9999)}, bids.EUR(9999)}} {
		r := Rules(c.cfg)
		if r.CapacityPrice.Max != c.want || r.CapacityPrice.Min != 0 || r.EnergyPrice != nil {
			t.Errorf("%+v: bounds %+v", c.cfg, r.CapacityPrice)
		}
	}
	r := Rules(Config{})
	a := assets.NewAsset("x", "o", "x", "Kiel", assets.Standalone)
	a.FCRPrequalifiedMW, a.AFRRPrequalifiedPosMW = 7, 3
	if r.Enabled(a) || r.Ceiling(a, bids.Sym) != 7 || !r.HasProduct(bids.Sym) || r.HasProduct(bids.Pos) || !r.Tendered {
		t.Errorf("rules %+v", r)
	}
	d := calendar.Day{Year: 2026, Month: 3, Day: 29}
	if w := r.Window(d.TenderBlocks()[0]); w != calendar.FCRWindow(d) {
		t.Errorf("window %+v", w)
	}
}
