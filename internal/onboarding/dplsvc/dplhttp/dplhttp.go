// Package dplhttp serves the data-point list (docs/onboarding.md 5.E,
// endpoints 36–47) and the communication tests (5.K, 70–73), on the
// manager side under /v1/onboardings/{onboarding_id} and on the task side
// under /v1/onboarding-tasks/{onboarding_id}.
package dplhttp

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"slices"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/dpl"
	"atcp/internal/onboarding/dplsvc"
	"atcp/internal/onboarding/onboardinghttp"
)

type handler struct {
	ob  *onboarding.Service
	svc *dplsvc.Service
}

// caller is how a request names its onboarding: on the task side with the
// role query and the preview header.
type caller struct {
	task          bool
	role, preview string
}

// TaskParams are the task side's role query and preview header.
type TaskParams struct {
	Role    string `query:"role" doc:"The task role to act as, when the caller holds several."`
	Preview string `header:"X-Onboarding-Preview-Role" doc:"A user views the task as this role (onboarding.read; onboarding.write to change)."`
}

func (p TaskParams) caller() caller { return caller{task: true, role: p.Role, preview: p.Preview} }

var manager = caller{}

// writers are the task roles that change the DPL and run tests: the DPL
// gate's owner and contributor (ems_provider, epc).
var writers = []onboarding.TaskRole{onboarding.RoleEMSProvider, onboarding.RoleEPC}

// read resolves the onboarding a read is about.
func (h handler) read(ctx context.Context, c caller, id string) (onboarding.Onboarding, error) {
	a, err := onboarding.ActorFrom(httpapi.Principal(ctx), c.preview)
	if err != nil {
		return onboarding.Onboarding{}, err
	}
	if !c.task {
		return h.ob.Get(ctx, a, id)
	}
	t, err := h.ob.ResolveTask(ctx, a, id, c.role)
	return t.Onboarding, err
}

// writer resolves the actor of a change; on the task side only the
// writing roles change anything (another role's is 404 task_not_found:
// the write is not among its tasks).
func (h handler) writer(ctx context.Context, c caller, id string) (context.Context, onboarding.Actor, error) {
	ctx = onboarding.WithRequestID(ctx, httpapi.RequestID(ctx))
	a, err := onboarding.ActorFrom(httpapi.Principal(ctx), c.preview)
	if err != nil || !c.task {
		return ctx, a, err
	}
	t, err := h.ob.ResolveTask(ctx, a, id, c.role)
	if err != nil {
		return ctx, a, err
	}
	if !slices.Contains(writers, t.Role) {
		return ctx, a, errs.E(errs.NotFound, onboarding.CodeTaskNotFound, "the %s task does not change the data-point list", t.Role)
	}
	return ctx, t.Actor, nil
}

// IDPath names the onboarding.
type IDPath struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
}

// ListIn is the input of GET …/dpl-rows.
type ListIn struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	Direction    string `query:"direction" enum:"read,write,read_write"`
	Protocol     string `query:"protocol" enum:"iec104,modbus_tcp,opcua,mqtt"`
	Missing      bool   `query:"missing" doc:"Only the missing template points: rows is empty."`
}

// CreateIn is the input of POST …/dpl-rows.
type CreateIn struct {
	OnboardingID string `path:"onboarding_id"`
	Body         DPLRowRequest
}

// UpdateIn is the input of PUT …/dpl-rows/{row_id}.
type UpdateIn struct {
	OnboardingID string `path:"onboarding_id"`
	RowID        string `path:"row_id"`
	IfMatch      string `header:"If-Match" doc:"The row's etag; another is 409 edit_conflict."`
	Body         DPLRowRequest
}

// RowPath names a row.
type RowPath struct {
	OnboardingID string `path:"onboarding_id"`
	RowID        string `path:"row_id"`
}

// ImportIn is the input of POST …/dpl-rows/import.
type ImportIn struct {
	OnboardingID string `path:"onboarding_id"`
	Mode         string `query:"mode" enum:"merge,replace" default:"merge" doc:"merge: rows matched by point_name are replaced, others added; replace: the list becomes the file."`
	ContentType  string `header:"Content-Type" doc:"text/csv; another type is 415."`
	RawBody      []byte `contentType:"text/csv"`
}

