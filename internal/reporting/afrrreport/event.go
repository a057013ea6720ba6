package afrrreport

import (
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"atcp/internal/markets/bids"
)

// Category is why the dispatcher asked the asset for aFRR energy.
type Category string

const (
	// EnergyBid: the asset's own activated energy bid, without a capacity
	// award in that direction.
	EnergyBid Category = "energy_bid"
	// CapacityObligation: the activated energy of an asset holding an
	// aFRR capacity award in that direction (document 1, rule 8).
	CapacityObligation Category = "capacity_obligation"
	// BackupCover: a pool member's activation the asset covers through
	// the backup market (docs/portfolio.md), when it is most of what the
	// asset was asked for.
	BackupCover Category = "backup_cover"
)

// Categories for enum documentation.
var Categories = []Category{EnergyBid, CapacityObligation, BackupCover}

// Outcome is how the asset delivered what it was sent; "" (null on the
// wire) when it delivered within Tolerance.
type Outcome string

const (
	Delivered    Outcome = ""
	Partial      Outcome = "partial"
	NotDelivered Outcome = "not_delivered"
	Skipped      Outcome = "skipped"
)

// Outcomes for enum documentation (null aside).
var Outcomes = []Outcome{Partial, NotDelivered, Skipped}

// Filter reasons: why the control loop sent the asset less aFRR power
// than its share, or nothing. They are the loop's own decisions
// (control.FilterAFRR and whether the command was sent).
const (
	ReasonUnavailable       = "unavailable"
	ReasonPowerLimited      = "power_limited"
	ReasonEnergyLimited     = "energy_limited"
	ReasonStateOfCharge     = "state_of_charge"
	ReasonAdapterOffline    = "adapter_offline"
	ReasonTelemetryStale    = "telemetry_stale"
	ReasonControlDisabled   = "battery_control_disabled"
	ReasonImmediateDispatch = "immediate_dispatch_active"
	ReasonSendFailed        = "send_failed"
)

// FilterReasons for enum documentation.
var FilterReasons = []string{ReasonUnavailable, ReasonPowerLimited, ReasonEnergyLimited, ReasonStateOfCharge,
	ReasonAdapterOffline, ReasonTelemetryStale, ReasonControlDisabled, ReasonImmediateDispatch, ReasonSendFailed}

// Event is one aFRR dispatch event: what the control loop asked one
// battery for in one quarter-hour and direction, what it sent and what
// the battery delivered. Powers are the quarter-hour's means over the
// seconds the loop processed (MW, signed: positive = discharge).
type Event struct {
	ID             string // UUIDv7
	OrganizationID string
	ActivationID   string // the TSO's activation: direction, quarter-hour and zone
	RequestID      string // the dispatcher's request to this asset for that activation
	AssetID        string
	CreatedAt      time.Time // platform clock when recorded: the quarter-hour's end
	Direction      bids.Product
	PlannedMW      float64 // the asset's share before the filters
	SetMW          float64 // what was sent after them (0 when skipped)
	AcceptedMW     float64 // the mean of afrr_power_actual
	Outcome        Outcome
	FilterReason   string // "" when nothing was filtered
	FilterDetails  string
	Category       Category
	Slot           time.Time // the quarter-hour's start
	// EnergyPrice is the marginal price of the quarter-hour and direction
	// (EUR/MWh), nil when unknown; CapacityPrice the capacity award's
	// price per MW and hour (EUR/MW/h), nil without an award.
	EnergyPrice   *decimal.Decimal
	CapacityPrice *decimal.Decimal
}

// Filtered reports whether the dispatcher skipped or limited the asset.
func (e Event) Filtered() bool { return e.FilterReason != "" }

// ids namespaces the activation and request ids (UUIDv5 of their parts,
// so that every instance derives the same ones).
var ids = uuid.MustParse("6b1f0c52-9a7e-4f0e-8d1c-2f4b5e7a9c31")

// ActivationID is the id of the TSO's activation of direction in the
// quarter-hour starting at slot in zone (the asset's TSO; "" unknown).
func ActivationID(zone string, direction bids.Product, slot time.Time) string {
	return uuid.NewSHA1(ids, []byte("activation|"+zone+"|"+string(direction)+"|"+slot.UTC().Format(time.RFC3339))).String()
}

// RequestID is the id of the dispatcher's request to assetID for the
// activation activationID.
func RequestID(activationID, assetID string) string {
	return uuid.NewSHA1(ids, []byte("request|"+activationID+"|"+assetID)).String()
}

// NewEventID is a fresh UUIDv7.
func NewEventID() string { return uuid.Must(uuid.NewV7()).String() }

// Tolerance of delivery: an asset delivered when what it accepted is
// within ToleranceShare of what it was sent, or within ToleranceMW
// (measurement noise and the ramp at the quarter-hour's start).
const (
	ToleranceShare = 0.05
	ToleranceMW    = 0.01
)

// Classify is the outcome of an event: skipped when nothing was sent of a
// non-zero share, delivered (null) when accepted is within the tolerance
// of set (or beyond it, in the same direction), not_delivered when less
// than ToleranceShare of it was, partial otherwise.
func Classify(plannedMW, setMW, acceptedMW float64) Outcome {
	if math.Abs(setMW) < 1e-9 {
		if math.Abs(plannedMW) < 1e-9 {
			return Delivered
		}
		return Skipped
	}
	// Delivered in the direction sent, as a share of it.
	share := acceptedMW / setMW
	switch {
	case share >= 1-ToleranceShare || math.Abs(setMW-acceptedMW) <= ToleranceMW:
		return Delivered
	case share < ToleranceShare:
		return NotDelivered
	}
	return Partial
}
