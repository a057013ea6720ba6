package fcrreport

import (
	"math"
	"slices"
	"time"

	"atcp/internal/markets/feasibility"
	"atcp/internal/portfolio"
	"atcp/internal/reporting"
	"atcp/internal/restrictions"
	"atcp/internal/telemetry/simulator"
)

// Sample is one recorded second of the measurements the reports read
// (NaN where the asset did not report a value).
type Sample struct {
	Ms                int64   // the instant, Unix milliseconds
	FrequencyHz       float64 // frequency
	ReservedMW        float64 // fcr_upper_limit: the FCR reserve the asset holds this second
	DeliveredMW       float64 // fcr_power_actual
	AvailDischargeMWh float64 // available_discharge_energy
	AvailChargeMWh    float64 // available_charge_energy
	AssetStatus       float64 // asset_status
}

// SampleNames are the measurements of a Sample in the order SampleFrom
// takes them.
var SampleNames = []string{"frequency", "fcr_upper_limit", "fcr_power_actual",
	"available_discharge_energy", "available_charge_energy", "asset_status"}

// SampleFrom builds a Sample from a history row holding the first 3, 5
// or 6 of SampleNames (the length of v); the measurements after them are
// absent. Each report reads only the columns it needs (decoding is most
// of its cost): activations 3, delivery 5.
func SampleFrom(ms int64, v []float64) Sample {
	nan := math.NaN()
	s := Sample{Ms: ms, FrequencyHz: v[0], ReservedMW: v[1], DeliveredMW: v[2], AvailDischargeMWh: nan, AvailChargeMWh: nan, AssetStatus: nan}
	if len(v) >= 5 {
		s.AvailDischargeMWh, s.AvailChargeMWh = v[3], v[4]
	}
	if len(v) >= 6 {
		s.AssetStatus = v[5]
	}
	return s
}

func orZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// RequiredMW is the FCR power the second asks of the reserve: the control
// loop's droop (simulator.FCRActivationMW: full reserve at ±200 mHz,
// linear in between, no insensitivity band). Without a frequency reading
// or a reserve nothing is required.
func RequiredMW(s Sample) float64 {
	if math.IsNaN(s.FrequencyHz) || !(s.ReservedMW > 0) {
		return 0
	}
	return simulator.FCRActivationMW(s.ReservedMW, s.FrequencyHz)
}

// Tolerance is how far delivered FCR power may differ from the required
// power in a second before the second counts as outside the tolerance:
// 10 % of the reserve, at least 0.1 MW (a 1 MW reserve would otherwise
// flag measurement noise, and the ±10 mHz insensitivity real units may
// apply is 5 % of the reserve, inside it).
func Tolerance(reservedMW float64) float64 { return max(0.1*reservedMW, 0.1) }

// OutsideTolerance reports whether a second with a reserve delivered
// outside the tolerance; a second without a reserve never is.
func OutsideTolerance(s Sample) bool {
	if !(s.ReservedMW > 0) {
		return false
	}
	return math.Abs(orZero(s.DeliveredMW)-RequiredMW(s)) > Tolerance(s.ReservedMW)+1e-9
}

// OutsideSoCBand reports whether a second with a reserve had less than
// the FCR energy reserve (reserve x 0.25 h, feasibility.FCRReserveHours)
// left to deliver or to absorb: the band the control loop keeps the
// state of charge in while FCR is awarded (docs/control.md). Unknown
// energies are not judged.
func OutsideSoCBand(s Sample) bool {
	if !(s.ReservedMW > 0) || math.IsNaN(s.AvailDischargeMWh) || math.IsNaN(s.AvailChargeMWh) {
		return false
	}
	reserve := s.ReservedMW * feasibility.FCRReserveHours
	return s.AvailDischargeMWh < reserve-1e-9 || s.AvailChargeMWh < reserve-1e-9
}