type testsIn struct {
	OnboardingID string `path:"onboarding_id"`
	onboardinghttp.Page
}

type testPath struct {
	OnboardingID string `path:"onboarding_id"`
	TestID       string `path:"test_id"`
}

type (
	taskListIn struct {
		ListIn
		TaskParams
	}
	taskCreateIn struct {
		CreateIn
		TaskParams
	}
	taskUpdateIn struct {
		UpdateIn
		TaskParams
	}
	taskRowPath struct {
		RowPath
		TaskParams
	}
	taskImportIn struct {
		ImportIn
		TaskParams
	}
	taskIDPath struct {
		IDPath
		TaskParams
	}
)

type rowOut struct {
	ETag string `header:"ETag" doc:"The row's version for If-Match."`
	Body DPLRow
}

type exportOut struct {
	ContentType        string `header:"Content-Type" doc:"text/csv; charset=utf-8"`
	ContentDisposition string `header:"Content-Disposition" doc:"attachment; filename=\"dpl-<asset_id>.csv\""`
	Body               []byte
}

func (h handler) list(ctx context.Context, c caller, in *ListIn) (*httpapi.Output[DPLRowList], error) {
	ob, err := h.read(ctx, c, in.OnboardingID)
	if err != nil {
		return nil, err
	}
	l, err := h.svc.List(ctx, ob, dplsvc.ListFilter{Direction: dpl.Direction(in.Direction), Protocol: in.Protocol, MissingOnly: in.Missing})
	if err != nil {
		return nil, err
	}
	return &httpapi.Output[DPLRowList]{Body: DPLRowList{Rows: toRows(l.Rows, l.Points), MissingPoints: l.Missing, Total: len(l.Rows)}}, nil
}

func (h handler) create(ctx context.Context, c caller, in *CreateIn) (*rowOut, error) {
	ctx, a, err := h.writer(ctx, c, in.OnboardingID)
	if err != nil {
		return nil, err
	}
	r, err := h.svc.Create(ctx, a, in.OnboardingID, in.Body.row())
	if err != nil {
		return nil, err
	}
	return h.rowOut(ctx, c, in.OnboardingID, r)
}

func (h handler) rowOut(ctx context.Context, c caller, id string, r dplsvc.Row) (*rowOut, error) {
	ob, err := h.read(ctx, c, id)
	if err != nil {
		return nil, err
	}
	out := toRow(r, dplsvc.Points(ob))
	return &rowOut{ETag: out.ETag, Body: out}, nil
}

func (h handler) update(ctx context.Context, c caller, in *UpdateIn) (*rowOut, error) {
	ctx, a, err := h.writer(ctx, c, in.OnboardingID)
	if err != nil {
		return nil, err
	}
	r, err := h.svc.Update(ctx, a, in.OnboardingID, in.RowID, in.Body.row(), in.IfMatch)
	if err != nil {
		return nil, err
	}
	return h.rowOut(ctx, c, in.OnboardingID, r)
}

func (h handler) delete(ctx context.Context, c caller, in *RowPath) (*struct{}, error) {
	ctx, a, err := h.writer(ctx, c, in.OnboardingID)
	if err != nil {
		return nil, err
	}
	return nil, h.svc.Delete(ctx, a, in.OnboardingID, in.RowID)
}

func (h handler) importCSV(ctx context.Context, c caller, in *ImportIn) (*httpapi.Output[DPLImportResult], error) {
	if mt, _, err := mime.ParseMediaType(in.ContentType); err != nil || mt != "text/csv" {
		return nil, httpapi.NewProblem(http.StatusUnsupportedMediaType, "the data-point list is imported as text/csv")
	}
	ctx, a, err := h.writer(ctx, c, in.OnboardingID)
	if err != nil {
		return nil, err
	}
	res, err := h.svc.Import(ctx, a, in.OnboardingID, in.RawBody, dpl.Mode(in.Mode))
	if err != nil {
		return nil, err
	}
	ob, err := h.read(ctx, c, in.OnboardingID)
	if err != nil {
		return nil, err
	}
	return &httpapi.Output[DPLImportResult]{Body: DPLImportResult{Created: res.Created, Updated: res.Updated, Deleted: res.Deleted,
		Rows: toRows(res.Rows, dplsvc.Points(ob))}}, nil
}

