package fcrreport

import (
	"math"
	"testing"
	"time"

	"atcp/internal/portfolio"
	"atcp/internal/reporting"
	"atcp/internal/restrictions"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestBandOf(t *testing.T) {
	for _, c := range []struct {
		f    float64
		band string
	}{
		{50, "insensitivity"}, {49.99, "insensitivity"}, {50.01, "insensitivity"},
		{49.98999, "below_10_50"}, {50.010001, "above_10_50"}, {49.95, "below_10_50"}, {50.05, "above_10_50"},
		{49.949, "below_50_100"}, {49.9, "below_50_100"}, {50.1, "above_50_100"},
		{49.8, "below_100_200"}, {50.2, "above_100_200"}, {49.799, "below_200"}, {50.5, "above_200"},
	} {
		if got := Bands[BandOf(c.f)].Name; got != c.band {
			t.Errorf("%v Hz: %s, want %s", c.f, got, c.band)
		}
	}
}

func TestRequiredAndTolerance(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name                    string
		s                       Sample
		required                float64
		outsideTol, outsideBand bool
	}{
		{"no reserve", Sample{FrequencyHz: 49.8, ReservedMW: 0, DeliveredMW: 3}, 0, false, false},
		{"full activation below", Sample{FrequencyHz: 49.8, ReservedMW: 5, DeliveredMW: 5, AvailDischargeMWh: 5, AvailChargeMWh: 5}, 5, false, false},
		{"beyond 200 mHz is capped", Sample{FrequencyHz: 50.5, ReservedMW: 5, DeliveredMW: -5, AvailDischargeMWh: 5, AvailChargeMWh: 5}, -5, false, false},
		{"half activation", Sample{FrequencyHz: 49.9, ReservedMW: 4, DeliveredMW: 1.59, AvailDischargeMWh: 5, AvailChargeMWh: 5}, 2, true, false},
		{"at the tolerance", Sample{FrequencyHz: 49.9, ReservedMW: 4, DeliveredMW: 1.6, AvailDischargeMWh: 5, AvailChargeMWh: 5}, 2, false, false},
		{"0.1 MW floor", Sample{FrequencyHz: 49.9, ReservedMW: 0.5, DeliveredMW: 0.16, AvailDischargeMWh: 5, AvailChargeMWh: 5}, 0.25, false, false},
		{"absent delivery counts 0", Sample{FrequencyHz: 49.9, ReservedMW: 4, DeliveredMW: nan, AvailDischargeMWh: 5, AvailChargeMWh: 5}, 2, true, false},
		{"no frequency requires nothing", Sample{FrequencyHz: nan, ReservedMW: 4, DeliveredMW: 0, AvailDischargeMWh: 5, AvailChargeMWh: 5}, 0, false, false},
		{"SoC band: too little to absorb", Sample{FrequencyHz: 50, ReservedMW: 4, AvailDischargeMWh: 5, AvailChargeMWh: 0.99}, 0, false, true},
		{"SoC band: exactly the reserve", Sample{FrequencyHz: 50, ReservedMW: 4, AvailDischargeMWh: 1, AvailChargeMWh: 1}, 0, false, false},
		{"SoC band: unknown energy", Sample{FrequencyHz: 50, ReservedMW: 4, AvailDischargeMWh: nan, AvailChargeMWh: 0}, 0, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RequiredMW(c.s); math.Abs(got-c.required) > 1e-9 {
				t.Fatalf("required %v, want %v", got, c.required)
			}
			if got := OutsideTolerance(c.s); got != c.outsideTol {
				t.Fatalf("outside tolerance %v", got)
			}
			if got := OutsideSoCBand(c.s); got != c.outsideBand {
				t.Fatalf("outside SoC band %v", got)
			}
		})
	}
}

// samples returns one sample a second over [from, to) from gen.
func samples(from, to time.Time, gen func(sec int64) (Sample, bool)) []Sample {
	var out []Sample
	for s := from.Unix(); s < to.Unix(); s++ {
		if x, ok := gen(s); ok {
			x.Ms = s * 1000
			out = append(out, x)
		}
	}
	return out
}

