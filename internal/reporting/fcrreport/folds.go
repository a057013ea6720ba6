package fcrreport

import (
	"math"

	"atcp/internal/reporting"
	"atcp/internal/restrictions"
)

// DeliveryPeriod is FCR delivery in one period (docs/reporting.md).
type DeliveryPeriod struct {
	Period
	TelemetrySeconds int // seconds with a recorded sample
	ReservedSeconds  int // seconds with a reserve above 0
	// ReservedMeanMW is the mean reserve over the seconds with telemetry;
	// nil without any.
	ReservedMeanMW                   *float64
	RequiredPosMWh, RequiredNegMWh   float64 // required energy each way (magnitudes)
	DeliveredPosMWh, DeliveredNegMWh float64 // fcr_power_actual's energy each way (magnitudes)
	// FillRatePct is the required energy delivered, each second counting
	// at most what it required and only in the required direction, as a
	// percentage of the required energy; nil when nothing was required.
	FillRatePct             *float64
	OutsideToleranceSeconds int
	OutsideSoCBandSeconds   int
	WithoutTelemetrySeconds int

	reservedSum, matchedMWh float64
}

// DeliveryFold folds samples into the delivery periods of a window.
type DeliveryFold struct {
	c       cursor
	periods []DeliveryPeriod
}

// NewDelivery starts the delivery report of w (whole seconds) by g.
func NewDelivery(w reporting.Window, g reporting.Granularity) *DeliveryFold {
	ps := Periods(w, g)
	f := &DeliveryFold{c: newCursor(ps), periods: make([]DeliveryPeriod, len(ps))}
	for i, p := range ps {
		f.periods[i].Period = p
	}
	return f
}

const secondHours = 1.0 / 3600

// Add folds one sample; samples come in time order.
func (f *DeliveryFold) Add(s Sample) {
	sec, ok := f.c.accept(s.Ms)
	if !ok {
		return
	}
	i := f.c.periodOf(sec)
	p := &f.periods[i]
	p.TelemetrySeconds++
	reserved := orZero(s.ReservedMW)
	p.reservedSum += reserved
	if !(reserved > 0) {
		return
	}
	p.ReservedSeconds++
	req, got := RequiredMW(s), orZero(s.DeliveredMW)
	if req > 0 {
		p.RequiredPosMWh += req * secondHours
	} else {
		p.RequiredNegMWh -= req * secondHours
	}
	if got > 0 {
		p.DeliveredPosMWh += got * secondHours
	} else {
		p.DeliveredNegMWh -= got * secondHours
	}
	if req*got > 0 {
		p.matchedMWh += math.Min(math.Abs(req), math.Abs(got)) * secondHours
	}
	if OutsideTolerance(s) {
		p.OutsideToleranceSeconds++
	}
	if OutsideSoCBand(s) {
		p.OutsideSoCBandSeconds++
	}
}

// Periods returns the folded periods, figures rounded (MWh and MW to
// 1e-6, percentages to 0.01).
func (f *DeliveryFold) Periods() []DeliveryPeriod {
	for i := range f.periods {
		p := &f.periods[i]
		p.WithoutTelemetrySeconds = p.Seconds() - p.TelemetrySeconds
		if p.TelemetrySeconds > 0 {
			m := round(p.reservedSum/float64(p.TelemetrySeconds), 6)
			p.ReservedMeanMW = &m
		}
		if req := p.RequiredPosMWh + p.RequiredNegMWh; req > 0 {
			pct := round(100*p.matchedMWh/req, 2)
			p.FillRatePct = &pct
		}
		p.RequiredPosMWh, p.RequiredNegMWh = round(p.RequiredPosMWh, 6), round(p.RequiredNegMWh, 6)
		p.DeliveredPosMWh, p.DeliveredNegMWh = round(p.DeliveredPosMWh, 6), round(p.DeliveredNegMWh, 6)
	}
	return f.periods
}

// BandFigures are one band's figures in one period.
type BandFigures struct {
	Band            int // index in Bands
	Seconds         int // seconds with a frequency reading in the band
	ReservedSeconds int // of them, seconds with a reserve above 0
	// MeanRequiredMW and MeanDeliveredMW are means over Seconds (a second
	// without a reserve requires 0 MW); nil when Seconds is 0.
	MeanRequiredMW, MeanDeliveredMW *float64
	RequiredMWh, DeliveredMWh       float64 // signed: positive discharge
}

// ActivationPeriod is the activation histogram of one period.
type ActivationPeriod struct {
	Period
	FrequencySeconds int // seconds with a frequency reading
	Bands            []BandFigures
}

// ActivationFold folds samples into the activation histogram.
type ActivationFold struct {
	c       cursor
	periods []ActivationPeriod
}

