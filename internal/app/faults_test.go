package app_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"atcp/internal/app"
)

// faultClockSpeed runs the platform clock at 20 platform seconds a real
// second: the state's staleness bound is 5 real seconds whatever the speed.
const faultClockSpeed = 20

// TestSimulatorFaultsOnTheRunningServer: a communication loss injected
// through the API stops demo-bess's measurements, so that its state goes
// stale (asset_status 0), and clearing it brings the battery back; under
// an immediate dispatch, an injected setpoint_ignored holds the battery's
// power while the setpoint moves, until it is cleared.
func TestSimulatorFaultsOnTheRunningServer(t *testing.T) {
	for name, dbURL := range databases(t) {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, dbURL(t), t.TempDir())
			cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
			cfg.ClockSpeed = faultClockSpeed
			a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			base := serve(t, a)
			c := apiClient{t: t, base: base, token: fetchToken(t, base)}
			const faults = "/v1/assets/demo-bess/simulator/faults"
			type fault struct {
				FaultID string `json:"fault_id"`
			}
			eventually(t, 15*time.Second, "demo-bess reports", func() bool {
				st := c.state("demo-bess")
				return st.reported && st.status == 1
			})

			var lost fault
			c.do(http.MethodPost, faults, `{"kind":"communication_loss","duration_seconds":3600}`, http.StatusCreated, &lost)
			eventually(t, 20*time.Second, "demo-bess's state goes stale", func() bool { return c.state("demo-bess").status == 0 })
			frozen := c.state("demo-bess").at
			if age := a.Clock.Now().Sub(frozen); age < 5*faultClockSpeed*time.Second {
				t.Fatalf("asset_status 0 with measurements %v old", age)
			}
			var list struct {
				Faults []fault `json:"faults"`
			}
			c.do(http.MethodGet, faults, "", http.StatusOK, &list)
			if len(list.Faults) != 1 || list.Faults[0] != lost {
				t.Fatalf("faults in force %+v", list)
			}
			c.do(http.MethodDelete, faults+"/"+lost.FaultID, "", http.StatusNoContent, nil)
			eventually(t, 15*time.Second, "demo-bess reports again", func() bool {
				st := c.state("demo-bess")
				return st.status == 1 && st.at.After(frozen)
			})

			immediate := func(mw float64) {
				c.do(http.MethodPost, "/v1/assets/demo-bess/dispatch/immediate", fmt.Sprintf(`{"end_time":%q,"set_power_mw":%g}`,
					a.Clock.Now().Add(time.Hour).Format(time.RFC3339), mw), http.StatusOK, nil)
			}
			immediate(5)
			eventually(t, 15*time.Second, "demo-bess discharges 5 MW", func() bool {
				st := c.state("demo-bess")
				return st.setpoint == 5 && st.power == 5
			})
			var stuck fault
			c.do(http.MethodPost, faults, `{"kind":"setpoint_ignored","duration_seconds":3600}`, http.StatusCreated, &stuck)
			immediate(-3)
			eventually(t, 15*time.Second, "the new setpoint reaches demo-bess", func() bool { return c.state("demo-bess").setpoint == -3 })
			// The fault may have come a second after the setpoint (one ramp
			// step of 2 MW): from then on the power holds.
			held := c.state("demo-bess")
			time.Sleep(time.Second)
			if st := c.state("demo-bess"); !st.at.After(held.at) || st.power != held.power || held.power < 3 || st.setpoint != -3 {
				t.Fatalf("under setpoint_ignored: %+v, a second before %+v", st, held)
			}
			c.do(http.MethodDelete, faults+"/"+stuck.FaultID, "", http.StatusNoContent, nil)
			eventually(t, 15*time.Second, "demo-bess follows the setpoint again", func() bool { return c.state("demo-bess").power == -3 })
		})
	}
}
