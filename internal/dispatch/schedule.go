package dispatch

import (
	"fmt"
	"math"
	"slices"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/telemetry"
)

const (
	// Block is a delivery block: 15 minutes aligned to UTC quarter-hours
	// (document 1, rule 4).
	Block = 15 * time.Minute
	// GateLead: a target in a block starting in under 6 minutes is
	// refused (document 1, Limits).
	GateLead = 6 * time.Minute
	// MaxReportWindow bounds the schedule dispatch report's window.
	MaxReportWindow = time.Hour
	// MaxAnticipation bounds seconds_into_the_future (86,400 s).
	MaxAnticipation = 24 * time.Hour
)

// BlockOf returns the start of the delivery block containing t.
func BlockOf(t time.Time) time.Time { return t.UTC().Truncate(Block) }

// HorizonEnd is the end of the next UTC day after now: targets must lie
// before it.
func HorizonEnd(now time.Time) time.Time {
	return now.UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
}

// Target is one scheduled-dispatch target as submitted.
type Target struct {
	ControlMode  string   // empty means bess_only
	BESSPowerMW  *float64 // battery target
	PowerMW      *float64 // deprecated alias of BESSPowerMW
	PoCPowerMW   *float64 // point-of-connection target
	PVPowerMW    *float64 // reserved: must be nil
	DeliveryTime time.Time
}

// Schedule is a validated scheduled-dispatch request: the events to
// store, the delivery blocks [From, To) they replace in full, and the
// warnings of the request.
type Schedule struct {
	From, To time.Time
	Events   []Event
	Warnings []string
}

// Colocated reports whether a has a co-located producer (bess_and_poc and
// poc_only need one).
func Colocated(a assets.Asset) bool {
	return a.Type == assets.GreenColocation || a.Type == assets.GreyColocation
}

// GreenColocated reports whether grid import is not permitted at a's
// connection: green co-location, or grid_import_allowed false.
func GreenColocated(a assets.Asset) bool {
	return a.Type == assets.GreenColocation || !a.GridImportPermitted()
}

func zeroOrNil(p *float64) bool { return p == nil || *p == 0 }

