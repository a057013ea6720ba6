package simulated

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/control"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/replay"
	"atcp/internal/telemetry"
)

var (
	_ control.Adapter     = (*Adapter)(nil)
	_ control.Activations = Activations{}
)

var start = time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC)

func battery10(id string) assets.Asset {
	ten, twenty := 10.0, 20.0
	a := assets.NewAsset(id, "acme", id, "Leipzig", assets.Standalone)
	a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh, a.UpdatedAt = &ten, &twenty, start
	return a
}

func TestAdapterSteersAndAdvances(t *testing.T) {
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ad := New(data, 3, nil)
	if ad.Connected("bess-1") {
		t.Fatal("connected before attach")
	}
	if err := ad.Attach(ctx, battery10("bess-1"), nil, start); err != nil {
		t.Fatal(err)
	}
	if !ad.Connected("bess-1") {
		t.Fatal("not connected after attach")
	}
	if err := ad.Send(ctx, "bess-1", telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: 5}, start); err != nil {
		t.Fatal(err)
	}
	if err := ad.Send(ctx, "bess-1", telemetry.Command{ControlMode: "turbo"}, start); !errs.Is(err, errs.Invalid) {
		t.Fatalf("invalid command: %v", err)
	}
	at := start.Add(10 * time.Second)
	for s := start.Add(time.Second); !s.After(at); s = s.Add(time.Second) {
		if err := ad.Advance(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ad.Read(ctx, "bess-1")
	if err != nil {
		t.Fatal(err)
	}
	if !m.Timestamp.Equal(at) || m.DispatchSetpoint != 5 || m.Frequency != FrequencySeries(data, 3, start)[10] {
		t.Fatalf("measured %v: setpoint %v, frequency %v", m.Timestamp, m.DispatchSetpoint, m.Frequency)
	}
	soc := m.AvailableDischargeEnergy

	// A changed registration keeps the battery's state.
	changed := battery10("bess-1")
	six := 6.0
	changed.UsablePowerCapacityMW = &six
	if err := ad.Attach(ctx, changed, nil, at); err != nil {
		t.Fatal(err)
	}
	if m, _ := ad.Read(ctx, "bess-1"); m.AvailableDischargeEnergy != soc || m.AvailablePowerDischarge != 6 {
		t.Fatalf("after the change: energy %v (was %v), power %v", m.AvailableDischargeEnergy, soc, m.AvailablePowerDischarge)
	}
	// Measurements resume it, attached or not.
	last := m
	last.AvailableDischargeEnergy, last.AvailableChargeEnergy = 4, 16
	if err := ad.Attach(ctx, changed, &last, at); err != nil {
		t.Fatal(err)
	}
	if m, _ := ad.Read(ctx, "bess-1"); m.AvailableDischargeEnergy != 4 {
		t.Fatalf("not resumed: %v", m.AvailableDischargeEnergy)
	}
	if err := ad.Attach(ctx, battery10("bess-2"), &last, at); err != nil {
		t.Fatal(err)
	}
	if m, _ := ad.Read(ctx, "bess-2"); m.AvailableDischargeEnergy != 4 || !m.Timestamp.Equal(at) {
		t.Fatalf("new battery not resumed: %v at %v", m.AvailableDischargeEnergy, m.Timestamp)
	}
	// Unusable measurements leave a new asset unattached.
	bad := last
	bad.BatteryPowerActualAC = math.NaN()
	if err := ad.Attach(ctx, battery10("bess-3"), &bad, at); !errs.Is(err, errs.Invalid) || ad.Connected("bess-3") {
		t.Fatalf("resumed from NaN: %v", err)
	}

	if err := ad.Detach(ctx, "bess-1"); err != nil {
		t.Fatal(err)
	}
	if ad.Connected("bess-1") {
		t.Fatal("connected after detach")
	}
	if _, err := ad.Read(ctx, "bess-1"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("read after detach: %v", err)
	}
	if err := ad.Detach(ctx, "bess-1"); err != nil {
		t.Fatalf("second detach: %v", err)
	}
}

func TestAdvanceAppliesTheCurtailmentModel(t *testing.T) {
	ctx := context.Background()
	// A seed and minute at which pv-1 is curtailed.
	day := start.Truncate(24 * time.Hour)
	var seed uint64
	var at time.Time
	for s := uint64(1); s < 100 && at.IsZero(); s++ {
		for m := 0; m < 1440; m++ {
			if g := Curtailment(s, "pv-1", true, day.Add(time.Duration(m)*time.Minute)); g.ExportCurtailmentPct > 0 {
				seed, at = s, day.Add(time.Duration(m)*time.Minute)
				break
			}
		}
	}
	if at.IsZero() {
		t.Fatal("no curtailment found")
	}
	ad := New(nil, seed, nil)
	pv := battery10("pv-1")
	pv.PVActive = true
	if err := ad.Attach(ctx, pv, nil, at.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := ad.Advance(ctx, at); err != nil {
		t.Fatal(err)
	}
	m, err := ad.Read(ctx, "pv-1")
	if err != nil {
		t.Fatal(err)
	}
	g := Curtailment(seed, "pv-1", true, at)
	if m.ExportCurtailmentDSO != g.ExportCurtailmentPct || m.ImportCurtailmentDSO != g.ImportCurtailmentPct ||
		*m.PVExportCurtailmentDSO != g.PVExportCurtailmentPct {
		t.Fatalf("measured %v/%v/%v, model %+v", m.ExportCurtailmentDSO, m.ImportCurtailmentDSO, *m.PVExportCurtailmentDSO, g)
	}
	if m.Frequency != replay.NominalHz {
		t.Fatalf("frequency without replayed data %v", m.Frequency)
	}
}

func TestActivations(t *testing.T) {
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	// A quarter-hour the replay model activates in both directions.
	var period time.Time
	var clearing replay.QuarterHourClearing
	for p := start.Add(-3 * time.Hour); p.Before(start.Add(12 * time.Hour)); p = p.Add(calendar.PeriodLength) {
		c, err := data.ClearQuarterHour(p)
		if err != nil {
			t.Fatal(err)
		}
		if c.Cleared && c.Pos.ActivatedMW > 10 && c.Neg.ActivatedMW > 10 {
			period, clearing = p, c
			break
		}
	}
	if period.IsZero() {
		t.Fatal("no activation modelled")
	}
	// Cents below the marginal price, whole cents.
	below := func(dir replay.Direction, eur int64) *bids.Price {
		p := bids.Price(clearing.Market(dir).MarginalPrice.Shift(2).IntPart() - eur*100)
		return &p
	}
	bid := func(id string, product bids.Product, price *bids.Price, mw float64) bids.Bid {
		return bids.Bid{ID: id, AssetID: "bess-" + id, Market: bids.AFRREnergy, Product: product, Start: period, End: period.Add(calendar.PeriodLength), EnergyPrice: price, OfferedMW: mw}
	}
	energy := []bids.Bid{
		bid("a", bids.Pos, below(replay.Pos, 100), 5),
		bid("b", bids.Neg, below(replay.Neg, 100), 5),
		bid("c", bids.Pos, below(replay.Pos, 5), 8),  // at the margin, after a
		bid("d", bids.Neg, below(replay.Neg, -1), 5), // beyond the marginal price
	}
	got, err := NewActivations(data).Activated(context.Background(), period, energy)
	if err != nil {
		t.Fatal(err)
	}
	// The market's recorded figure for the same bids: equal, signed.
	in := make([]replay.EnergyBid, len(energy))
	for i, b := range energy {
		dir := replay.Neg
		if b.Product == bids.Pos {
			dir = replay.Pos
		}
		in[i] = replay.EnergyBid{ID: b.ID, Period: b.Interval(), Direction: dir, PowerMW: b.OfferedMW, Price: decimal.New(int64(*b.EnergyPrice), -2)}
	}
	market, err := data.ClearAFRREnergy(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{market[0].ActivatedMW, -market[1].ActivatedMW, market[2].ActivatedMW, -market[3].ActivatedMW}
	if len(got) != 4 || got[0] != 5 || got[1] != -5 || got[2] <= 0 || got[2] >= 8 || got[3] != 0 {
		t.Fatalf("activated %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("control loop %v, market %v", got, want)
		}
	}
	if _, err := NewActivations(data).Activated(context.Background(), period.Add(time.Minute), energy); err == nil {
		t.Fatal("a period not on a quarter-hour activated")
	}
	if _, err := NewActivations(data).Activated(context.Background(), period.Add(calendar.PeriodLength), energy); err == nil {
		t.Fatal("bids of another quarter-hour activated")
	}
}
