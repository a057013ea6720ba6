package control

import (
	"context"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/markets/bids"
	"atcp/internal/portfolio"
	"atcp/internal/reporting/afrrreport"
	"atcp/internal/restrictions"
	"atcp/internal/telemetry"
)

// TestFilterAFRR: what the dispatcher sends of an aFRR share and why
// less, from the restrictions and the measured energy.
func TestFilterAFRR(t *testing.T) {
	cases := []struct {
		name   string
		in     Inputs
		share  float64
		mw     float64
		reason string
	}{
		{"nothing asked", Inputs{}, 0, 0, ""},
		{"sent in full", Inputs{EnergyKnown: true, AvailableChargeMWh: 5, AvailableDischargeMWh: 5}, -4, -4, ""},
		{"unavailable", Inputs{Unavailable: true}, -4, 0, afrrreport.ReasonUnavailable},
		{"fully restricted", Inputs{FullyRestricted: true}, 4, 0, afrrreport.ReasonUnavailable},
		{"full battery cannot charge", Inputs{EnergyKnown: true, AvailableChargeMWh: 0, AvailableDischargeMWh: 5}, -4, 0, afrrreport.ReasonStateOfCharge},
		{"empty battery may charge", Inputs{EnergyKnown: true, AvailableChargeMWh: 5, AvailableDischargeMWh: 0}, -4, -4, ""},
		{"at an energy limit", Inputs{EnergyKnown: true, AvailableDischargeMWh: 0, MinEnergyMWh: f(4)}, 4, 0, afrrreport.ReasonEnergyLimited},
		{"capped by the lower power bound", Inputs{MinPowerMW: f(-3)}, -4, -3, afrrreport.ReasonPowerLimited},
		{"a power limit on the other side", Inputs{MaxPowerMW: f(1)}, -4, -4, ""},
		{"capped by the upper power bound", Inputs{MaxPowerMW: f(2.5)}, 4, 2.5, afrrreport.ReasonPowerLimited},
		{"an upper bound below zero sends nothing up", Inputs{MaxPowerMW: f(-1)}, 4, 0, afrrreport.ReasonPowerLimited},
		{"unknown energy filters nothing", Inputs{}, 4, 4, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mw, reason, details := FilterAFRR(c.in, c.share)
			if mw != c.mw || reason != c.reason || (reason != "") != (details != "") {
				t.Fatalf("got %v %q %q", mw, reason, details)
			}
		})
	}
	// Decide carries the filtered setpoint in the command; an immediate
	// dispatch sends none and says so.
	d := Decide(Inputs{RatedMW: 10, AFRRReservedNegMW: 10, AFRRSetpointMW: -5, MinPowerMW: f(-3)})
	if d.Command.AFRRSetpointMW != -3 || d.AFRRSetMW != -3 || d.AFRRFilter != afrrreport.ReasonPowerLimited {
		t.Fatalf("decided %+v", d)
	}
	d = Decide(Inputs{RatedMW: 10, AFRRReservedNegMW: 10, AFRRSetpointMW: -5, Immediate: f(2)})
	if d.Command.AFRRSetpointMW != 0 || d.AFRRSetMW != 0 || d.AFRRFilter != afrrreport.ReasonImmediateDispatch {
		t.Fatalf("under an immediate dispatch %+v", d)
	}
}

// afrrEcho is a fakeAdapter whose batteries deliver share (default 1) of
// the aFRR setpoint they were last sent and always have energy left.
type afrrEcho struct {
	*fakeAdapter
	share map[string]float64
}

func (a afrrEcho) Read(ctx context.Context, id string) (telemetry.Measurements, error) {
	m, err := a.fakeAdapter.Read(ctx, id)
	if err != nil {
		return m, err
	}
	m.AvailableChargeEnergy, m.AvailableDischargeEnergy = 10, 10
	if c := a.sent(id); len(c) > 0 {
		share, ok := a.share[id]
		if !ok {
			share = 1
		}
		m.AFRRPowerActual = c[len(c)-1].AFRRSetpointMW * share
	}
	return m, nil
}

// fixedActivations activates every energy bid in full.
type fixedActivations struct{}

func (fixedActivations) Activated(_ context.Context, _ time.Time, energy []bids.Bid) ([]float64, error) {
	out := make([]float64, len(energy))
	for i, b := range energy {
		out[i] = b.OfferedMW
		if b.Product == bids.Neg {
			out[i] = -b.OfferedMW
		}
	}
	return out, nil
}

type eventSink struct{ handed [][]afrrreport.Event }

func (s *eventSink) Hand(events []afrrreport.Event) { s.handed = append(s.handed, events) }

