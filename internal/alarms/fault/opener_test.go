package fault

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"atcp/internal/alarms"
	"atcp/internal/alarms/incident"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
)

type assetMap map[string]assets.Asset

func (m assetMap) Get(_ context.Context, _ auth.Visibility, id string) (assets.Asset, error) {
	if a, ok := m[id]; ok {
		return a, nil
	}
	return assets.Asset{}, errs.NotFoundf("asset %q not found", id)
}

// recordedIncidents hands each opened incident to the test.
type recordedIncidents struct{ opened chan incident.Incident }

func (r recordedIncidents) Open(_ context.Context, inc incident.Incident) error {
	r.opened <- inc
	return nil
}

func (recordedIncidents) Status(context.Context, string) (incident.Status, error) {
	return incident.Status{}, nil
}

// TestOpenerPagesProductionCriticalAssets: an incident opens for a paging
// rule's alarm on a production-critical asset, and for nothing else.
func TestOpenerPagesProductionCriticalAssets(t *testing.T) {
	live := assets.Asset{ID: "live", OperationalStatus: assets.Live, AFRREnabled: true}
	idle := assets.Asset{ID: "idle", OperationalStatus: assets.Live} // no market: not production-critical
	servicing := assets.Asset{ID: "servicing", OperationalStatus: assets.Maintenance, FCREnabled: true}
	inc := recordedIncidents{opened: make(chan incident.Incident, 8)}
	o := NewOpener(assetMap{"live": live, "idle": idle, "servicing": servicing}, inc, slog.New(slog.NewTextHandler(io.Discard, nil)), time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go o.Run(ctx)

	opened := func(asset, rule, alarmID string) alarms.OpenedAlarm {
		r, ok := alarms.RuleByID(rule)
		if !ok {
			t.Fatalf("no rule %s", rule)
		}
		return alarms.OpenedAlarm{Rule: r, Event: alarms.Event{AlarmID: alarmID, Key: alarms.Key{AssetID: asset, RuleID: rule},
			Severity: r.Severity, Message: r.Name + " on " + asset, Evidence: alarms.Evidence{Facts: []string{"fact 1"}}}}
	}
	// Not paged: a rule that does not page, assets that are not
	// production-critical, an unknown asset. Then the one that pages, last:
	// the opener works through its queue in order, so when it arrives
	// every earlier one has been decided.
	for _, a := range []alarms.OpenedAlarm{
		opened("live", alarms.RuleSoC, "soc"),
		opened("idle", alarms.RuleTelemetry, "idle"),
		opened("servicing", alarms.RuleTelemetry, "servicing"),
		opened("gone", alarms.RuleTelemetry, "gone"),
		opened("live", alarms.RuleTelemetry, "paged"),
	} {
		o.Heard(ctx, a)
	}
	select {
	case got := <-inc.opened:
		if got.DedupKey != "paged" || got.Source != "live" || got.Severity != "MAJOR" ||
			got.Summary != "Stale telemetry on live" {
			t.Fatalf("opened %+v", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no incident opened for the paging alarm on a production-critical asset")
	}
	select {
	case got := <-inc.opened:
		t.Fatalf("a second incident: %+v", got)
	default:
	}
}
