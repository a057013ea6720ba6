package app_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestSegmentationDeleteOnEveryStore is issue 10's sequence on a whole
// server: create an asset, PUT a two-segment design, activate it, DELETE
// it. On sqlite::memory: the DELETE waited 10 s for its own transaction and
// failed with SQLITE_BUSY, while a SQLite file answered at once.
func TestSegmentationDeleteOnEveryStore(t *testing.T) {
	dbs := databases(t)
	dbs["sqlite-memory"] = func(*testing.T) string { return "sqlite::memory:" }
	for name, dbURL := range dbs {
		t.Run(name, func(t *testing.T) {
			base := startApp(t, dbURL(t))
			tok := fetchToken(t, base)
			do := func(method, path string, body any, status int) {
				t.Helper()
				var rdr io.Reader
				if body != nil {
					enc, _ := json.Marshal(body)
					rdr = bytes.NewReader(enc)
				}
				req, _ := http.NewRequest(method, base+path, rdr)
				req.Header.Set("Authorization", "Bearer "+tok)
				req.Header.Set("Content-Type", "application/json")
				start := time.Now()
				getJSON(t, req, status, nil)
				if d := time.Since(start); d > 5*time.Second {
					t.Fatalf("%s %s took %v", method, path, d)
				}
			}
			do("POST", "/v1/assets", map[string]any{"asset_id": "seg-bess", "asset_name": "Battery", "asset_type": "standalone",
				"location": "Leipzig", "organisation_id": "demo", "usable_power_capacity_mw": 10, "usable_energy_capacity_mwh": 20}, 201)
			design := map[string]any{"mode": "proportional", "segments": []any{
				map[string]any{"segment_id": "a", "name": "A", "share": 0.5},
				map[string]any{"segment_id": "b", "name": "B", "share": 0.5},
			}}
			do("PUT", "/v1/assets/seg-bess/segmentation", design, 200)
			do("POST", "/v1/assets/seg-bess/segmentation/activate", nil, 200)
			do("DELETE", "/v1/assets/seg-bess/segmentation", nil, 204)
			do("DELETE", "/v1/assets/seg-bess", nil, 204)
		})
	}
}