func (h handler) export(ctx context.Context, c caller, in *IDPath) (*exportOut, error) {
	ob, err := h.read(ctx, c, in.OnboardingID)
	if err != nil {
		return nil, err
	}
	b, err := h.svc.Export(ctx, ob)
	if err != nil {
		return nil, err
	}
	return &exportOut{ContentType: "text/csv; charset=utf-8", ContentDisposition: `attachment; filename="dpl-` + ob.AssetID + `.csv"`, Body: b}, nil
}

type testOut struct {
	Location string `header:"Location"`
	Body     CommunicationTest
}

func (h handler) run(ctx context.Context, c caller, in *IDPath) (*testOut, error) {
	ctx, a, err := h.writer(ctx, c, in.OnboardingID)
	if err != nil {
		return nil, err
	}
	t, err := h.svc.Run(ctx, a, in.OnboardingID)
	var soon *dplsvc.TooSoon
	if errors.As(err, &soon) {
		p := httpapi.NewProblem(http.StatusTooManyRequests, soon.Error())
		p.Code = dplsvc.CodeTestTooSoon
		p.GetHeaders().Set("Retry-After", strconv.Itoa(soon.Seconds()))
		return nil, p
	}
	if err != nil {
		return nil, err
	}
	return &testOut{Location: "/v1/onboardings/" + in.OnboardingID + "/communication-tests/" + t.ID, Body: ToTest(t)}, nil
}

const (
	notVisible  = " 404 onboarding_not_found when the workflow is unknown or of another organisation."
	taskMissing = " 404 task_not_found when the caller holds no task role on the onboarding."
	writeErrs   = " 409 dpl_point_exists, dpl_address_in_use; 409 gate_locked while the DPL gate is submitted, passed or waived; " +
		"409 onboarding_closed. A change moves the DPL gate pending → in_progress and clears the row's last_test_result."
	testErrs = " 409 asset_not_attached when no configured adapter steers the asset, dpl_empty, test_running (one at a time per " +
		"onboarding), onboarding_closed; 429 test_rate_limited within a minute of the previous test (Retry-After)."
)

