package dplhttp

import (
	"encoding/json"
	"time"
)

var exampleAt = time.Date(2026, 2, 3, 9, 30, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

var exampleRow = DPLRowRequest{PointName: "bess_power_mw", Description: "Battery active power", Protocol: "iec104", Address: "ca:1/ioa:100",
	DataType: "float32", Unit: "MW", Scale: ptr(1.0), Offset: ptr(0.0), Direction: "read", Notes: "Measured at the inverter."}

var exampleRowOut = DPLRow{RowID: "0194c1a2-7b3c-7d4e-8f50-6a7b8c9d0e1f", PointName: "bess_power_mw", Description: "Battery active power",
	Protocol: "iec104", Address: "ca:1/ioa:100", DataType: "float32", Unit: "MW", Scale: 1, Offset: 0, Direction: "read",
	Notes: "Measured at the inverter.", Required: true, LastTestResult: ptr("ok"), ETag: `"5f2b9c1d0a3e4b7c"`, UpdatedAt: exampleAt,
	UpdatedByName: "ems@example.com"}

var exampleRowList = DPLRowList{Rows: []DPLRow{exampleRowOut}, MissingPoints: []string{"soc", "grid_power_mw"}, Total: 1}

var exampleImport = DPLImportResult{Created: 1, Updated: 0, Deleted: 0, Rows: []DPLRow{exampleRowOut}}

const exampleCSV = "point_name,description,protocol,address,data_type,unit,scale,offset,direction,notes\r\n" +
	"bess_power_mw,Battery active power,iec104,ca:1/ioa:100,float32,MW,1,0,read,Measured at the inverter.\r\n"

var exampleTest = CommunicationTest{TestID: "0194c1a3-1111-7222-8333-444455556666", OnboardingID: "0194c19f-aaaa-7bbb-8ccc-dddddddddddd",
	StartedAt: exampleAt, FinishedAt: ptr(exampleAt), StartedByName: "ems@example.com", Status: "passed", Connected: true,
	MeasuredAt: ptr(exampleAt.Add(-time.Second)),
	Points:     []CommunicationTestPoint{{PointName: "bess_power_mw", Result: "ok", Value: ptr(4.2), Unit: "MW"}, {PointName: "soc", Result: "not_mapped", Unit: "percent"}},
	Summary:    CommunicationTestSummary{OK: 1}}

var exampleTestList = CommunicationTestList{CommunicationTests: []CommunicationTest{exampleTest}, Total: 1, Limit: 100, Offset: 0}

// js is an example's JSON text.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
