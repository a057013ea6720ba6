package afrr_test

import (
	"testing"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

func TestCapacityRules(t *testing.T) {
	r := afrr.CapacityRules()
	a := assets.NewAsset("a", "acme", "a", "Kiel", assets.Standalone)
	a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW = 0, 10
	if r.Enabled(a) {
		t.Error("enabled without afrr_enabled")
	}
	a.AFRREnabled = true
	if !r.Enabled(a) || r.Ceiling(a, bids.Pos) != 0 || r.Ceiling(a, bids.Neg) != 10 {
		t.Errorf("enabled %v, ceilings pos %v neg %v", r.Enabled(a), r.Ceiling(a, bids.Pos), r.Ceiling(a, bids.Neg))
	}
	if !r.HasProduct(bids.Pos) || !r.HasProduct(bids.Neg) || r.HasProduct(bids.Sym) || !r.Tendered {
		t.Errorf("products %v tendered %v", r.Products, r.Tendered)
	}
	if r.CapacityPrice.Min != 0 || r.CapacityPrice.Max != bids.EUR(15000) ||
		r.EnergyPrice.Min != bids.EUR(-15000) || r.EnergyPrice.Max != bids.EUR(15000) {
		t.Errorf("price bounds %+v %+v", r.CapacityPrice, r.EnergyPrice)
	}
	// Delivery day 2026-02-02 (CET): opens 2026-01-26 10:00, recommended
	// 2026-02-01 08:30, gate 09:00, local time.
	w := r.Window(calendar.Interval{Start: at("2026-02-02T03:00:00Z"), End: at("2026-02-02T07:00:00Z")})
	if !w.Opens.Equal(at("2026-01-26T09:00:00Z")) || !w.Recommended.Equal(at("2026-02-01T07:30:00Z")) || !w.Closes.Equal(at("2026-02-01T08:00:00Z")) {
		t.Errorf("window %+v", w)
	}
	// The first block of a day starts the evening before in UTC and still
	// belongs to that day's auction.
	if w2 := r.Window(calendar.Interval{Start: at("2026-02-01T23:00:00Z"), End: at("2026-02-02T03:00:00Z")}); w2 != w {
		t.Errorf("first block window %+v, want %+v", w2, w)
	}
}

func TestCapacityPayment(t *testing.T) {
	block := calendar.Interval{Start: at("2026-02-02T03:00:00Z"), End: at("2026-02-02T07:00:00Z")}
	// Spring forward: the first block of 2026-03-29 lasts 3 hours.
	short := calendar.Interval{Start: at("2026-03-28T23:00:00Z"), End: at("2026-03-29T02:00:00Z")}
	price := bids.Price(1050) // 10.50 EUR/MW/h
	for _, tc := range []struct {
		name    string
		iv      calendar.Interval
		status  bids.Status
		awarded *float64
		want    *bids.Price
	}{
		{"full award", block, bids.Successful, new(5.0), new(bids.EUR(210))},
		{"partial award", block, bids.Successful, new(3.0), new(bids.EUR(126))},
		{"no awarded figure: the offer", block, bids.Successful, nil, new(bids.EUR(210))},
		{"short block", short, bids.Successful, new(2.0), new(bids.Price(6300))},
		{"rejected", block, bids.Rejected, nil, nil},
		{"submitted", block, bids.Submitted, nil, nil},
		{"pending", block, bids.Pending, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bids.Bid{Start: tc.iv.Start, End: tc.iv.End, Status: tc.status, OfferedMW: 5, AwardedMW: tc.awarded, CapacityPrice: &price}
			got := afrr.CapacityPayment(b)
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Fatalf("payment %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCapacityTenderIntervals(t *testing.T) {
	now := at("2026-02-01T06:00:00Z")
	day := func(s string) *calendar.Day {
		d, err := calendar.ParseDay(s)
		if err != nil {
			t.Fatal(err)
		}
		return &d
	}
	for _, tc := range []struct {
		name      string
		q         afrr.CapacityIntervalQuery
		n         int
		first     string
		firstOpen bool
		bad       string // location of a 422
	}{
		{"delivery day", afrr.CapacityIntervalQuery{Day: day("2026-02-02")}, 6, "2026-02-01T23:00:00Z", true, ""},
		{"past day", afrr.CapacityIntervalQuery{Day: day("2026-02-01")}, 6, "2026-01-31T23:00:00Z", false, ""},
		{"fall back: 25 hours", afrr.CapacityIntervalQuery{Day: day("2026-10-25")}, 6, "2026-10-24T22:00:00Z", false, ""},
		{"window", afrr.CapacityIntervalQuery{Start: new(at("2026-02-02T03:00:00Z")), End: new(at("2026-02-02T11:00:00Z"))}, 2, "2026-02-02T03:00:00Z", true, ""},
		// Open now: 2026-02-02 to 2026-02-07; bidding for 2026-02-08
		// opens at 10:00 local time today, after now.
		{"open now", afrr.CapacityIntervalQuery{}, 36, "2026-02-01T23:00:00Z", true, ""},
		{"both", afrr.CapacityIntervalQuery{Day: day("2026-02-02"), Start: new(now), End: new(now.Add(1))}, 0, "", false, "query.delivery_day"},
		{"start alone", afrr.CapacityIntervalQuery{Start: new(now)}, 0, "", false, "query.start_time"},
		{"reversed", afrr.CapacityIntervalQuery{Start: new(now), End: new(now)}, 0, "", false, "query.end_time"},
		{"too long", afrr.CapacityIntervalQuery{Start: new(now), End: new(now.AddDate(0, 0, 32))}, 0, "", false, "query.end_time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := afrr.CapacityTenderIntervals(tc.q, now)
			if tc.bad != "" {
				e, ok := err.(*errs.Error)
				if !ok || e.Kind != errs.Invalid || len(e.Fields) != 1 || e.Fields[0].Location != tc.bad {
					t.Fatalf("error %#v, want 422 at %s", err, tc.bad)
				}
				return
			}
			if err != nil || len(got) != tc.n || !got[0].Start.Equal(at(tc.first)) || got[0].Open != tc.firstOpen {
				t.Fatalf("%d intervals (%v), first %+v", len(got), err, got)
			}
		})
	}
}