func TestDeliveryPeriodsBerlin(t *testing.T) {
	steady := func(int64) (Sample, bool) {
		return Sample{FrequencyHz: 49.9, ReservedMW: 4, DeliveredMW: 2, AvailDischargeMWh: 5, AvailChargeMWh: 5, AssetStatus: 1}, true
	}
	cases := []struct {
		name       string
		g          reporting.Granularity
		start, end string
		periods    int
		firstSecs  int
		lastSecs   int
	}{
		{"spring-forward day, quarter-hours", reporting.FifteenMinutes, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", 92, 900, 900},
		{"spring-forward day, hours", reporting.Hourly, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", 23, 3600, 3600},
		{"spring-forward day, one day of 23 hours", reporting.Daily, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", 1, 23 * 3600, 23 * 3600},
		{"fall-back day, quarter-hours", reporting.FifteenMinutes, "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z", 100, 900, 900},
		{"fall-back day, hours", reporting.Hourly, "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z", 25, 3600, 3600},
		{"fall-back day, one day of 25 hours", reporting.Daily, "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z", 1, 25 * 3600, 25 * 3600},
		{"a window cutting its periods", reporting.Hourly, "2026-02-02T10:15:00Z", "2026-02-02T12:30:00Z", 3, 2700, 1800},
		{"a window cutting a Berlin day", reporting.Daily, "2026-02-02T12:00:00Z", "2026-02-03T01:00:00Z", 2, 11 * 3600, 2 * 3600},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := reporting.Window{Start: utc(c.start), End: utc(c.end)}
			f := NewDelivery(w, c.g)
			for _, s := range samples(w.Start, w.End, steady) {
				f.Add(s)
			}
			ps := f.Periods()
			if len(ps) != c.periods || ps[0].Seconds() != c.firstSecs || ps[len(ps)-1].Seconds() != c.lastSecs {
				t.Fatalf("%d periods, first %d s, last %d s", len(ps), ps[0].Seconds(), ps[len(ps)-1].Seconds())
			}
			total := 0
			for _, p := range ps {
				n := p.Seconds()
				total += n
				if p.TelemetrySeconds != n || p.ReservedSeconds != n || p.WithoutTelemetrySeconds != 0 || p.OutsideToleranceSeconds != 0 {
					t.Fatalf("period %s: %+v", p.Start, p)
				}
				if math.Abs(p.RequiredPosMWh-2*float64(n)/3600) > 1e-6 || p.RequiredNegMWh != 0 || *p.FillRatePct != 100 || *p.ReservedMeanMW != 4 {
					t.Fatalf("period %s energies: %+v", p.Start, p)
				}
			}
			if total != int(w.End.Sub(w.Start)/time.Second) {
				t.Fatalf("%d seconds in the periods", total)
			}
		})
	}
}

func TestDeliveryFigures(t *testing.T) {
	w := reporting.Window{Start: utc("2026-02-02T10:00:00Z"), End: utc("2026-02-02T10:15:00Z")}
	f := NewDelivery(w, reporting.FifteenMinutes)
	nan := math.NaN()
	for _, s := range []Sample{
		// Under-delivery at 49.9 Hz: required 2, delivered 1 (outside 0.4).
		{Ms: w.Start.UnixMilli(), FrequencyHz: 49.9, ReservedMW: 4, DeliveredMW: 1, AvailDischargeMWh: 5, AvailChargeMWh: 5},
		// A repeat of the same second is ignored.
		{Ms: w.Start.UnixMilli() + 500, FrequencyHz: 49.9, ReservedMW: 4, DeliveredMW: 9, AvailDischargeMWh: 5, AvailChargeMWh: 5},
		// Over-delivery at 50.1 Hz: required -2, delivered -3 (counts 2).
		{Ms: w.Start.UnixMilli() + 1000, FrequencyHz: 50.1, ReservedMW: 4, DeliveredMW: -3, AvailDischargeMWh: 5, AvailChargeMWh: 0.5},
		// The wrong direction counts nothing.
		{Ms: w.Start.UnixMilli() + 2000, FrequencyHz: 50.1, ReservedMW: 4, DeliveredMW: 1, AvailDischargeMWh: 5, AvailChargeMWh: 5},
		// No reserve: telemetry, nothing else.
		{Ms: w.Start.UnixMilli() + 3000, FrequencyHz: 50.1, ReservedMW: 0, DeliveredMW: nan},
	} {
		f.Add(s)
	}
	p := f.Periods()[0]
	h := 1.0 / 3600
	if p.TelemetrySeconds != 4 || p.ReservedSeconds != 3 || p.WithoutTelemetrySeconds != 896 || p.OutsideToleranceSeconds != 3 ||
		p.OutsideSoCBandSeconds != 1 || *p.ReservedMeanMW != 3 {
		t.Fatalf("counts: %+v", p)
	}
	if p.RequiredPosMWh != round(2*h, 6) || p.RequiredNegMWh != round(4*h, 6) || p.DeliveredPosMWh != round(2*h, 6) || p.DeliveredNegMWh != round(3*h, 6) {
		t.Fatalf("energies: %+v", p)
	}
	// matched: 1 + 2 of 6 MW-seconds required.
	if *p.FillRatePct != 50 {
		t.Fatalf("fill rate %v", *p.FillRatePct)
	}
}

func TestActivations(t *testing.T) {
	w := reporting.Window{Start: utc("2026-10-25T00:00:00Z"), End: utc("2026-10-25T02:00:00Z")}
	// Each second of the first hour at 49.9 Hz, the second hour at 50.005
	// Hz; a 1 MW reserve, delivered exactly.
	gen := func(sec int64) (Sample, bool) {
		f := 49.9
		if sec >= utc("2026-10-25T01:00:00Z").Unix() {
			f = 50.005
		}
		s := Sample{FrequencyHz: f, ReservedMW: 1}
		s.DeliveredMW = RequiredMW(s)
		return s, sec%10 != 0 // a tenth missing
	}
	whole := NewActivations(w, "")
	hourly := NewActivations(w, reporting.Hourly)
	for _, s := range samples(w.Start, w.End, gen) {
		whole.Add(s)
		hourly.Add(s)
	}
	ps := whole.Periods()
	if len(ps) != 1 || ps[0].FrequencySeconds != 6480 {
		t.Fatalf("whole window: %+v", ps)
	}
	below := ps[0].Bands[2] // below_50_100 holds -100 mHz
	if Bands[below.Band].Name != "below_50_100" || below.Seconds != 3240 || *below.MeanRequiredMW != 0.5 || *below.MeanDeliveredMW != 0.5 ||
		below.RequiredMWh != 0.45 || below.DeliveredMWh != 0.45 || below.ReservedSeconds != 3240 {
		t.Fatalf("below_50_100: %+v", below)
	}
	in := ps[0].Bands[4]
	if in.Seconds != 3240 || *in.MeanRequiredMW != -0.025 || in.RequiredMWh != round(-0.025*0.9, 6) {
		t.Fatalf("insensitivity: %+v %v", in, *in.MeanRequiredMW)
	}
	if ps[0].Bands[0].MeanRequiredMW != nil || ps[0].Bands[0].Seconds != 0 {
		t.Fatalf("an empty band: %+v", ps[0].Bands[0])
	}
	hs := hourly.Periods()
	if len(hs) != 2 || hs[0].Bands[2].Seconds != 3240 || hs[1].Bands[4].Seconds != 3240 || hs[1].Bands[2].Seconds != 0 {
		t.Fatalf("hourly: %+v", hs)
	}
}

func TestAvailabilityPrecedence(t *testing.T) {
	w := reporting.Window{Start: utc("2026-03-29T00:00:00Z"), End: utc("2026-03-29T02:00:00Z")}
	at := func(s string) time.Time { return utc("2026-03-29T" + s + "Z") }
	end := func(s string) *time.Time { e := at(s); return &e }
	f64 := func(v float64) *float64 { return &v }
	intervals := []restrictions.Interval{
		// A partial power limit 00:10-00:40, a full unavailability
		// 00:30-00:50 (it wins where both apply), an open-ended empty
		// energy window from 01:50.
		{Kind: restrictions.PowerLimit, Start: at("00:10:00"), End: end("00:40:00"), Upper: f64(5), Lower: f64(-5)},
		{Kind: restrictions.Unavailability, Start: at("00:30:00"), End: end("00:50:00")},
		{Kind: restrictions.EnergyLimit, Start: at("01:50:00"), Upper: f64(3), Lower: f64(3)},
	}
	f := NewAvailability(w, reporting.Hourly, intervals)
	// Telemetry until 01:20, then none; asset_status 0 from 01:00 to 01:10
	// and during the unavailability.
	for _, s := range samples(w.Start, at("01:20:00"), func(sec int64) (Sample, bool) {
		st := 1.0
		if t := time.Unix(sec, 0); !t.Before(at("00:30:00")) && t.Before(at("00:50:00")) || !t.Before(at("01:00:00")) && t.Before(at("01:10:00")) {
			st = 0
		}
		return Sample{AssetStatus: st}, true
	}) {
		f.Add(s)
	}
	ps := f.Periods()
	if len(ps) != 2 {
		t.Fatalf("%d periods", len(ps))
	}
	first, second := ps[0], ps[1]
	if first.AvailableSeconds != 20*60 || first.LimitedSeconds != 20*60 || first.UnavailableSeconds != 20*60 || first.StatusZeroSeconds != 0 ||
		first.NoTelemetrySeconds != 0 || first.AvailabilityPct != 66.67 {
		t.Fatalf("first hour: %+v", first)
	}
	if second.StatusZeroSeconds != 600 || second.AvailableSeconds != 600 || second.NoTelemetrySeconds != 30*60 ||
		second.UnavailableSeconds != 10*60 || second.AvailabilityPct != 16.67 {
		t.Fatalf("second hour: %+v", second)
	}
}

func TestCoversOf(t *testing.T) {
	start, end := utc("2026-02-02T08:00:00Z"), utc("2026-02-02T12:00:00Z")
	step := func(failing, covering string, from, to string, mw, obligation float64, p portfolio.Product) portfolio.Step {
		return portfolio.Step{From: utc("2026-02-02T" + from + "Z"), To: utc("2026-02-02T" + to + "Z"),
			Assignment: portfolio.Assignment{Product: p, Failing: failing, Covering: covering, MW: mw, ObligationMW: obligation}}
	}
	steps := []portfolio.Step{
		step("bess-1", "bess-2", "08:00:00", "09:00:00", 4, 8, portfolio.FCR),     // 1 h of 4 MW covered
		step("bess-1", "", "09:00:00", "10:00:00", 2, 8, portfolio.FCR),           // 1 h of 2 MW uncovered
		step("bess-3", "bess-1", "07:00:00", "10:00:00", 1, 1, portfolio.FCR),     // 2 h inside the block
		step("bess-1", "bess-2", "08:00:00", "12:00:00", 5, 5, portfolio.AFRRPos), // not FCR
	}
	cases := []struct {
		name    string
		awarded float64
		virtual bool
		want    Covers
	}{
		{"the battery's whole obligation", 8, false, Covers{CoveredByPoolMW: 1, UncoveredMW: 0.5, CoveredForOthersMW: 0.5}},
		{"a segment with a quarter of it", 2, true, Covers{CoveredByPoolMW: 0.25, UncoveredMW: 0.125}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := CoversOf(start, end, c.awarded, "bess-1", c.virtual, steps); got != c.want {
				t.Fatalf("%+v", got)
			}
		})
	}
}

func TestStatusAt(t *testing.T) {
	start, end := utc("2026-03-29T00:00:00Z"), utc("2026-03-29T04:00:00Z")
	for _, c := range []struct {
		now  string
		want DeliveryStatus
	}{
		{"2026-03-28T23:59:59Z", Upcoming}, {"2026-03-29T00:00:00Z", InDelivery}, {"2026-03-29T03:59:59Z", InDelivery}, {"2026-03-29T04:00:00Z", Delivered},
	} {
		if got := statusAt(start, end, utc(c.now)); got != c.want {
			t.Errorf("at %s: %s, want %s", c.now, got, c.want)
		}
	}
}
