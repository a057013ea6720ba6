package assetshttp

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"atcp/internal/errs"
)

// FuzzUpdateBody decodes arbitrary bodies as a partial update and applies
// them to a valid asset: a refusal is a 422 naming fields (not request
// paths: the handlers place them in the body) that
// leaves the asset as it was; an acceptance yields a valid asset with the
// same identity, and applying the same body again changes nothing.
func FuzzUpdateBody(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"asset_name": "x", "description": null}`,
		`{"asset_name": null, "tso": "50HZ", "ioa_middle": 256}`,
		`{"grid_import_zero": true, "grid_import_allowed": true}`,
		`{"grid_import_zero": null}`,
		`{"asset_type": "green_colocation", "grid_import_allowed": true}`,
		`{"usable_power_capacity_mw": 1, "fcr_prequalified_capacity_mw": 0.5}`,
		`{"latitude": 91, "longitude": null, "country": "de"}`,
		`{"maintenance_until": "2026-03-01T00:00:00.123456789+05:30"}`,
		`{"maintenance_until": "9999-12-31T23:59:59-23:59"}`,
		`{"asset_id": "bess-1", "organisation_id": "acme", "optimizer_org_id": "x"}`,
		`{"poc_export_limit_mw": 1e308, "tso_pool_id": -1}`,
		`{"asset_name": "\u0000", "location": "   "}`,
		`{"adapter": "mqtt", "adapter_topic_prefix": "a//b"}`,
		`{"adapter": null, "adapter_topic_prefix": "$SYS/#"}`,
	} {
		f.Add([]byte(seed))
	}
	cur := validAsset()
	cur.CreatedAt, cur.UpdatedAt = created, created
	f.Fuzz(func(t *testing.T, body []byte) {
		var w Update
		if json.Unmarshal(body, &w) != nil {
			return
		}
		u := w.update()
		next, changed, err := u.Apply(cur, later)
		if err != nil {
			var e *errs.Error
			if !errors.As(err, &e) || e.Kind != errs.Invalid || len(e.Fields) == 0 {
				t.Fatalf("refusal is not a 422 naming fields: %v", err)
			}
			for _, fe := range e.Fields {
				if fe.Location == "" || strings.HasPrefix(fe.Location, "body") {
					t.Fatalf("location %q", fe.Location)
				}
			}
			if _, err := json.Marshal(e.Fields); err != nil {
				t.Fatalf("error fields cannot be sent: %v", err)
			}
			if changed || !reflect.DeepEqual(next, cur) {
				t.Fatal("a refused update changed the asset")
			}
			return
		}
		if changed == reflect.DeepEqual(next, cur) {
			t.Fatal("changed does not tell whether the asset changed")
		}
		if err := next.Validate(); err != nil {
			t.Fatalf("accepted update produced an invalid asset: %v", err)
		}
		if _, err := json.Marshal(next); err != nil {
			t.Fatalf("accepted asset cannot be sent: %v", err)
		}
		if next.ID != cur.ID || next.OrganizationID != cur.OrganizationID || !next.CreatedAt.Equal(cur.CreatedAt) {
			t.Fatal("identity changed")
		}
		again, changed, err := u.Apply(next, later.Add(time.Hour))
		if err != nil || changed || !reflect.DeepEqual(again, next) {
			t.Fatalf("applying the body again changed the asset: %v", err)
		}
		if a, err := u.Create(later); err == nil && a.Validate() != nil {
			t.Fatalf("created an invalid asset: %v", a.Validate())
		}
	})
}
