package restrictions

import (
	"errors"
	"testing"

	"atcp/internal/errs"
)

func TestAllowCurtailment(t *testing.T) {
	if err := AllowCurtailment(nil); err != nil {
		t.Errorf("no ongoing curtailment: %v", err)
	}
	err := AllowCurtailment(&Curtailment{AssetID: "a1"})
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.Conflict || e.Code != "curtailment_ongoing" {
		t.Errorf("an ongoing curtailment: %v", err)
	}
}
