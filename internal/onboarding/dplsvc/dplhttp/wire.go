package dplhttp

import (
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/httpapi"

	"atcp/internal/onboarding/dpl"
	"atcp/internal/onboarding/dplsvc"
)

// DPLRowRequest is a DPL row as written (POST, PUT: the whole row).
type DPLRowRequest struct {
	PointName   string   `json:"point_name" minLength:"1" maxLength:"62" doc:"A template point or a custom name x_[a-z0-9_]{1,60}; unique in the list."`
	Description string   `json:"description,omitempty" maxLength:"200" required:"false"`
	Protocol    string   `json:"protocol" enum:"iec104,modbus_tcp,opcua,mqtt"`
	Address     string   `json:"address" minLength:"1" maxLength:"200" doc:"iec104 ca:<0-65535>/ioa:<0-16777215>; modbus_tcp <unit 0-255>:<hr|ir|co|di>:<0-65535>; opcua a NodeId (ns=2;s=…); mqtt a topic without wildcards. Unique per protocol in the list; stored normalised."`
	DataType    string   `json:"data_type" enum:"bool,int16,uint16,int32,uint32,float32,float64"`
	Unit        string   `json:"unit" enum:"MW,kW,MWh,kWh,percent,Hz,V,kV,A,degC,bool,none" doc:"Must convert into the template point's unit."`
	Scale       *float64 `json:"scale,omitempty" required:"false" doc:"Default 1; not 0. Engineering value = raw × scale + offset."`
	Offset      *float64 `json:"offset,omitempty" required:"false" doc:"Default 0."`
	Direction   string   `json:"direction" enum:"read,write,read_write" doc:"Must include the template point's direction."`
	Notes       string   `json:"notes,omitempty" maxLength:"1000" required:"false"`
}

func (r DPLRowRequest) row() dpl.Row {
	out := dpl.NewRow()
	out.PointName, out.Description, out.Protocol, out.Address = r.PointName, r.Description, r.Protocol, r.Address
	out.DataType, out.Unit, out.Direction, out.Notes = r.DataType, r.Unit, dpl.Direction(r.Direction), r.Notes
	if r.Scale != nil {
		out.Scale = *r.Scale
	}
	if r.Offset != nil {
		out.Offset = *r.Offset
	}
	return out
}

// DPLRow is a stored DPL row.
type DPLRow struct {
	RowID          string    `json:"row_id" format:"uuid"`
	PointName      string    `json:"point_name"`
	Description    string    `json:"description"`
	Protocol       string    `json:"protocol"`
	Address        string    `json:"address"`
	DataType       string    `json:"data_type"`
	Unit           string    `json:"unit"`
	Scale          float64   `json:"scale"`
	Offset         float64   `json:"offset"`
	Direction      string    `json:"direction"`
	Notes          string    `json:"notes"`
	Required       bool      `json:"required" doc:"A required point of the template."`
	LastTestResult *string   `json:"last_test_result" enum:"ok,missing,stale,out_of_range,not_mapped" doc:"Of the latest communication test: ok, missing, stale, out_of_range or not_mapped; null until one judged the row, and after a change."`
	ETag           string    `json:"etag" doc:"The row's version, for If-Match on PUT."`
	UpdatedAt      time.Time `json:"updated_at"`
	UpdatedByName  string    `json:"updated_by_name"`
}

// TransformSchema lists null in the enum of last_test_result.
func (DPLRow) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullInEnums(s)
}

func toRow(r dplsvc.Row, points []dpl.Point) DPLRow {
	p, _ := dpl.FindPoint(points, r.PointName)
	out := DPLRow{RowID: r.ID, PointName: r.PointName, Description: r.Description, Protocol: r.Protocol, Address: r.Address, DataType: r.DataType,
		Unit: r.Unit, Scale: r.Scale, Offset: r.Offset, Direction: string(r.Direction), Notes: r.Notes, Required: p.Required,
		ETag: dplsvc.ETag(r), UpdatedAt: r.UpdatedAt, UpdatedByName: r.UpdatedBy}
	if r.LastTestResult != "" {
		s := string(r.LastTestResult)
		out.LastTestResult = &s
	}
	return out
}

func toRows(rows []dplsvc.Row, points []dpl.Point) []DPLRow {
	out := make([]DPLRow, len(rows))
	for i, r := range rows {
		out[i] = toRow(r, points)
	}
	return out
}

// DPLRowList is the body of GET …/dpl-rows.
type DPLRowList struct {
	Rows          []DPLRow `json:"rows" nullable:"false" doc:"Template points in template order, then custom points by name."`
	MissingPoints []string `json:"missing_points" nullable:"false" doc:"Required template points without a row."`
	Total         int      `json:"total"`
}

// DPLImportResult is the body of POST …/dpl-rows/import.
type DPLImportResult struct {
	Created int      `json:"created"`
	Updated int      `json:"updated"`
	Deleted int      `json:"deleted"`
	Rows    []DPLRow `json:"rows" nullable:"false" doc:"The list after the import."`
}

// CommunicationTestPoint is one judged point of a communication test.
type CommunicationTestPoint struct {
	PointName string   `json:"point_name"`
	Result    string   `json:"result" enum:"ok,missing,stale,out_of_range,not_mapped"`
	Value     *float64 `json:"value" doc:"The value read, null when there was none."`
	Unit      string   `json:"unit" doc:"The template point's unit; empty for a custom point."`
}

// CommunicationTestSummary counts a test's points.
type CommunicationTestSummary struct {
	OK     int `json:"ok"`
	Failed int `json:"failed" doc:"Missing, stale or out of range."`
}

// CommunicationTest is a communication test.
type CommunicationTest struct {
	TestID        string                   `json:"test_id" format:"uuid"`
	OnboardingID  string                   `json:"onboarding_id" format:"uuid"`
	StartedAt     time.Time                `json:"started_at"`
	FinishedAt    *time.Time               `json:"finished_at"`
	StartedByName string                   `json:"started_by_name"`
	Status        string                   `json:"status" enum:"running,passed,failed" doc:"Passed when connected and every required point the telemetry carries is ok."`
	Connected     bool                     `json:"connected" doc:"The asset reported within the last 60 s."`
	MeasuredAt    *time.Time               `json:"measured_at" doc:"The instant of the measurements judged; null when the asset never reported."`
	Points        []CommunicationTestPoint `json:"points" nullable:"false"`
	Summary       CommunicationTestSummary `json:"summary"`
}

// ToTest renders a test (the task detail shows the latest one).
func ToTest(t dplsvc.Test) CommunicationTest {
	out := CommunicationTest{TestID: t.ID, OnboardingID: t.OnboardingID, StartedAt: t.StartedAt, FinishedAt: t.FinishedAt, StartedByName: t.StartedBy,
		Status: string(t.Status), Connected: t.Connected, MeasuredAt: t.MeasuredAt, Points: make([]CommunicationTestPoint, len(t.Points))}
	for i, p := range t.Points {
		out.Points[i] = CommunicationTestPoint{PointName: p.PointName, Result: string(p.Result), Value: p.Value, Unit: p.Unit}
	}
	out.Summary.OK, out.Summary.Failed = t.Summary()
	return out
}

// CommunicationTestList is the body of GET …/communication-tests.
type CommunicationTestList struct {
	CommunicationTests []CommunicationTest `json:"communication_tests" nullable:"false" doc:"Newest first."`
	Total              int                 `json:"total"`
	Limit              int                 `json:"limit"`
	Offset             int                 `json:"offset"`
}
