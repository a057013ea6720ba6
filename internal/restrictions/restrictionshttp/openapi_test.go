package restrictionshttp_test

import (
	"strings"
	"testing"

	"atcp/internal/testkit"
)

// TestOpenAPI: the document names the write operations' two scopes and
// the request bodies by their own names.
func TestOpenAPI(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	doc := string(e.h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").Body)
	for _, want := range []string{`"PowerLimitCreate"`, `"EnergyLimitCreate"`, `"UnavailabilityCreate"`, `"RestrictionRequest"`,
		`"restrictions.write_direct"`, `"restrictions.approve"`, `"/v1/assets/{asset_id}/energy_limits/active"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("OpenAPI document lacks %s", want)
		}
	}
}
