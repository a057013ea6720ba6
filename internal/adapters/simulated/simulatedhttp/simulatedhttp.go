// Package simulatedhttp serves fault injection into simulated batteries
// (docs/telemetry.md, "Fault injection").
package simulatedhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/adapters/simulated"
	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/telemetry/simulator"
)

// Fault is an injected fault as returned.
type Fault struct {
	FaultID   string    `json:"fault_id" format:"uuid"`
	AssetID   string    `json:"asset_id"`
	Kind      string    `json:"kind" enum:"communication_loss,grid_switch_open,soc_drift,setpoint_ignored,afrr_underdelivery"`
	StartTime time.Time `json:"start_time" doc:"When it was injected (platform time)."`
	EndTime   time.Time `json:"end_time" doc:"Exclusive: start_time plus duration_seconds of platform time, unless cleared before."`
	CreatedBy string    `json:"created_by" doc:"The user or integration id of the administrator who injected it."`
}

// FaultList is the body of the list of faults in force.
type FaultList struct {
	Faults []Fault `json:"faults" nullable:"false"`
}

// FaultCreate is the body of an injection.
type FaultCreate struct {
	Kind            string `json:"kind" enum:"communication_loss,grid_switch_open,soc_drift,setpoint_ignored,afrr_underdelivery" doc:"communication_loss: no measurements reach the platform and no commands reach the battery (asset_status 0 once its state is 5 real seconds old). grid_switch_open: grid_switch_status 0, no power at the point of connection, setpoints not followed. soc_drift: the state of charge drifts away from the energy balance, 30 % of the usable capacity an hour toward the nearer end. setpoint_ignored: the battery holds its power whatever it is told. afrr_underdelivery: half the aFRR activation is delivered."`
	DurationSeconds int    `json:"duration_seconds" minimum:"1" maximum:"86400" doc:"Seconds of platform time (at most a day)."`
}

type assetInput struct {
	AssetID string `path:"asset_id"`
}

type createInput struct {
	AssetID string `path:"asset_id"`
	Body    FaultCreate
}

type faultInput struct {
	AssetID string `path:"asset_id"`
	FaultID string `path:"fault_id"`
}

func toFault(f simulated.Fault) Fault {
	return Fault{FaultID: f.ID, AssetID: f.AssetID, Kind: string(f.Kind), StartTime: f.Start, EndTime: f.End, CreatedBy: f.CreatedBy}
}

const rules = " Platform administrators only: any other caller gets 403 platform_admin_required, whatever its scopes. " +
	"409 asset_not_simulated for an asset another adapter steers or when the server runs without the simulator " +
	"(ATCP_SIMULATE=false); 409 virtual_asset for a virtual asset (faults go into its parent)."

// Register adds the fault-injection endpoints to s.
func Register(s *httpapi.Server, svc *simulated.FaultService) {
	tags := []string{s.Tag("Simulator", "Fault injection into the built-in battery simulator, for exercising alarms and "+
		"operators; platform administrators only.")}
	path := "/v1/assets/{asset_id}/simulator/faults"

	httpapi.Register(s, huma.Operation{
		OperationID: "inject-simulator-fault", Method: http.MethodPost, Path: path, Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(exampleCreate), Responses: httpapi.ResponseExample(http.StatusCreated, exampleFault),
		Summary: "Inject a simulator fault",
		Description: "The simulated battery has the fault from now for duration_seconds of platform time; the instance running the " +
			"control loop applies it within a second of platform time. Faults of different kinds combine; an open grid switch " +
			"stops the battery whatever else is injected." + rules,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *createInput) (*httpapi.Output[Fault], error) {
		f, err := svc.Inject(ctx, httpapi.Principal(ctx), in.AssetID, simulator.FaultKind(in.Body.Kind), in.Body.DurationSeconds)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[Fault]{Body: toFault(f)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-simulator-faults", Method: http.MethodGet, Path: path, Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:     "List the simulator faults in force",
		Description: "The asset's faults in force now (neither ended nor cleared), ordered by start_time." + rules,
		Errors:      []int{http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, in *assetInput) (*httpapi.Output[FaultList], error) {
		list, err := svc.Active(ctx, httpapi.Principal(ctx), in.AssetID)
		if err != nil {
			return nil, err
		}
		out := FaultList{Faults: make([]Fault, len(list))}
		for i, f := range list {
			out.Faults[i] = toFault(f)
		}
		return &httpapi.Output[FaultList]{Body: out}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "clear-simulator-fault", Method: http.MethodDelete, Path: path + "/{fault_id}", Tags: tags,
		DefaultStatus: http.StatusNoContent,
		Summary:       "Clear a simulator fault",
		Description: "Ends the fault now; the battery behaves normally again from the next second (a drifted state of charge " +
			"stays where it drifted to). 404 for a fault that is not in force (unknown, ended or cleared)." + rules,
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *faultInput) (*struct{}, error) {
		return nil, svc.Clear(ctx, httpapi.Principal(ctx), in.AssetID, in.FaultID)
	})
}
