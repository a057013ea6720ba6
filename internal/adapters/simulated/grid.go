package simulated

import (
	"math"
	"time"

	"atcp/internal/detrand"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/replay"
	"atcp/internal/telemetry/simulator"
)

// The grid model: deterministic signals Advance feeds the simulator.
// Everything derives from a seed through splitmix64, so equal seeds
// replay equal days on every instance.

// frequencyPersistence is the AR(1) coefficient of the 1 Hz frequency
// series: the grid frequency drifts over tens of seconds rather than
// jumping from second to second.
const frequencyPersistence = 0.97

// FrequencySeries is the 1 Hz grid frequency of the 15-minute period
// starting at periodStart: AR(1) noise seeded by seed and the period,
// rescaled to the replayed quarter-hour's mean and standard deviation and
// kept within its minimum and maximum. Without replayed statistics it is
// 50 Hz throughout.
func FrequencySeries(data *replay.Dataset, seed uint64, periodStart time.Time) []float64 {
	n := int(calendar.PeriodLength / time.Second)
	out := make([]float64, n)
	stats, ok := replay.Frequency{}, false
	if data != nil {
		if src, err := replay.SourceQuarterHour(periodStart); err == nil {
			stats, ok = data.Frequency(src)
		}
	}
	if !ok || stats.Samples == 0 {
		for i := range out {
			out[i] = replay.NominalHz
		}
		return out
	}
	key := detrand.Mix(seed, uint64(periodStart.Unix()))
	var x, sum, sumSq float64
	for i := range out {
		// Box-Muller: a standard normal draw from two uniforms.
		u1 := math.Max(detrand.Uniform(key, uint64(2*i)), 1e-300)
		e := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*detrand.Uniform(key, uint64(2*i+1)))
		x = frequencyPersistence*x + math.Sqrt(1-frequencyPersistence*frequencyPersistence)*e
		out[i] = x
		sum += x
		sumSq += x * x
	}
	mean := sum / float64(n)
	std := math.Sqrt(math.Max(sumSq/float64(n)-mean*mean, 1e-12))
	for i, x := range out {
		f := stats.MeanHz + stats.StdHz*(x-mean)/std
		out[i] = math.Max(stats.MinHz, math.Min(stats.MaxHz, f))
	}
	return out
}

// Curtailment model parameters: how often the DSO curtails.
const (
	pvCurtailmentShare    = 0.3 // days with a midday export curtailment of a PV asset
	otherCurtailmentShare = 0.1 // days with one curtailment episode of any asset
)

// Curtailment is the DSO's curtailment of an asset at t: on about 30 % of
// days a PV asset's export (and its PV export) is curtailed by 30-70 %
// for one to three hours from between 10:00 and 11:00 UTC (the solar
// peak), and on about 10 % of days any asset has one episode of 15 to
// 120 minutes curtailing export or import by 20-60 %. Draws depend on
// seed, asset and UTC day only.
func Curtailment(seed uint64, assetID string, pv bool, t time.Time) simulator.GridSignals {
	return curtailment(seed^detrand.Hash(assetID), pv, t)
}

// curtailment is Curtailment for the asset key seed^detrand.Hash(assetID),
// which Advance keeps per asset rather than hashing every second.
func curtailment(assetKey uint64, pv bool, t time.Time) simulator.GridSignals {
	day := t.Unix() / 86400
	minute := float64(t.Unix()%86400) / 60
	key := detrand.Mix(assetKey, uint64(day))
	var g simulator.GridSignals
	if pv && detrand.Uniform(key, 1) < pvCurtailmentShare {
		from := 600 + math.Floor(detrand.Uniform(key, 2)*60)
		to := from + 60 + math.Floor(detrand.Uniform(key, 3)*120)
		if minute >= from && minute < to {
			pct := 30 + 10*math.Floor(detrand.Uniform(key, 4)*5)
			g.ExportCurtailmentPct, g.PVExportCurtailmentPct = pct, pct
		}
	}
	if detrand.Uniform(key, 5) < otherCurtailmentShare {
		from := math.Floor(detrand.Uniform(key, 6) * 1440)
		to := from + 15 + math.Floor(detrand.Uniform(key, 7)*106)
		if minute >= from && minute < to {
			pct := 20 + 10*math.Floor(detrand.Uniform(key, 8)*5)
			if detrand.Uniform(key, 9) < 0.5 {
				g.ImportCurtailmentPct = pct
			} else {
				g.ExportCurtailmentPct = math.Max(g.ExportCurtailmentPct, pct)
			}
		}
	}
	return g
}