// Register adds the DPL and communication-test endpoints to s.
func Register(s *httpapi.Server, ob *onboarding.Service, svc *dplsvc.Service) {
	h := handler{ob: ob, svc: svc}
	tags := []string{s.Tag("Onboarding DPL", "The data-point list of an onboarding and its communication tests (docs/onboarding.md 5.E, 5.K).")}
	read, write := httpapi.Scopes(auth.OnboardingRead), httpapi.Scopes(auth.OnboardingWrite)
	taskRead, taskWrite := httpapi.TaskOr(auth.OnboardingRead), httpapi.TaskOr(auth.OnboardingWrite)
	csvBody := &huma.RequestBody{Required: true, Description: "RFC 4180, UTF-8 (a BOM is accepted), comma, decimal point; the header names the " +
		"columns point_name, description, protocol, address, data_type, unit, scale, offset, direction, notes in any order. At most 2,000 rows " +
		"and 1 MiB (413 above).", Content: map[string]*huma.MediaType{"text/csv": {Schema: &huma.Schema{Type: "string"}, Example: exampleCSV}}}
	csvResponse := map[string]*huma.Response{"200": {Description: "The data-point list as CSV.", Content: map[string]*huma.MediaType{
		"text/csv": {Schema: &huma.Schema{Type: "string", Description: "UTF-8 with byte-order mark, the header row, then template points in " +
			"template order and custom points by name."}, Example: exampleCSV}}}}

	for _, side := range []struct {
		base, opPrefix, who string
		task                bool
	}{
		{"/v1/onboardings/{onboarding_id}", "", "", false},
		{"/v1/onboarding-tasks/{onboarding_id}", "task-", " Task side: ems_provider and epc change, asset_owner and tso read.", true},
	} {
		missing, r, w := notVisible, read, write
		if side.task {
			missing, r, w = taskMissing, taskRead, taskWrite
		}
		rows := side.base + "/dpl-rows"
		op := func(id, method, path, summary, desc string, errors ...int) huma.Operation {
			return huma.Operation{OperationID: side.opPrefix + id, Method: method, Path: path, Tags: tags, Summary: summary,
				Description: desc + side.who + missing, Errors: append(errors, http.StatusNotFound)}
		}
		listOp := op("list-onboarding-dpl-rows", http.MethodGet, rows, "List the data-point list",
			"The rows, filtered by direction and protocol, and the required template points without a row.", http.StatusUnprocessableEntity)
		listOp.Responses = httpapi.ResponseExample(http.StatusOK, js(exampleRowList))
		createOp := op("create-onboarding-dpl-row", http.MethodPost, rows, "Add a DPL row", "Validates the row against the template."+writeErrs,
			http.StatusConflict, http.StatusUnprocessableEntity)
		createOp.DefaultStatus, createOp.RequestBody, createOp.Responses = http.StatusCreated, httpapi.RequestExample(js(exampleRow)), httpapi.ResponseExample(http.StatusCreated, js(exampleRowOut))
		updateOp := op("update-onboarding-dpl-row", http.MethodPut, rows+"/{row_id}", "Replace a DPL row",
			"The whole row; 404 dpl_row_not_found; 409 edit_conflict when If-Match is not the row's etag."+writeErrs, http.StatusConflict, http.StatusUnprocessableEntity)
		updateOp.RequestBody, updateOp.Responses = httpapi.RequestExample(js(exampleRow)), httpapi.ResponseExample(http.StatusOK, js(exampleRowOut))
		deleteOp := op("delete-onboarding-dpl-row", http.MethodDelete, rows+"/{row_id}", "Delete a DPL row",
			"404 dpl_row_not_found; 409 gate_locked, onboarding_closed.", http.StatusConflict)
		deleteOp.DefaultStatus = http.StatusNoContent
		importOp := op("import-onboarding-dpl-rows", http.MethodPost, rows+"/import", "Import the data-point list from CSV",
			"All or nothing: 422 with errors[] at csv.header.<column> or csv.row[N].<column> (N counts the header as 1; at most 100 listed), "+
				"each message starting with its code (invalid_value, unknown_column, missing_column, dpl_point_exists, dpl_address_in_use). "+
				"415 for a Content-Type other than text/csv; 413 above 1 MiB."+writeErrs, http.StatusConflict, http.StatusRequestEntityTooLarge,
			http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity)
		importOp.MaxBodyBytes, importOp.RequestBody, importOp.Responses = dpl.MaxImportBytes, csvBody, httpapi.ResponseExample(http.StatusOK, js(exampleImport))
		exportOp := op("export-onboarding-dpl-rows", http.MethodGet, rows+"/export", "Export the data-point list as CSV",
			"An export imported with mode=replace changes nothing.")
		exportOp.Responses = csvResponse
		runOp := op("run-onboarding-communication-test", http.MethodPost, side.base+"/communication-tests", "Run a communication test",
			"Reads the asset's latest measurements and judges every read row of a template point: present, at most 60 s old, plausible "+
				"for its unit. Passed when the asset is connected and every required point the telemetry carries is ok; sets the rows' "+
				"last_test_result and moves the comm-test gate pending → in_progress."+testErrs, http.StatusConflict, http.StatusTooManyRequests)
		runOp.DefaultStatus, runOp.Responses = http.StatusCreated, httpapi.ResponseExample(http.StatusCreated, js(exampleTest))

		c := manager
		if !side.task {
			httpapi.Register(s, listOp, r, func(ctx context.Context, in *ListIn) (*httpapi.Output[DPLRowList], error) { return h.list(ctx, c, in) })
			httpapi.Register(s, createOp, w, func(ctx context.Context, in *CreateIn) (*rowOut, error) { return h.create(ctx, c, in) })
			httpapi.Register(s, updateOp, w, func(ctx context.Context, in *UpdateIn) (*rowOut, error) { return h.update(ctx, c, in) })
			httpapi.Register(s, deleteOp, w, func(ctx context.Context, in *RowPath) (*struct{}, error) { return h.delete(ctx, c, in) })
			httpapi.Register(s, importOp, w, func(ctx context.Context, in *ImportIn) (*httpapi.Output[DPLImportResult], error) {
				return h.importCSV(ctx, c, in)
			})
			httpapi.Register(s, exportOp, r, func(ctx context.Context, in *IDPath) (*exportOut, error) { return h.export(ctx, c, in) })
			httpapi.Register(s, runOp, w, func(ctx context.Context, in *IDPath) (*testOut, error) { return h.run(ctx, c, in) })
			continue
		}
		httpapi.Register(s, listOp, r, func(ctx context.Context, in *taskListIn) (*httpapi.Output[DPLRowList], error) {
			return h.list(ctx, in.caller(), &in.ListIn)
		})
		httpapi.Register(s, createOp, w, func(ctx context.Context, in *taskCreateIn) (*rowOut, error) {
			return h.create(ctx, in.caller(), &in.CreateIn)
		})
		httpapi.Register(s, updateOp, w, func(ctx context.Context, in *taskUpdateIn) (*rowOut, error) {
			return h.update(ctx, in.caller(), &in.UpdateIn)
		})
		httpapi.Register(s, deleteOp, w, func(ctx context.Context, in *taskRowPath) (*struct{}, error) {
			return h.delete(ctx, in.caller(), &in.RowPath)
		})
		httpapi.Register(s, importOp, w, func(ctx context.Context, in *taskImportIn) (*httpapi.Output[DPLImportResult], error) {
			return h.importCSV(ctx, in.caller(), &in.ImportIn)
		})
		httpapi.Register(s, exportOp, r, func(ctx context.Context, in *taskIDPath) (*exportOut, error) {
			return h.export(ctx, in.caller(), &in.IDPath)
		})
		httpapi.Register(s, runOp, w, func(ctx context.Context, in *taskIDPath) (*testOut, error) {
			return h.run(ctx, in.caller(), &in.IDPath)
		})
	}

	// Huma documents the RawBody's own content type afresh, without the
	// example given above.
	for _, base := range []string{"/v1/onboardings/{onboarding_id}", "/v1/onboarding-tasks/{onboarding_id}"} {
		s.API.OpenAPI().Paths[base+"/dpl-rows/import"].Post.RequestBody.Content["text/csv"] = &huma.MediaType{Schema: &huma.Schema{Type: "string"}, Example: exampleCSV}
	}

	tests := "/v1/onboardings/{onboarding_id}/communication-tests"
	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-communication-tests", Method: http.MethodGet, Path: tests, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, js(exampleTestList)), Summary: "List the communication tests",
		Description: "Newest first." + notVisible, Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, func(ctx context.Context, in *testsIn) (*httpapi.Output[CommunicationTestList], error) {
		ob, err := h.read(ctx, manager, in.OnboardingID)
		if err != nil {
			return nil, err
		}
		ts, total, err := svc.Tests(ctx, ob, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[CommunicationTestList]{Body: CommunicationTestList{CommunicationTests: httpapi.Map(ts, ToTest), Total: total,
			Limit: in.Limit, Offset: in.Offset}}, nil
	})
	httpapi.Register(s, huma.Operation{
		OperationID: "get-onboarding-communication-test", Method: http.MethodGet, Path: tests + "/{test_id}", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, js(exampleTest)), Summary: "Read a communication test",
		Description: "404 communication_test_not_found." + notVisible, Errors: []int{http.StatusNotFound},
	}, read, func(ctx context.Context, in *testPath) (*httpapi.Output[CommunicationTest], error) {
		ob, err := h.read(ctx, manager, in.OnboardingID)
		if err != nil {
			return nil, err
		}
		t, err := svc.Test(ctx, ob, in.TestID)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[CommunicationTest]{Body: ToTest(t)}, nil
	})
}
