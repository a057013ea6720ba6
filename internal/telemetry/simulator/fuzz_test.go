package simulator

import (
	"math"
	"testing"
	"time"

	"atcp/internal/telemetry"
)

// FuzzPhysicsInvariants drives a battery with arbitrary valid commands and
// signals and checks what must always hold: SoC inside its window, power
// inside rated power and the command's limits, balancing inside the
// awards, no NaN anywhere.
func FuzzPhysicsInvariants(f *testing.F) {
	f.Add(5.0, 2.0, 1.0, 1.0, 3.0, 49.9, 20.0, 8.0, -8.0, false, true, 0.9, 500)
	f.Add(-50.0, 0.0, 0.0, 5.0, -9.0, 50.3, 0.0, 100.0, -100.0, true, false, 0.5, 7200)
	f.Fuzz(func(t *testing.T, bessMW, fcr, afrrPos, afrrNeg, afrrSet, hz, curtail, maxMW, minMW float64, unavailable, pv bool, eff float64, seconds int) {
		c := cfg()
		c.PVActive, c.PVPeakMW = pv, 6
		c.ChargeEfficiency, c.DischargeEfficiency = eff, eff
		c.RampUpMWPerSec, c.RampDownMWPerSec = 0.5, 2
		if c.Validate() != nil || !(hz > 0) || math.IsInf(hz, 0) || !(curtail >= 0 && curtail <= 100) {
			t.Skip()
		}
		cmd := telemetry.Command{
			ControlMode: telemetry.BESSOnly, BESSPowerMW: bessMW,
			FCRReservedMW: fcr, AFRRReservedPosMW: afrrPos, AFRRReservedNegMW: afrrNeg, AFRRSetpointMW: afrrSet,
			MaxPowerMW: &maxMW, MinPowerMW: &minMW, Unavailable: unavailable,
		}
		if cmd.Validate() != nil {
			t.Skip()
		}
		seconds = max(1, seconds%10000)
		b := NewBattery(c, 5, start)
		b.SetCommand(cmd)
		b.SetFrequency(hz)
		b.SetGridSignals(GridSignals{ExportCurtailmentPct: curtail, PVExportCurtailmentPct: curtail})
		for range seconds {
			b.Step(time.Second)
			p, soc := b.PowerMW(), b.SoCMWh()
			if math.IsNaN(p) || math.IsNaN(soc) || soc < -1e-9 || soc > c.EnergyCapacityMWh+1e-9 {
				t.Fatalf("soc %v power %v", soc, p)
			}
			if math.Abs(p) > c.PowerCapacityMW+1e-9 || (unavailable && p != 0) {
				t.Fatalf("power %v outside rated or unavailable", p)
			}
			if curtail == 0 && (p > max(maxMW, 0)+1e-9 || p < min(minMW, 0)-1e-9) {
				t.Fatalf("power %v outside limits [%v, %v]", p, minMW, maxMW)
			}
			m := b.Measurements()
			if m.AFRRPowerActual > afrrPos+1e-9 || m.AFRRPowerActual < -afrrNeg-1e-9 || math.Abs(m.FCRPowerActual) > fcr+1e-9 {
				t.Fatalf("balancing outside awards: %+v", m)
			}
		}
	})
}
