package sqlutil

import (
	"encoding/json"
	"strings"

	"atcp/internal/errs"
	"atcp/internal/onboarding/dpl"
	"atcp/internal/onboarding/dplsvc"
)

// DPLRowColumns are the onboarding_dpl_rows columns in the order of
// DPLRowValues and DPLRowScan, updated_at last.
var DPLRowColumns = []string{"onboarding_id", "row_id", "point_name", "description", "protocol", "address", "data_type", "unit",
	"scale", `"offset"`, "direction", "notes", "last_test_result", "updated_by", "updated_at"}

// DPLRowList is DPLRowColumns comma-separated.
var DPLRowList = strings.Join(DPLRowColumns, ", ")

// DPLRowValues are a row's values without updated_at, which each backend
// encodes itself.
func DPLRowValues(r dplsvc.Row) []any {
	return []any{r.OnboardingID, r.ID, r.PointName, r.Description, r.Protocol, r.Address, r.DataType, r.Unit, r.Scale, r.Offset,
		string(r.Direction), r.Notes, string(r.LastTestResult), r.UpdatedBy}
}

// DPLRowScan returns the scan destinations of DPLRowColumns but
// updated_at, and the row they fill.
func DPLRowScan(r *dplsvc.Row) []any {
	return []any{&r.OnboardingID, &r.ID, &r.PointName, &r.Description, &r.Protocol, &r.Address, &r.DataType, &r.Unit, &r.Scale, &r.Offset,
		&r.Direction, &r.Notes, &r.LastTestResult, &r.UpdatedBy}
}

// DPLUniqueViolation is the 409 of a unique index of onboarding_dpl_rows:
// both backends name the point_name index (or its column) in the message.
func DPLUniqueViolation(err error, r dplsvc.Row) error {
	if strings.Contains(err.Error(), "point_name") {
		return errs.Conflictf(dpl.CodePointExists, "the data-point list already has a row for %s", r.PointName)
	}
	return errs.Conflictf(dpl.CodeAddressInUse, "%s address %s is already used by another row", r.Protocol, r.Address)
}

// DPLPointsJSON is a test's points as stored.
func DPLPointsJSON(points []dpl.PointResult) (string, error) {
	if points == nil {
		points = []dpl.PointResult{}
	}
	b, err := json.Marshal(points)
	return string(b), err
}

// DPLPoints reads a test's stored points.
func DPLPoints(s string) ([]dpl.PointResult, error) {
	out := []dpl.PointResult{}
	return out, json.Unmarshal([]byte(s), &out)
}

// DPLTestNotFound is the 404 of an unknown test.
func DPLTestNotFound(id string) error {
	return errs.E(errs.NotFound, dplsvc.CodeTestNotFound, "no communication test %q", id)
}

// DPLRowNotFound is the 404 of an unknown row.
func DPLRowNotFound(id string) error {
	return errs.E(errs.NotFound, dplsvc.CodeRowNotFound, "no DPL row %q", id)
}

// DPLTestRunning is the 409 of a second running test.
func DPLTestRunning() error {
	return errs.Conflictf(dplsvc.CodeTestRunning, "a communication test of the onboarding is running")
}
