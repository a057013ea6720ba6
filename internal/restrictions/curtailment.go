package restrictions

import (
	"time"

	"atcp/internal/errs"
)

// Curtailment is a DSO curtailment signal on an asset; End is nil while
// it is ongoing. MaxCurtailment and MinCurtailment are MW.
type Curtailment struct {
	ID                             string
	OrganizationID                 string
	AssetID                        string
	Start                          time.Time
	End                            *time.Time
	MaxCurtailment, MinCurtailment float64
}

// AllowCurtailment is the rule of opening a curtailment of an asset whose
// ongoing curtailment is ongoing (nil for none): one at a time (409
// curtailment_ongoing). The store runs it in the transaction of the insert.
func AllowCurtailment(ongoing *Curtailment) error {
	if ongoing != nil {
		return errs.Conflictf(CodeCurtailmentOngoing, "asset %q already has an ongoing curtailment", ongoing.AssetID)
	}
	return nil
}

// CurtailmentHistory is how far back the curtailment start filter reaches.
const CurtailmentHistory = 30 * 24 * time.Hour
