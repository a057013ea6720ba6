package restrictions

import (
	"time"
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

// CurtailmentHistory is how far back the curtailment start filter reaches.
const CurtailmentHistory = 30 * 24 * time.Hour
