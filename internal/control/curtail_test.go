package control

import (
	"testing"

	"atcp/internal/assets"
	"atcp/internal/telemetry"
)

func TestCurtailmentBounds(t *testing.T) {
	u := &unit{}
	a := assets.NewAsset("pv-1", "acme", "pv-1", "Leipzig", assets.Standalone)
	a.UsablePowerCapacityMW, a.PVActive = f(10), true
	u.set(a)
	maxMW, minMW := curtailmentBounds(u.connectionMW(), telemetry.Measurements{ExportCurtailmentDSO: 40})
	if maxMW != 12 || minMW != -20 {
		t.Fatalf("bounds %v %v", maxMW, minMW)
	}
	a.GridConnectionPowerMW = f(8)
	u.set(a)
	maxMW, minMW = curtailmentBounds(u.connectionMW(), telemetry.Measurements{ImportCurtailmentDSO: 50})
	if maxMW != 8 || minMW != -4 {
		t.Fatalf("bounds %v %v", maxMW, minMW)
	}
}
