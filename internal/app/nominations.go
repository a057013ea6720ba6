package app

import (
	"context"

	"atcp/internal/assets"
	"atcp/internal/reporting/nomination"
	"atcp/internal/reporting/nomination/nominationhttp"
	"atcp/internal/worker"
)

// nominationJobs build and exchange the balancing-group nominations of
// completed days; the TSOs' data exchange is simulated (docs/reporting.md).
func (a *App) nominationJobs() []worker.Job {
	return nomination.NewJob(a.Store.Nominations(), nomination.Simulated{}, a.Clock).Jobs()
}

// registerNominations adds the balancing-group endpoints.
func (a *App) registerNominations() {
	nominationhttp.Register(a.Server, nomination.NewService(a.Store.Nominations(), a.Store.Directory(), a.Clock))
}

// demoEICNote labels the demonstration EICs.
const demoEICNote = "Test values of the demonstration environment: the control-area EICs are the TSOs' public ones, " +
	"the balancing-group EICs (11XATCP-TEST-...) are invented and registered nowhere."

// demoBalancingGroups are the demonstration organisation's EICs per zone:
// the platform's balancing group (P) and the customer's (D), with valid
// check characters.
var demoBalancingGroups = map[assets.TSO][3]string{ // control area, platform group, customer group
	assets.TSO50Hertz:    {"10YDE-VE-------2", "11XATCP-TEST-P1C", "11XATCP-TEST-D1B"},
	assets.TSOTenneT:     {"10YDE-EON------1", "11XATCP-TEST-P2A", "11XATCP-TEST-D29"},
	assets.TSOAmprion:    {"10YDE-RWENET---I", "11XATCP-TEST-P38", "11XATCP-TEST-D37"},
	assets.TSOTransnetBW: {"10YDE-ENBW-----N", "11XATCP-TEST-P46", "11XATCP-TEST-D45"},
}

// seedDemoBalancingGroups configures the demonstration organisation's
// balancing groups in every zone unless configured already.
func (a *App) seedDemoBalancingGroups(ctx context.Context) error {
	for _, tso := range assets.TSOs {
		e := demoBalancingGroups[tso]
		c := nomination.Config{OrganizationID: DemoOrganization, TSO: tso, ResponsibleOrganizationID: DemoOrganization,
			EICs: nomination.EICs{ControlArea: e[0], SourceControlArea: e[0], TargetControlArea: e[0], SourceBalancingGroup: e[1], TargetBalancingGroup: e[2]},
			Note: demoEICNote, UpdatedAt: a.Clock.Now()}
		if err := c.Validate(); err != nil { // a mistyped check character fails every start, and so the tests
			return err
		}
		if err := a.Store.Nominations().EnsureConfig(ctx, c); err != nil {
			return err
		}
	}
	return nil
}