// NewActivations starts the activation report of w (whole seconds) by g
// ("" for one histogram over the window).
func NewActivations(w reporting.Window, g reporting.Granularity) *ActivationFold {
	ps := Periods(w, g)
	f := &ActivationFold{c: newCursor(ps), periods: make([]ActivationPeriod, len(ps))}
	for i, p := range ps {
		f.periods[i] = ActivationPeriod{Period: p, Bands: make([]BandFigures, len(Bands))}
		for b := range Bands {
			f.periods[i].Bands[b].Band = b
		}
	}
	return f
}

// Add folds one sample; samples come in time order.
func (f *ActivationFold) Add(s Sample) {
	if math.IsNaN(s.FrequencyHz) {
		return
	}
	sec, ok := f.c.accept(s.Ms)
	if !ok {
		return
	}
	i := f.c.periodOf(sec)
	p := &f.periods[i]
	p.FrequencySeconds++
	b := &p.Bands[BandOf(s.FrequencyHz)]
	b.Seconds++
	if s.ReservedMW > 0 {
		b.ReservedSeconds++
	}
	// The sums ride in the energy fields until Periods.
	b.RequiredMWh += RequiredMW(s)
	b.DeliveredMWh += orZero(s.DeliveredMW)
}

// Periods returns the folded histograms, rounded (MW and MWh to 1e-6).
func (f *ActivationFold) Periods() []ActivationPeriod {
	for i := range f.periods {
		for k := range f.periods[i].Bands {
			b := &f.periods[i].Bands[k]
			if b.Seconds > 0 {
				req, got := round(b.RequiredMWh/float64(b.Seconds), 6), round(b.DeliveredMWh/float64(b.Seconds), 6)
				b.MeanRequiredMW, b.MeanDeliveredMW = &req, &got
			}
			b.RequiredMWh, b.DeliveredMWh = round(b.RequiredMWh*secondHours, 6), round(b.DeliveredMWh*secondHours, 6)
		}
	}
	return f.periods
}

// AvailabilityPeriod counts each second of a period in exactly one
// category, by precedence: unavailable (a full restriction in force) >
// no telemetry > asset_status 0 > limited (a partial power or energy
// limit in force) > available.
type AvailabilityPeriod struct {
	Period
	AvailableSeconds   int
	LimitedSeconds     int
	UnavailableSeconds int
	StatusZeroSeconds  int
	NoTelemetrySeconds int
	// AvailabilityPct is available and limited seconds over the period's
	// seconds (the asset could trade), 0.01 %.
	AvailabilityPct float64
}

// AvailabilityFold folds samples and restrictions into availability.
type AvailabilityFold struct {
	c       cursor
	tl      *timeline
	next    int64 // the first second not yet counted
	periods []AvailabilityPeriod
}

// NewAvailability starts the availability report of w (whole seconds) by
// g, given the asset's restriction intervals overlapping w.
func NewAvailability(w reporting.Window, g reporting.Granularity, intervals []restrictions.Interval) *AvailabilityFold {
	ps := Periods(w, g)
	f := &AvailabilityFold{c: newCursor(ps), periods: make([]AvailabilityPeriod, len(ps))}
	for i, p := range ps {
		f.periods[i].Period = p
	}
	f.tl = newTimeline(intervals, f.c.lo, f.c.hi)
	f.next = f.c.lo
	return f
}

// Add folds one sample; samples come in time order.
func (f *AvailabilityFold) Add(s Sample) {
	sec, ok := f.c.accept(s.Ms)
	if !ok {
		return
	}
	f.gap(sec)
	i := f.c.periodOf(sec)
	p := &f.periods[i]
	switch st := f.tl.at(sec); {
	case st == fullyRestricted:
		p.UnavailableSeconds++
	case s.AssetStatus == 0:
		p.StatusZeroSeconds++
	case st == limited:
		p.LimitedSeconds++
	default:
		p.AvailableSeconds++
	}
	f.next = sec + 1
}

// gap counts the seconds before sec without a sample.
func (f *AvailabilityFold) gap(sec int64) {
	for s := f.next; s < sec; s++ {
		p := &f.periods[f.c.periodOf(s)]
		if f.tl.at(s) == fullyRestricted {
			p.UnavailableSeconds++
		} else {
			p.NoTelemetrySeconds++
		}
	}
}

// Periods counts the seconds after the last sample and returns the
// periods.
func (f *AvailabilityFold) Periods() []AvailabilityPeriod {
	f.gap(f.c.hi)
	f.next = f.c.hi
	for i := range f.periods {
		p := &f.periods[i]
		if n := p.Seconds(); n > 0 {
			p.AvailabilityPct = round(100*float64(p.AvailableSeconds+p.LimitedSeconds)/float64(n), 2)
		}
	}
	return f.periods
}
