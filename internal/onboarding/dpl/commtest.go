package dpl

import (
	"slices"
	"time"
)

// Result is one point's outcome in a communication test.
type Result string

// The results.
const (
	OK         Result = "ok"
	Missing    Result = "missing"      // no value (or no row for a required point)
	Stale      Result = "stale"        // the value is older than MaxAge, or the adapter's snapshot is stale
	OutOfRange Result = "out_of_range" // implausible for the unit
	NotMapped  Result = "not_mapped"   // no telemetry measurement carries the point (custom points, soc)
)

const (
	// MaxAge is how old a reading may be.
	MaxAge = 60 * time.Second
	// powerFactor: a power reading within ±2 × usable_power_capacity_mw
	// is plausible.
	powerFactor = 2
)

// Measurement is one value the adapter read, in the unit of the telemetry
// point table (MW, MWh, Hz, 0/1 flags).
type Measurement struct {
	Value      float64
	MeasuredAt time.Time
}

// Snapshot is what the adapter answered, by measurement name
// (telemetry.PointNames). Unavailable is the adapter's own staleness
// (errs.Unavailable): every mapped point is then stale.
type Snapshot struct {
	Connected   bool
	Unavailable bool
	Values      map[string]Measurement
}

// PointResult is one point of a test.
type PointResult struct {
	PointName string
	Result    Result
	Value     *float64 // the value read, when there was one
	Unit      string   // the template point's unit, "" for a custom point
}

// TestOutcome is a communication test's verdict.
type TestOutcome struct {
	Passed bool
	Points []PointResult
	OK     int // points ok
	Failed int // points missing, stale or out of range
}

// Evaluate judges a communication test: every row read by the platform
// (direction read or read_write) in list order, and every required read
// point of the template without a row (missing). Write-only rows are not
// exercised. A template point whose measurement the telemetry does not
// carry, and a custom point, is not_mapped and neither passes nor fails.
// The test passes when the asset is connected and every required point
// with a measurement is ok. usablePowerMW bounds power readings (nil: no
// bound).
func Evaluate(rows []Row, points []Point, usablePowerMW *float64, snap Snapshot, now time.Time) TestOutcome {
	rows = slices.Clone(rows)
	Order(rows, points)
	var out TestOutcome
	judge := func(name string, p Point, template bool) {
		pr := PointResult{PointName: name, Unit: p.Unit}
		m, ok := snap.Values[p.Measurement]
		switch {
		case !template || p.Measurement == "":
			pr.Result = NotMapped
		case !ok || !snap.Connected:
			pr.Result = Missing
		default:
			v := m.Value
			pr.Value = &v
			switch {
			case snap.Unavailable || now.Sub(m.MeasuredAt) > MaxAge:
				pr.Result = Stale
			case !plausible(v, p.Unit, usablePowerMW):
				pr.Result = OutOfRange
			default:
				pr.Result = OK
			}
		}
		out.Points = append(out.Points, pr)
	}
	for _, r := range rows {
		if !r.Direction.Includes(Read) {
			continue
		}
		p, template := FindPoint(points, r.PointName)
		judge(r.PointName, p, template)
	}
	for _, name := range MissingPoints(rows, points) {
		if p, _ := FindPoint(points, name); p.Direction.Includes(Read) {
			out.Points = append(out.Points, PointResult{PointName: name, Result: Missing, Unit: p.Unit})
		}
	}
	out.Passed = snap.Connected
	for _, pr := range out.Points {
		p, template := FindPoint(points, pr.PointName)
		switch pr.Result {
		case OK:
			out.OK++
		case Missing, Stale, OutOfRange:
			out.Failed++
			if template && p.Required {
				out.Passed = false
			}
		}
	}
	return out
}

// plausible reports whether v is a believable reading in unit.
func plausible(v float64, unit string, usablePowerMW *float64) bool {
	switch unit {
	case "percent":
		return v >= 0 && v <= 100
	case "Hz":
		return v >= 45 && v <= 55
	case "MW":
		return usablePowerMW == nil || (v >= -powerFactor**usablePowerMW && v <= powerFactor**usablePowerMW)
	case "MWh":
		return v >= 0
	case "bool":
		return v == 0 || v == 1
	}
	return true
}
