package assets

import "time"

// Asset is a registered battery storage asset. Nil pointers are unset
// values (null on the wire); every non-pointer field always has a value,
// its default when never set.
type Asset struct {
	ID             string // asset_id; immutable, never reused after deletion
	OrganizationID string // organisation_id (British spelling on the wire); immutable
	Name           string
	Type           AssetType
	Description    *string
	Location       string

	// OptimizerOrgID names the registered organisation that optimises the
	// asset; OptimizerOrgName is that organisation's name, read from the
	// organisations registry (response only).
	OptimizerOrgID   *string
	OptimizerOrgName *string

	ChargeEfficiency    *float64 // (0, 1]
	DischargeEfficiency *float64 // (0, 1]
	Country             *string  // ISO 3166-1 alpha-2, upper case
	TSO                 *TSO

	MaxPosRampRateMWPerSec  *float64 // MW/s
	MinNegRampRateMWPerSec  *float64 // MW/s, positive magnitude
	UsableEnergyCapacityMWh *float64
	UsablePowerCapacityMW   *float64 // also the sanity bound of dispatch and power limits

	// Prequalified capacities are magnitudes in MW and always set (default
	// 0, which is a real ceiling of zero). They never exceed
	// UsablePowerCapacityMW when that is set.
	AFRRPrequalifiedPosMW float64
	AFRRPrequalifiedNegMW float64
	FCRPrequalifiedMW     float64 // symmetric: one figure for both directions

	TSOPoolID *int64 // externally assigned
	IOAMiddle *int   // IEC-104 IOA middle octet, 0..255

	Latitude  *float64
	Longitude *float64

	// DisablePQCapacityCheck: PTU capacity-exceeded rejections are ignored.
	DisablePQCapacityCheck bool
	// StrictValidation: plausibility violations are rejected with 409
	// instead of being returned as warnings.
	StrictValidation bool
	TSOConnected     bool // default true
	FCREnabled       bool
	AFRREnabled      bool
	WholesaleEnabled bool
	ControlEnabled   bool // the asset adapter may send write commands
	PVActive         bool // the asset has PV datapoints

	GridConnectionPowerMW *float64
	BESSPriority          *bool // battery priority over the co-located producer
	// GridImportAllowed: nil is unset and treated as permitted; always
	// false for green co-location. The wire alias grid_import_zero is its
	// inverse (see GridImportZero).
	GridImportAllowed  *bool
	BESSControlEnabled *bool // nil falls back to ControlEnabled (see BESSControl)
	PVControlEnabled   *bool // nil is treated as not permitted (see PVControl)

	IntegrationType         *IntegrationType
	OperationalStatus       OperationalStatus // default onboarding
	OperationalStatusReason *string
	MaintenanceUntil        *time.Time // expected end of maintenance, UTC

	// Adapter names the adapter the platform steers the asset through
	// (one of Adapters, default AdapterSimulator); AdapterTopicPrefix is
	// the MQTT topic prefix of the asset's gateway (default
	// DefaultTopicPrefix, stored as such). A virtual asset has its parent's.
	Adapter            AdapterName
	AdapterTopicPrefix string

	CreatedAt time.Time
	UpdatedAt time.Time

	// ParentAssetID is set on a virtual asset (a segment of the parent's
	// active segmentation, derived on read and never stored); nil for a
	// physical asset.
	ParentAssetID *string
}

// IsVirtual reports whether a is a virtual asset of a segmentation.
func (a Asset) IsVirtual() bool { return a.ParentAssetID != nil }

// PhysicalID is the id of the stored asset row behind a: the parent's for
// a virtual asset, a's own otherwise. Writes that must serialise per
// battery lock that row.
func (a Asset) PhysicalID() string {
	if a.ParentAssetID != nil {
		return *a.ParentAssetID
	}
	return a.ID
}

// NewAsset returns an asset carrying every default of a create request:
// prequalified capacities 0, tso_connected true, every other flag false,
// operational status onboarding, the simulator adapter under topic prefix
// atcp/<id>, and for green co-location grid import not allowed. Callers
// set further fields before EnsureAsset.
func NewAsset(id, organizationID, name, location string, typ AssetType) Asset {
	a := Asset{
		ID: id, OrganizationID: organizationID, Name: name, Location: location, Type: typ,
		TSOConnected: true, OperationalStatus: Onboarding,
		Adapter: AdapterSimulator, AdapterTopicPrefix: DefaultTopicPrefix(id),
	}
	a.normalize()
	return a
}

// normalize applies the rules that follow from other fields and brings
// instants to the precision both stores keep.
func (a *Asset) normalize() {
	if a.Type == GreenColocation && a.GridImportAllowed == nil {
		no := false
		a.GridImportAllowed = &no
	}
	if a.MaintenanceUntil != nil {
		t := a.MaintenanceUntil.UTC().Truncate(time.Microsecond)
		a.MaintenanceUntil = &t
	}
}

// GridImportZero is the deprecated inverse alias of GridImportAllowed
// (nil when that is nil).
func (a Asset) GridImportZero() *bool {
	if a.GridImportAllowed == nil {
		return nil
	}
	v := !*a.GridImportAllowed
	return &v
}

// GridImportPermitted tells whether the asset may charge from the grid:
// an unset value is permitted.
func (a Asset) GridImportPermitted() bool {
	return a.GridImportAllowed == nil || *a.GridImportAllowed
}

// BESSControl tells whether the battery may be steered: an unset
// bess_control_enabled falls back to control_enabled.
func (a Asset) BESSControl() bool {
	if a.BESSControlEnabled == nil {
		return a.ControlEnabled
	}
	return *a.BESSControlEnabled
}

// PVControl tells whether the co-located PV may be steered: unset is not
// permitted.
func (a Asset) PVControl() bool { return a.PVControlEnabled != nil && *a.PVControlEnabled }

// ProductionCritical reports whether a fault of the asset costs money at
// once: it is live and enabled for at least one market.
func (a Asset) ProductionCritical() bool {
	return a.OperationalStatus == Live && (a.FCREnabled || a.AFRREnabled || a.WholesaleEnabled)
}