// Band is a frequency-deviation band of the activation histogram.
type Band struct {
	Name string
	// MinMHz and MaxMHz bound the deviation f - 50 Hz in mHz: (Min, Max],
	// [Min, Max) below 50 Hz, [-10, 10] for the insensitivity band; nil
	// is unbounded.
	MinMHz, MaxMHz *int
}

func mhz(v int) *int { return &v }

// Bands are the histogram's bands from the lowest frequency up: each side
// of 50 Hz separately, the ±10 mHz insensitivity band in the middle.
var Bands = []Band{
	{"below_200", nil, mhz(-200)},
	{"below_100_200", mhz(-200), mhz(-100)},
	{"below_50_100", mhz(-100), mhz(-50)},
	{"below_10_50", mhz(-50), mhz(-10)},
	{"insensitivity", mhz(-10), mhz(10)},
	{"above_10_50", mhz(10), mhz(50)},
	{"above_50_100", mhz(50), mhz(100)},
	{"above_100_200", mhz(100), mhz(200)},
	{"above_200", mhz(200), nil},
}

// BandOf is the index in Bands of frequencyHz. The deviation is taken in
// whole µHz (the stored resolution), so 49.99 Hz is exactly -10 mHz and
// belongs to the insensitivity band; a bound belongs to the band nearer
// 50 Hz.
func BandOf(frequencyHz float64) int {
	d := int64(math.Round((frequencyHz - 50) * 1e6))
	a := d
	if a < 0 {
		a = -a
	}
	var k int
	switch {
	case a <= 10_000:
		return 4
	case a <= 50_000:
		k = 1
	case a <= 100_000:
		k = 2
	case a <= 200_000:
		k = 3
	default:
		k = 4
	}
	if d < 0 {
		return 4 - k
	}
	return 4 + k
}

// Period is one reported period: the granularity's period [Start, End)
// and its part [From, To) inside the report window.
type Period struct {
	Start, End time.Time
	From, To   time.Time
}

// Seconds is the number of seconds of the period inside the window.
func (p Period) Seconds() int { return int(p.To.Sub(p.From) / time.Second) }