// PlanSchedule validates targets against asset a at now and expands them
// into stored events. The whole request is refused when any target fails:
// 422 for field errors (setpoint matrix, co-location, sanity bound,
// horizon, two targets in the same second), then 409 gate_closed when a
// target lands in a block starting in under GateLead (past blocks
// included).
//
// Storage: targets are sorted by their second; each spans until the next
// target, the last until the end of its block. Every block from the first
// target's to the last target's is replaced in full. A span crossing a
// block start stores a carried-over event there with the same values,
// since at a block start without an event the power resets to 0 MW.
func PlanSchedule(targets []Target, a assets.Asset, now time.Time) (Schedule, error) {
	var v errs.Validation
	if len(targets) == 0 {
		v.Add("body.schedules", "at least one target is required", nil)
		return Schedule{}, v.Err()
	}
	now = now.UTC()
	horizon := HorizonEnd(now)
	events := make([]Event, len(targets))
	var sch Schedule
	aliasUsed := false
	var overCapacity []string
	for i, t := range targets {
		loc := func(field string) string { return fmt.Sprintf("body.schedules[%d].%s", i, field) }
		mode := telemetry.ControlMode(t.ControlMode)
		if mode == "" {
			mode = telemetry.BESSOnly
		}
		bess := t.BESSPowerMW
		if t.PowerMW != nil {
			aliasUsed = true
			if bess != nil && *bess != *t.PowerMW {
				v.Add(loc("power_mw"), "deprecated alias of bess_power_mw; both given with different values", *t.PowerMW)
			}
			if bess == nil {
				bess = t.PowerMW
			}
		}
		poc := t.PoCPowerMW
		if t.PVPowerMW != nil {
			v.Add(loc("pv_power_mw"), "reserved: must be null", *t.PVPowerMW)
		}
		for field, p := range map[string]*float64{"bess_power_mw": bess, "poc_power_mw": poc} {
			if p != nil && (math.IsNaN(*p) || math.IsInf(*p, 0)) {
				v.Add(loc(field), "must be a finite number", nil)
				return Schedule{}, v.Err()
			}
		}
		switch mode {
		case telemetry.Passive:
			if !zeroOrNil(bess) {
				v.Add(loc("bess_power_mw"), "must be null or 0 in passive", *bess)
			}
			if !zeroOrNil(poc) {
				v.Add(loc("poc_power_mw"), "must be null or 0 in passive", *poc)
			}
			bess, poc = nil, nil
		case telemetry.BESSOnly:
			if bess == nil {
				v.Add(loc("bess_power_mw"), "required by bess_only", nil)
			}
			if !zeroOrNil(poc) {
				v.Add(loc("poc_power_mw"), "must be null or 0 in bess_only", *poc)
			}
			poc = nil
		case telemetry.BESSAndPoC:
			if bess == nil {
				v.Add(loc("bess_power_mw"), "required by bess_and_poc", nil)
			}
			if poc == nil {
				v.Add(loc("poc_power_mw"), "required by bess_and_poc", nil)
			}
			if bess != nil && poc != nil && *bess > *poc {
				v.Add(loc("bess_power_mw"), fmt.Sprintf("may not exceed poc_power_mw (%g) in bess_and_poc", *poc), *bess)
			}
		case telemetry.PoCOnly:
			if !zeroOrNil(bess) {
				v.Add(loc("bess_power_mw"), "must be null or 0 in poc_only", *bess)
			}
			if poc == nil {
				v.Add(loc("poc_power_mw"), "required by poc_only", nil)
			}
			bess = nil
		default:
			v.Add(loc("control_mode"), "must be one of passive, bess_only, bess_and_poc, poc_only", t.ControlMode)
		}
		if (mode == telemetry.BESSAndPoC || mode == telemetry.PoCOnly) && !Colocated(a) {
			v.Add(loc("control_mode"), string(mode)+" requires a co-located asset (green_colocation or grey_colocation)", string(mode))
		}
		if GreenColocated(a) {
			if poc != nil && *poc < 0 {
				v.Add(loc("poc_power_mw"), "must be at least 0: grid import is not permitted at this asset", *poc)
			}
			if mode == telemetry.BESSOnly && bess != nil && *bess < 0 {
				v.Add(loc("bess_power_mw"), "a charging bess_only target is rejected where grid import is not permitted; charge with bess_and_poc and poc_power_mw 0", *bess)
			}
		}
		if c := a.UsablePowerCapacityMW; c != nil {
			for field, p := range map[string]*float64{"bess_power_mw": bess, "poc_power_mw": poc} {
				if p != nil && math.Abs(*p) > 2**c {
					v.Add(loc(field), fmt.Sprintf("magnitude above twice the usable power capacity (%g MW)", *c), *p)
				}
			}
			// Inside the sanity bound a target is accepted (document 2),
			// strict_validation or not; the battery still delivers at most
			// its capacity, which the answer says at once.
			if bess != nil && math.Abs(*bess) > *c && math.Abs(*bess) <= 2**c {
				overCapacity = append(overCapacity, fmt.Sprintf(
					"schedules[%d]: bess_power_mw %g exceeds the usable power capacity of %g MW: the battery delivers at most that", i, *bess, *c))
			}
		}
		at := t.DeliveryTime.UTC().Truncate(time.Second)
		if t.DeliveryTime.IsZero() {
			v.Add(loc("delivery_time"), "required", nil)
		} else if !at.Before(horizon) {
			v.Add(loc("delivery_time"), "beyond the end of the next UTC day ("+horizon.Format(time.RFC3339)+")", t.DeliveryTime.UTC())
		}
		events[i] = Event{OrganizationID: a.OrganizationID, AssetID: a.ID, ControlMode: mode, BESSPowerMW: bess, PoCPowerMW: poc,
			SetTime: at, DeliveryTime: BlockOf(at), CreatedAt: now.Truncate(time.Microsecond)}
	}
	order := make([]int, len(events))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return events[x].SetTime.Compare(events[y].SetTime) })
	for k := 1; k < len(order); k++ {
		if prev, cur := order[k-1], order[k]; events[prev].SetTime.Equal(events[cur].SetTime) && !targets[cur].DeliveryTime.IsZero() {
			v.Add(fmt.Sprintf("body.schedules[%d].delivery_time", cur),
				fmt.Sprintf("overlaps schedules[%d] within the same second", prev), targets[cur].DeliveryTime.UTC())
		}
	}
	if err := v.Err(); err != nil {
		return Schedule{}, err
	}
	for _, i := range order {
		if block := events[i].DeliveryTime; block.Sub(now) < GateLead {
			return Schedule{}, errs.Conflictf(CodeGateClosed,
				"schedules[%d] lands in the block starting %s: targets must lie in blocks starting at least 6 minutes from now",
				i, block.Format(time.RFC3339))
		}
	}
	sorted := make([]Event, 0, len(events))
	for k, i := range order {
		e := events[i]
		next := BlockOf(e.SetTime).Add(Block)
		if k+1 < len(order) {
			next = events[order[k+1]].SetTime
		}
		sorted = append(sorted, e)
		for b := BlockOf(e.SetTime).Add(Block); b.Before(next); b = b.Add(Block) {
			carried := e
			carried.SetTime, carried.DeliveryTime = b, b
			sorted = append(sorted, carried)
		}
	}
	sch.Events = sorted
	sch.From, sch.To = sorted[0].DeliveryTime, sorted[len(sorted)-1].DeliveryTime.Add(Block)
	if aliasUsed {
		sch.Warnings = append(sch.Warnings, "power_mw is deprecated: send bess_power_mw")
	}
	sch.Warnings = append(sch.Warnings, overCapacity...)
	return sch, nil
}

