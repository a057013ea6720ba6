package fields

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
)

// Values are the stored RfI values of one gate and their last save.
type Values struct {
	// Fields holds the set values by key; a cleared field is absent.
	Fields    map[string]json.RawMessage
	UpdatedAt *time.Time // nil before the first save
	UpdatedBy string     // the name of who saved last
}

// ETag is the version an If-Match names: a digest of the values and of
// their last save, so any save that changes a value yields another.
func (v Values) ETag() string {
	h := sha256.New()
	fs := v.Fields
	if fs == nil {
		fs = map[string]json.RawMessage{} // none set: as stored
	}
	b, _ := json.Marshal(fs) // sorted keys, compacted values
	h.Write(b)
	if v.UpdatedAt != nil {
		h.Write([]byte("\x00" + strconv.FormatInt(v.UpdatedAt.UnixMicro(), 10)))
	}
	h.Write([]byte("\x00" + v.UpdatedBy))
	return `"` + hex.EncodeToString(h.Sum(nil)[:12]) + `"`
}

// Store keeps the values in the workflow's gate rows
// (onboarding_gates.fields_json, fields_updated_at, fields_updated_by).
// The service has checked that the caller sees the workflow; the store
// keys every query by its organisation.
type Store interface {
	// Fields returns the values of every gate of the workflow, by gate id.
	// It joins the transaction ctx carries.
	Fields(ctx context.Context, organizationID, onboardingID string) (map[string]Values, error)
	// SetFields replaces a gate's values; call it inside
	// onboarding.Service.Mutate. 404 gate_not_found when the gate is not
	// the workflow's.
	SetFields(ctx context.Context, organizationID, onboardingID, gateID string, v Values) error
}