// TestAFRRDispatchEvents: a quarter-hour of negative aFRR activation of
// 5 MW on batteries each holding a 10 MW award: the events handed at its
// end, one per battery asked, with what was planned, sent and delivered
// and why less (the loop's own decisions).
func TestAFRRDispatchEvents(t *testing.T) {
	ids := []string{"ok", "partial", "limited", "unavailable", "offline", "nocontrol", "coverer"}
	fleet := &fakeFleet{}
	awards := fakeBids{}
	price := bids.EUR(20) // EUR/MW/h, as aFRR capacity is priced
	tso := assets.TSO50Hertz
	for _, id := range ids {
		a := assets.NewAsset(id, "acme", id, "Leipzig", assets.Standalone)
		a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh, a.ControlEnabled, a.TSO = f(10), f(20), id != "nocontrol", &tso
		fleet.list = append(fleet.list, a)
		if id == "coverer" {
			continue // it holds no award of its own: it covers half of unavailable's
		}
		awards[bids.AFRRCapacity] = append(awards[bids.AFRRCapacity], bids.Bid{AssetID: id, Market: bids.AFRRCapacity, Product: bids.Neg,
			Start: t0, End: t0.Add(4 * time.Hour), OfferedMW: 10, AwardedMW: f(10), CapacityPrice: &price, Status: bids.Successful})
		awards[bids.AFRREnergy] = append(awards[bids.AFRREnergy], bids.Bid{ID: id, AssetID: id, Market: bids.AFRREnergy, Product: bids.Neg,
			Start: t0, End: t0.Add(15 * time.Minute), OfferedMW: 5, Status: bids.Submitted})
	}
	ad := afrrEcho{fakeAdapter: newFakeAdapter(), share: map[string]float64{"partial": 0.5}}
	sink := &eventSink{}
	l, err := New(Options{Assets: fleet, Adapters: map[string]Adapter{assets.AdapterSimulator: ad}, Plan: newFakePlan(),
		Restrictions: fakeRestrictions{
			{Kind: restrictions.PowerLimit, AssetID: "limited", Start: t0, Upper: f(3), Lower: f(-3)},
			{Kind: restrictions.Unavailability, AssetID: "unavailable", Start: t0},
		},
		Curtailments: fakeCurtailments{}, Bids: awards, Activations: fixedActivations{},
		Covers: fakeCovers{{Assignment: portfolio.Assignment{Product: portfolio.AFRRNeg, Failing: "unavailable", Covering: "coverer",
			MW: 5, ObligationMW: 10}}},
		Recorder: newFakeRecorder(), Latest: newFakeRecorder(), AFRREvents: sink})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for due := t0; !due.After(t0.Add(15 * time.Minute)); due = due.Add(5 * time.Minute) {
		if due.Equal(t0.Add(10 * time.Minute)) {
			ad.mu.Lock()
			ad.offline["offline"] = true
			ad.mu.Unlock()
		}
		if err := l.Run(ctx, due); err != nil {
			t.Fatal(err)
		}
	}
	if len(sink.handed) != 1 {
		t.Fatalf("%d hand-overs", len(sink.handed))
	}
	got := map[string]afrrreport.Event{}
	for _, e := range sink.handed[0] {
		got[e.AssetID] = e
	}
	if len(got) != len(ids) {
		t.Fatalf("events of %d batteries: %+v", len(got), sink.handed[0])
	}
	activation := afrrreport.ActivationID("50HZ", bids.Neg, t0)
	for id, e := range got {
		if e.Slot != t0 || !e.CreatedAt.Equal(t0.Add(15*time.Minute)) || e.Direction != bids.Neg || e.ActivationID != activation ||
			e.RequestID != afrrreport.RequestID(activation, id) || e.OrganizationID != "acme" || e.ID == "" {
			t.Errorf("%s: identity %+v", id, e)
		}
	}
	check := func(id string, planned, set, accepted float64, outcome afrrreport.Outcome, reason string, category afrrreport.Category) {
		t.Helper()
		e := got[id]
		if e.PlannedMW != planned || e.SetMW != set || e.AcceptedMW != accepted || e.Outcome != outcome || e.FilterReason != reason ||
			e.Category != category {
			t.Errorf("%s: %+v", id, e)
		}
		if reason != "" && !strings.Contains(e.FilterDetails, "seconds") {
			t.Errorf("%s: details %q", id, e.FilterDetails)
		}
		if category == afrrreport.CapacityObligation && (e.CapacityPrice == nil || e.CapacityPrice.String() != "20") {
			t.Errorf("%s: capacity price %v", id, e.CapacityPrice)
		}
	}
	check("ok", -5, -5, -5, afrrreport.Delivered, "", afrrreport.CapacityObligation)
	check("partial", -5, -5, -2.5, afrrreport.Partial, "", afrrreport.CapacityObligation)
	check("limited", -5, -3, -3, afrrreport.Delivered, afrrreport.ReasonPowerLimited, afrrreport.CapacityObligation)
	// Half of its activation moved to the coverer; the rest it was asked
	// for and skipped.
	check("unavailable", -2.5, 0, 0, afrrreport.Skipped, afrrreport.ReasonUnavailable, afrrreport.CapacityObligation)
	check("coverer", -2.5, -2.5, -2.5, afrrreport.Delivered, "", afrrreport.BackupCover)
	check("nocontrol", -5, 0, 0, afrrreport.Skipped, afrrreport.ReasonControlDisabled, afrrreport.CapacityObligation)
	// Sent for 5 of 15 minutes, then offline: it delivered what it was
	// sent, and the filter says it was skipped for the rest.
	if e := got["offline"]; e.FilterReason != afrrreport.ReasonAdapterOffline || e.Outcome != afrrreport.Delivered ||
		e.SetMW > -1.5 || e.SetMW < -2.2 || !strings.Contains(e.FilterDetails, t0.Add(5*time.Minute+time.Second).Format(time.RFC3339)) {
		t.Errorf("offline: %+v", e)
	}
	if e := got["coverer"]; e.CapacityPrice != nil {
		t.Errorf("the coverer holds no award: %+v", e.CapacityPrice)
	}
}