// ScheduleWindow checks a scheduled-dispatch read window: both bounds or
// neither (the current UTC day), on 15-minute marks, start before end,
// reaching back at most History.
func ScheduleWindow(from, to time.Time, now time.Time) (Window, error) {
	now = now.UTC()
	if from.IsZero() != to.IsZero() {
		loc := "query.end_time"
		if from.IsZero() {
			loc = "query.start_time"
		}
		return Window{}, errs.Invalidf(loc, nil, "start_time and end_time are given together or not at all")
	}
	if from.IsZero() {
		day := now.Truncate(24 * time.Hour)
		return Window{From: day, To: day.Add(24 * time.Hour)}, nil
	}
	var v errs.Validation
	if !alignedToBlock(from) {
		v.Add("query.start_time", "must sit on a 15-minute mark", from.UTC())
	}
	if !alignedToBlock(to) {
		v.Add("query.end_time", "must sit on a 15-minute mark", to.UTC())
	}
	if !to.After(from) {
		v.Add("query.end_time", "must be after start_time", to.UTC())
	}
	if oldest := now.Add(-History); from.Before(oldest) {
		v.Add("query.start_time", "reaches back at most 30 days (to "+oldest.Format(time.RFC3339)+")", from.UTC())
	}
	return Window{From: from.UTC(), To: to.UTC()}, v.Err()
}

// ReportWindow checks the schedule dispatch report's window: both bounds
// on 15-minute marks, start before end, at most MaxReportWindow.
func ReportWindow(from, to time.Time) (Window, error) {
	var v errs.Validation
	if !alignedToBlock(from) {
		v.Add("query.start_time", "must sit on a 15-minute mark (UTC)", from.UTC())
	}
	if !alignedToBlock(to) {
		v.Add("query.end_time", "must sit on a 15-minute mark (UTC)", to.UTC())
	}
	if !to.After(from) {
		v.Add("query.end_time", "must be after start_time", to.UTC())
	} else if to.Sub(from) > MaxReportWindow {
		v.Add("query.end_time", "the window is at most 1 hour", to.UTC())
	}
	return Window{From: from.UTC(), To: to.UTC()}, v.Err()
}

func alignedToBlock(t time.Time) bool { return t.Equal(BlockOf(t)) }

// Reported is e as the scheduled-dispatch read reports it (document 2:
// "Currently control_mode is reported as bess_only and poc_power_mw as
// null for all events"). A passive event holds the battery at 0 MW, so it
// reads as a bess_only target of 0 MW, a valid target when sent back,
// rather than bess_only without power; a poc_only event has no battery
// target and keeps bess_power_mw null.
func Reported(e Event) Event {
	if e.ControlMode == telemetry.Passive {
		zero := 0.0
		e.BESSPowerMW = &zero
	}
	e.ControlMode, e.PoCPowerMW = telemetry.BESSOnly, nil
	return e
}

// PowerAt is the scheduled power at t given events of t's block: the
// most recent event at or before t in that block, as its set_time and
// Event.SetPowerMW; with none, the block start and 0 MW (step
// interpolation; the power resets at every block start, and that reset is
// the event in force).
func PowerAt(events []Event, t time.Time) (time.Time, float64) {
	block := BlockOf(t)
	var in *Event
	for i := range events {
		e := &events[i]
		if e.SetTime.Before(block) || e.SetTime.After(t) {
			continue
		}
		if in == nil || e.SetTime.After(in.SetTime) {
			in = e
		}
	}
	if in == nil {
		return block, 0
	}
	return in.SetTime, in.SetPowerMW()
}
