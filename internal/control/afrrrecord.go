package control

import (
	"math"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/reporting/afrrreport"
)

// DispatchEvents takes the aFRR dispatch events of each finished
// quarter-hour (*afrrreport.Writer). Hand must not block: the writer
// stores them on its own goroutine.
type DispatchEvents interface {
	Hand(events []afrrreport.Event)
}

// afrrAcc accumulates one battery's aFRR dispatch in one direction over
// the current quarter-hour, one second at a time: sums, counts and the
// first filter reason.
type afrrAcc struct {
	seconds  int
	filtered int     // seconds the dispatcher sent less than the share
	stale    int     // seconds without a measurement (counted as 0 MW delivered)
	planned  float64 // sums of MW over the seconds
	set      float64
	accepted float64
	covered  float64 // sum of the share of the activation a pool cover moved here (0..1)
	reason   string  // the first filter reason of the quarter-hour
	details  string
	since    time.Time
}

// direction indices of unit.afrr.
const (
	afrrPos = 0
	afrrNeg = 1
)

// recordAFRR adds second t of u's aFRR dispatch: its share planned (signed,
// within the award), what was sent and why less (the loop's decisions),
// and the share of the activation a cover moved to it. It returns the
// direction index, for the measurement that follows.
func (u *unit) recordAFRR(t time.Time, planned, set float64, reason, details string, covered float64) int {
	dir := afrrPos
	if planned < 0 {
		dir = afrrNeg
	}
	a := &u.afrr[dir]
	a.seconds++
	a.planned += planned
	a.set += set
	a.covered += covered
	if reason != "" {
		a.filtered++
		if a.reason == "" {
			a.reason, a.details, a.since = reason, details, t
		}
	}
	return dir
}

// recordAFRR records second t of the battery u's aFRR dispatch: its share
// planned, and what the loop sent of it: nothing when the adapter does not
// reach the asset, its battery control is off or the command was
// refused, otherwise what Decide filtered.
func (l *Loop) recordAFRR(u *unit, t time.Time, planned float64, d Decision, control, connected bool, sendErr error) {
	set, reason, details := 0.0, d.AFRRFilter, d.AFRRDetails
	switch {
	case !connected:
		reason, details = afrrreport.ReasonAdapterOffline, "the adapter does not reach the asset: nothing sent"
	case !control:
		reason, details = afrrreport.ReasonControlDisabled, "battery control is disabled (bess_control_enabled): nothing sent"
	case sendErr != nil:
		reason, details = afrrreport.ReasonSendFailed, "the adapter refused the command: "+sendErr.Error()
	default:
		set = d.AFRRSetMW
	}
	covered := 0.0
	if act := l.inForce.activated[u.asset.ID]; act != 0 {
		covered = math.Max(0, math.Min(1, l.inForce.coveredIn[u.asset.ID]/act))
	}
	u.afrrDir = u.recordAFRR(t, planned, set, reason, details, covered)
}

// measuredAFRR adds what the battery delivered in aFRR in the second
// (ok false: its measurements were not read).
func (u *unit) measuredAFRR(dir int, mw float64, ok bool) {
	if ok {
		u.afrr[dir].accepted += mw
	} else {
		u.afrr[dir].stale++
	}
}

// finishAFRR turns the quarter-hour starting at slot into events, one per
// battery and direction it was asked for aFRR energy in, at end (the
// quarter-hour's end, when the loop records them), and resets the
// accumulation. Awards and capacity prices are those as read for slot
// (before covers: a battery's own).
func (l *Loop) finishAFRR(slot, end time.Time) []afrrreport.Event {
	var out []afrrreport.Event
	var prices map[string][2]*decimal.Decimal
	for _, id := range l.ids {
		u := l.units[id]
		for dir := range u.afrr {
			a := &u.afrr[dir]
			if a.seconds == 0 {
				continue
			}
			if prices == nil {
				prices = capacityPrices(l.awards.capacity, l.physical)
			}
			product := bids.Pos
			if dir == afrrNeg {
				product = bids.Neg
			}
			n := float64(a.seconds)
			zone := ""
			if u.asset.TSO != nil {
				zone = string(*u.asset.TSO)
			}
			activation := afrrreport.ActivationID(zone, product, slot)
			e := afrrreport.Event{
				ID: afrrreport.NewEventID(), OrganizationID: u.asset.OrganizationID, ActivationID: activation,
				RequestID: afrrreport.RequestID(activation, id), AssetID: id, CreatedAt: end, Direction: product,
				PlannedMW: roundMW(a.planned / n), SetMW: roundMW(a.set / n), AcceptedMW: roundMW(a.accepted / n),
				Slot: slot, CapacityPrice: prices[id][dir], Category: afrrreport.EnergyBid,
			}
			awarded := l.awards.afrrPos[id]
			if dir == afrrNeg {
				awarded = l.awards.afrrNeg[id]
			}
			switch {
			case a.covered/n > 0.5:
				e.Category = afrrreport.BackupCover
			case awarded > 0:
				e.Category = afrrreport.CapacityObligation
			}
			e.Outcome = afrrreport.Classify(e.PlannedMW, e.SetMW, e.AcceptedMW)
			switch {
			case a.reason != "":
				e.FilterReason = a.reason
				e.FilterDetails = a.details + "; from " + a.since.UTC().Format(time.RFC3339) + ", " +
					itoa(a.filtered) + " of " + itoa(a.seconds) + " seconds"
			case a.stale > 0:
				e.FilterReason = afrrreport.ReasonTelemetryStale
				e.FilterDetails = "no measurements in " + itoa(a.stale) + " of " + itoa(a.seconds) +
					" seconds (counted as 0 MW delivered)"
			}
			out = append(out, e)
			*a = afrrAcc{}
		}
	}
	return out
}

// capacityPrices are the aFRR capacity awards' prices per battery and
// direction, per MW and hour (the bids' own EUR/MW/h, MW-weighted
// across the battery's awards, four decimals).
func capacityPrices(awards []bids.Bid, physical func(string) string) map[string][2]*decimal.Decimal {
	type sum struct{ mw, money decimal.Decimal }
	sums := map[string]*[2]sum{}
	for _, b := range awards {
		if b.CapacityPrice == nil {
			continue
		}
		mw := b.OfferedMW
		if b.AwardedMW != nil {
			mw = *b.AwardedMW
		}
		id := physical(b.AssetID)
		s := sums[id]
		if s == nil {
			s = &[2]sum{}
			sums[id] = s
		}
		dir := afrrPos
		if b.Product == bids.Neg {
			dir = afrrNeg
		}
		m := decimal.NewFromFloat(mw)
		perHour := decimal.New(int64(*b.CapacityPrice), -2) // aFRR capacity prices are EUR/MW/h (docs/markets.md)
		s[dir].mw, s[dir].money = s[dir].mw.Add(m), s[dir].money.Add(m.Mul(perHour))
	}
	out := make(map[string][2]*decimal.Decimal, len(sums))
	for id, s := range sums {
		var p [2]*decimal.Decimal
		for dir := range s {
			if s[dir].mw.IsPositive() {
				v := s[dir].money.DivRound(s[dir].mw, 4)
				p[dir] = &v
			}
		}
		out[id] = p
	}
	return out
}

func roundMW(mw float64) float64 { return math.Round(mw*1000) / 1000 }

func itoa(n int) string { return strconv.Itoa(n) }

// slotOf is the quarter-hour of second t.
func slotOf(t time.Time) time.Time { return t.Truncate(calendar.PeriodLength) }
