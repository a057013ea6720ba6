package assets

import (
	"fmt"
	"slices"
)

// AssetType says how the battery shares its grid connection.
type AssetType string

// The asset types of document 1.
const (
	Standalone      AssetType = "standalone"
	GreenColocation AssetType = "green_colocation" // co-located with a renewable producer; no grid import
	GreyColocation  AssetType = "grey_colocation"
)

// AssetTypes lists every asset type.
var AssetTypes = []AssetType{Standalone, GreenColocation, GreyColocation}

// ParseAssetType returns the asset type named s.
func ParseAssetType(s string) (AssetType, error) { return parseEnum(s, AssetTypes, "asset type") }

// Valid reports whether t is one of AssetTypes.
func (t AssetType) Valid() bool { return slices.Contains(AssetTypes, t) }

// IntegrationType says how far the platform may steer the asset.
type IntegrationType string

// The integration types of document 1.
const (
	FullControl    IntegrationType = "full_control"
	MonitoringOnly IntegrationType = "monitoring_only"
)

// IntegrationTypes lists every integration type.
var IntegrationTypes = []IntegrationType{FullControl, MonitoringOnly}

// ParseIntegrationType returns the integration type named s.
func ParseIntegrationType(s string) (IntegrationType, error) {
	return parseEnum(s, IntegrationTypes, "asset integration type")
}

// Valid reports whether t is one of IntegrationTypes.
func (t IntegrationType) Valid() bool { return slices.Contains(IntegrationTypes, t) }

// OperationalStatus is where the asset is in its life.
type OperationalStatus string

// The operational states of document 1. Transitions between them are not
// restricted (document 1: "Transitions: not shown").
const (
	Onboarding        OperationalStatus = "onboarding"
	OnboardingTesting OperationalStatus = "onboarding_testing"
	Live              OperationalStatus = "live"
	Maintenance       OperationalStatus = "maintenance"
	Offboarded        OperationalStatus = "offboarded"
)

// OperationalStatuses lists every operational status.
var OperationalStatuses = []OperationalStatus{Onboarding, OnboardingTesting, Live, Maintenance, Offboarded}

// ParseOperationalStatus returns the operational status named s.
func ParseOperationalStatus(s string) (OperationalStatus, error) {
	return parseEnum(s, OperationalStatuses, "asset operational status")
}

// Valid reports whether s is one of OperationalStatuses.
func (s OperationalStatus) Valid() bool { return slices.Contains(OperationalStatuses, s) }

// TSO is the German transmission system operator (control zone) the asset
// is connected in.
type TSO string

// The four German control zones.
const (
	TSO50Hertz    TSO = "50HZ"
	TSOTenneT     TSO = "TNNT"
	TSOAmprion    TSO = "AMP"
	TSOTransnetBW TSO = "TNBW"
)

// TSOs lists every control zone.
var TSOs = []TSO{TSO50Hertz, TSOTenneT, TSOAmprion, TSOTransnetBW}

// ParseTSO returns the control zone named s (exact, upper case).
func ParseTSO(s string) (TSO, error) { return parseEnum(s, TSOs, "TSO") }

// Valid reports whether t is one of TSOs.
func (t TSO) Valid() bool { return slices.Contains(TSOs, t) }

func parseEnum[E ~string](s string, values []E, what string) (E, error) {
	if slices.Contains(values, E(s)) {
		return E(s), nil
	}
	return "", fmt.Errorf("unknown %s %q (expected one of %v)", what, s, values)
}