// Periods cuts the window into the periods of g (Berlin hours and days,
// UTC quarter-hours); g "" is the whole window as one period.
func Periods(w reporting.Window, g reporting.Granularity) []Period {
	if g == "" {
		return []Period{{Start: w.Start, End: w.End, From: w.Start, To: w.End}}
	}
	starts := g.Periods(w)
	out := make([]Period, len(starts))
	for i, s := range starts {
		e := g.PeriodEnd(s)
		out[i] = Period{Start: s, End: e, From: maxTime(s, w.Start), To: minTime(e, w.End)}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// cursor walks the periods of a window with samples in time order, one
// sample per second (a second's later samples are skipped).
type cursor struct {
	periods []Period
	ends    []int64 // To of each period, Unix seconds
	i       int
	last    int64 // the last second seen
	lo, hi  int64 // the window, Unix seconds
}

func newCursor(periods []Period) cursor {
	c := cursor{periods: periods, ends: make([]int64, len(periods)), last: math.MinInt64}
	for i, p := range periods {
		c.ends[i] = p.To.Unix()
	}
	if len(periods) > 0 {
		c.lo, c.hi = periods[0].From.Unix(), periods[len(periods)-1].To.Unix()
	}
	return c
}

// accept returns the second of ms, ok false for a sample outside the
// window or repeating a second.
func (c *cursor) accept(ms int64) (sec int64, ok bool) {
	sec = ms / 1000
	if ms < 0 && ms%1000 != 0 {
		sec--
	}
	if sec <= c.last || sec < c.lo || sec >= c.hi {
		return sec, false
	}
	c.last = sec
	return sec, true
}

// periodOf returns the period of a second at or after the cursor's.
func (c *cursor) periodOf(sec int64) int {
	for c.i < len(c.ends) && sec >= c.ends[c.i] {
		c.i++
	}
	return c.i
}

func round(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p) / p
}

// restrictionState of a second: none, a partial limit, or a full
// restriction (restrictions.Interval.Full).
type restrictionState uint8

const (
	unrestricted restrictionState = iota
	limited
	fullyRestricted
)

// timeline is the restriction state over a window as segments starting at
// each boundary (Unix seconds, ascending).
type timeline struct {
	starts []int64
	states []restrictionState
	i      int
}

// newTimeline builds the restriction state of every second of [lo, hi)
// (Unix seconds) from the intervals: a second is fully restricted when an
// interval active at it is Full, limited when a power or energy limit is
// active at it otherwise. An interval starting or ending within a second
// counts from the next whole second.
func newTimeline(intervals []restrictions.Interval, lo, hi int64) *timeline {
	bounds := []int64{lo}
	ceil := func(t time.Time) int64 {
		s := t.Unix()
		if t.After(time.Unix(s, 0)) {
			s++
		}
		return s
	}
	for _, iv := range intervals {
		if s := ceil(iv.Start); s > lo && s < hi {
			bounds = append(bounds, s)
		}
		if iv.End != nil {
			if e := ceil(*iv.End); e > lo && e < hi {
				bounds = append(bounds, e)
			}
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	tl := &timeline{starts: bounds, states: make([]restrictionState, len(bounds))}
	for k, s := range bounds {
		at := time.Unix(s, 0)
		for _, iv := range intervals {
			if !iv.ActiveAt(at) {
				continue
			}
			switch {
			case iv.Full():
				tl.states[k] = fullyRestricted
			case tl.states[k] == unrestricted && (iv.Kind == restrictions.PowerLimit || iv.Kind == restrictions.EnergyLimit):
				tl.states[k] = limited
			}
		}
	}
	return tl
}

// at returns the state of second sec, at or after the previous one asked.
func (t *timeline) at(sec int64) restrictionState {
	for t.i+1 < len(t.starts) && sec >= t.starts[t.i+1] {
		t.i++
	}
	return t.states[t.i]
}

// Covers are an award's pool covers over its block, each as a mean MW
// over the block (MW x hours of the steps / hours of the block).
type Covers struct {
	// CoveredByPoolMW is the award's part of its battery's FCR shortfall
	// that pool members delivered, UncoveredMW the part nobody did.
	CoveredByPoolMW, UncoveredMW float64
	// CoveredForOthersMW is the FCR the battery delivered for other pool
	// members; 0 for a virtual asset's award (the battery covers with
	// power no segment holds).
	CoveredForOthersMW float64
}

// CoversOf attributes the FCR cover steps of battery (the award's
// physical asset) overlapping the block [start, end) to an award of
// awardedMW. A step's shortfall is the battery's, across every award it
// holds (its segments' included), so the award bears the share
// awardedMW / the step's obligation of it.
func CoversOf(start, end time.Time, awardedMW float64, battery string, virtual bool, steps []portfolio.Step) Covers {
	var c Covers
	block := end.Sub(start).Hours()
	if block <= 0 {
		return c
	}
	for _, st := range steps {
		if st.Product != portfolio.FCR {
			continue
		}
		h := minTime(st.To, end).Sub(maxTime(st.From, start)).Hours()
		if h <= 0 {
			continue
		}
		switch {
		case st.Failing == battery:
			share := 1.0
			if st.ObligationMW > 0 {
				share = min(1, awardedMW/st.ObligationMW)
			}
			if st.Covering == "" {
				c.UncoveredMW += st.MW * share * h
			} else {
				c.CoveredByPoolMW += st.MW * share * h
			}
		case st.Covering == battery && !virtual:
			c.CoveredForOthersMW += st.MW * h
		}
	}
	c.CoveredByPoolMW = round(c.CoveredByPoolMW/block, 6)
	c.UncoveredMW = round(c.UncoveredMW/block, 6)
	c.CoveredForOthersMW = round(c.CoveredForOthersMW/block, 6)
	return c
}
