package app

import (
	"context"

	"atcp/internal/assets"
)

// The demonstration environment (contract section 6).
const (
	DemoOrganization = "demo"
	DemoAssetID      = "demo-bess"
)

// seedDemo creates the demonstration organisation, its simulated battery
// and its balancing-group configuration (test EICs) if they do not exist;
// an existing demo asset or configuration is left as the users changed it.
func (a *App) seedDemo(ctx context.Context) error {
	if err := a.Directory.EnsureOrganization(ctx, DemoOrganization, "Demonstration organisation"); err != nil {
		return err
	}
	if err := a.Assets.EnsureAsset(ctx, demoAsset()); err != nil {
		return err
	}
	return a.seedDemoBalancingGroups(ctx)
}

// demoAsset is a standalone battery of 10 MW and 20 MWh in the 50Hertz
// zone, prequalified for negative aFRR only.
func demoAsset() assets.Asset {
	a := assets.NewAsset(DemoAssetID, DemoOrganization, "Demo BESS", "Brandenburg, Germany", assets.Standalone)
	desc := "Simulated battery of the demonstration environment: it replays the market days 2026-02-01 and 2026-02-02."
	country := "DE"
	tso := assets.TSO50Hertz
	integration := assets.FullControl
	a.Description = &desc
	a.Country = &country
	a.TSO = &tso
	a.UsablePowerCapacityMW = new(10.0)
	a.UsableEnergyCapacityMWh = new(20.0)
	a.GridConnectionPowerMW = new(10.0)
	a.ChargeEfficiency = new(0.95)
	a.DischargeEfficiency = new(0.95)
	a.MaxPosRampRateMWPerSec = new(2.0)
	a.MinNegRampRateMWPerSec = new(2.0)
	a.Latitude = new(52.41)
	a.Longitude = new(13.07)
	a.AFRRPrequalifiedNegMW = 10
	a.AFRRPrequalifiedPosMW = 0
	a.FCRPrequalifiedMW = 0
	a.AFRREnabled = true
	a.ControlEnabled = true
	a.IntegrationType = &integration
	a.OperationalStatus = assets.Live
	return a
}
