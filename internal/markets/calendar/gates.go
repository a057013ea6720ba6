package calendar

import "time"

// Window is when bids for a delivery day may be placed: from Opens until
// the enforced gate Closes (exclusive). Between Recommended and Closes a
// bid is accepted but not guaranteed to reach the market in time.
type Window struct {
	Opens       time.Time `json:"opens_at"`
	Recommended time.Time `json:"recommended_deadline"`
	Closes      time.Time `json:"gate_closure"`
}

// Open reports whether bids may be placed, changed or deleted at now.
func (w Window) Open(now time.Time) bool { return !now.Before(w.Opens) && now.Before(w.Closes) }

// Late reports whether now is past the recommended deadline but before
// the gate.
func (w Window) Late(now time.Time) bool { return !now.Before(w.Recommended) && now.Before(w.Closes) }

// FCRWindow is the FCR bidding window for delivery day d (document 1,
// Limits): opens 11:00 local time at D-7, recommended deadline D-1 07:30,
// enforced gate D-1 08:00. The documents write "CET" for the deadlines; the
// auction runs at German local time all year, so CEST applies in summer.
func FCRWindow(d Day) Window {
	return Window{Opens: d.AddDays(-7).Local(11, 0), Recommended: d.AddDays(-1).Local(7, 30), Closes: d.AddDays(-1).Local(8, 0)}
}

// AFRRCapacityWindow is the aFRR capacity bidding window for delivery day
// d: opens 10:00 local time at D-7, recommended deadline D-1 08:30,
// enforced gate D-1 09:00.
func AFRRCapacityWindow(d Day) Window {
	return Window{Opens: d.AddDays(-7).Local(10, 0), Recommended: d.AddDays(-1).Local(8, 30), Closes: d.AddDays(-1).Local(9, 0)}
}

// EnergyBidLeadTime is how long before its delivery period an aFRR energy
// bid closes.
const EnergyBidLeadTime = 25 * time.Minute

// AFRREnergyWindow is the aFRR energy bidding window of one delivery
// period: it opens at D-1 10:00 local time, after the capacity auction of
// day D has cleared (its gate is 09:00), so that holders of a capacity
// award can cover each quarter-hour; it closes 25 minutes before the
// period starts.
func AFRREnergyWindow(period Interval) Window {
	d := DayOf(period.Start)
	closes := period.Start.Add(-EnergyBidLeadTime)
	return Window{Opens: d.AddDays(-1).Local(10, 0), Recommended: closes, Closes: closes}
}

// BackupMarketLeadTime is how long before a 15-minute block backup-market
// overrides and defaults stop changing for it.
const BackupMarketLeadTime = 10 * time.Second

// BackupMarketGate is the last instant (exclusive) at which the backup
// market configuration of the block starting at blockStart may change.
func BackupMarketGate(blockStart time.Time) time.Time { return blockStart.Add(-BackupMarketLeadTime) }
