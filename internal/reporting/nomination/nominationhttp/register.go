package nominationhttp

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/markets/calendar"
	"atcp/internal/reporting/nomination"
)

// resolve checks the shared parameters: the organisation, then the day.
func resolve(ctx context.Context, svc *nomination.Service, in Scheduled) (string, calendar.Day, error) {
	org, err := svc.Organization(ctx, httpapi.Principal(ctx), in.OrganizationID)
	if err != nil {
		return "", calendar.Day{}, err
	}
	day, err := svc.CompletedDay(in.DeliveryDay)
	return org, day, err
}

// Register adds the balancing-group endpoints to s.
func Register(s *httpapi.Server, svc *nomination.Service) {
	tags := []string{s.Tag("Reporting", "Reports of what was dispatched.")}
	const (
		schedules = "/v1/balancing-groups/afrr/schedules"
		config    = "/v1/organizations/{organization_id}/balancing-groups/afrr/{tso}"
	)
	common := " 422 for a malformed parameter, a missing organization_id of a platform administrator and organization_not_accessible " +
		"for one the caller cannot act on; 400 delivery_day_not_completed for today or a future Berlin day."

	httpapi.Register(s, huma.Operation{
		OperationID: "get-balancing-group-schedule", Method: http.MethodGet, Path: schedules, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleSchedule),
		Summary:   "Balancing-group schedule of activated aFRR energy",
		Description: "The quarter-hour MW the platform nominates between its balancing group and the customer's for a completed " +
			"Europe/Berlin delivery day, per TSO zone and direction, from the latest revision the TSO acknowledged. " +
			"Quarter-hours without published data are left out; 0 means 0 MW was nominated." + common,
		Errors: []int{http.StatusBadRequest, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.ReportRead), func(ctx context.Context, in *scheduleInput) (*httpapi.Output[Schedule], error) {
		org, day, err := resolve(ctx, svc, in.Scheduled)
		if err != nil {
			return nil, err
		}
		tso, err := nomination.ParseTSO(in.TSO, false)
		if err != nil {
			return nil, err
		}
		ids, err := nomination.ParseAssetIDs(in.AssetIDs)
		if err != nil {
			return nil, err
		}
		sch, err := svc.Schedule(ctx, nomination.ScheduleQuery{OrganizationID: org, Day: day, TSO: tso, AssetIDs: ids})
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[Schedule]{Body: toSchedule(sch)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-balancing-group-nomination-file", Method: http.MethodGet, Path: schedules + "/file", Tags: tags,
		Responses: map[string]*huma.Response{"200": {Description: "The nomination file.", Content: map[string]*huma.MediaType{
			"text/csv": {Schema: &huma.Schema{Type: "string", Description: "UTF-8 with byte-order mark, semicolon-delimited, CRLF, decimal comma. " +
				"Rows 1 to 5 (label;value): data-exchange reference, control area from, control area to, balancing group from, balancing group to; " +
				"row 6: Unit;MW; from row 7 one row per quarter-hour: Berlin label DD.MM.YYYY HH:MM;MW with three decimals, empty when no value is available (never 0)."},
				Example: exampleFile}}}},
		Summary: "Nomination file of a zone and direction",
		Description: "The nomination file the TSO acknowledged for one zone and direction, reproducing what is nominated; while no revision " +
			"is acknowledged, the file without reference, EICs and values. 404 for a zone where the organisation manages no nominations that day." + common,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.ReportRead), func(ctx context.Context, in *fileInput) (*fileOutput, error) {
		org, day, err := resolve(ctx, svc, in.Scheduled)
		if err != nil {
			return nil, err
		}
		tso, err := nomination.ParseTSO(in.TSO, true)
		if err != nil {
			return nil, err
		}
		d, err := nomination.ParseDirection(in.Direction)
		if err != nil {
			return nil, err
		}
		f, k, err := svc.File(ctx, org, day, tso, d)
		if err != nil {
			return nil, err
		}
		body, err := f.Render()
		if err != nil {
			return nil, err
		}
		return &fileOutput{ContentType: "text/csv; charset=utf-8",
			ContentDisposition: `attachment; filename="` + nomination.FileName(k, d) + `"`, Body: body}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-balancing-group-revisions", Method: http.MethodGet, Path: schedules + "/revisions", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleRevisions),
		Summary:   "Revisions of the balancing-group nominations and their exchange",
		Description: "Every revision of the organisation's nominations of a delivery day (in one zone with tso), with its exchange " +
			"record: also those not acknowledged (pending, held, sent, rejected), so that an operator sees why a day is not visible. " +
			"Answers text/csv to Accept: text/csv." + common,
		Errors: []int{http.StatusBadRequest, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.ReportRead), func(ctx context.Context, in *revisionsInput) (*httpapi.Output[RevisionList], error) {
		org, day, err := resolve(ctx, svc, in.Scheduled)
		if err != nil {
			return nil, err
		}
		tso, err := nomination.ParseTSO(in.TSO, false)
		if err != nil {
			return nil, err
		}
		revs, err := svc.Revisions(ctx, org, day, tso)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[RevisionList]{Body: toRevisions(org, day, revs)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-balancing-group-config", Method: http.MethodGet, Path: config, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleConfig),
		Summary:   "Balancing-group configuration of a zone",
		Description: "Who is responsible for the balancing group of the organisation's assets in the zone, and the EICs of its " +
			"nominations. 404 for an organisation the caller cannot see, an unknown zone, or no configuration.",
		Errors: []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.ReportRead), func(ctx context.Context, in *ConfigPath) (*httpapi.Output[Config], error) {
		tso := assets.TSO(in.TSO)
		if !tso.Valid() {
			return nil, errs.NotFoundf("no zone %q", in.TSO)
		}
		c, err := svc.ConfigOf(ctx, httpapi.Principal(ctx), in.OrganizationID, tso)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[Config]{Body: toConfig(c)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "put-balancing-group-config", Method: http.MethodPut, Path: config, Tags: tags,
		RequestBody: httpapi.RequestExample(exampleConfigRequest), Responses: httpapi.ResponseExample(http.StatusOK, exampleConfig),
		Summary: "Configure the balancing group of a zone",
		Description: "Creates or replaces the configuration: platform administrators only (403 platform_admin_required). " +
			"Revisions built from then on carry the new EICs; acknowledged ones keep theirs. 404 for an unknown organisation or zone; " +
			"422 invalid_eic for a value that is not an EIC with a valid check character, validation_failed for an unregistered " +
			"balancing_group_responsible_org_id.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.ReportRead), func(ctx context.Context, in *configPutInput) (*httpapi.Output[Config], error) {
		tso := assets.TSO(in.TSO)
		p := httpapi.Principal(ctx)
		if p.IsPlatformAdmin() && !tso.Valid() {
			return nil, errs.NotFoundf("no zone %q", in.TSO)
		}
		b := in.Body
		c, err := svc.PutConfig(ctx, p, nomination.Config{OrganizationID: in.OrganizationID, TSO: tso,
			ResponsibleOrganizationID: b.BalancingGroupResponsibleOrgID, Note: b.Note,
			EICs: nomination.EICs{ControlArea: b.ControlAreaEIC, SourceControlArea: b.SourceControlAreaEIC, TargetControlArea: b.TargetControlAreaEIC,
				SourceBalancingGroup: b.SourceBalancingGroupEIC, TargetBalancingGroup: b.TargetBalancingGroupEIC}})
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[Config]{Body: toConfig(c)}, nil
	})
}
