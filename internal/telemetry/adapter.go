package telemetry

import (
	"math"
	"time"

	"atcp/internal/errs"
)

// ControlMode is the control scheme of a schedule target (document 1
// "Enumerations").
type ControlMode string

// The control modes of document 1.
const (
	Passive    ControlMode = "passive"
	BESSOnly   ControlMode = "bess_only"
	BESSAndPoC ControlMode = "bess_and_poc"
	PoCOnly    ControlMode = "poc_only"
)

// Code is the integer code published as the control_mode measurement. The
// spec leaves the codes unshown; atcp numbers the modes in the order of the
// enumeration.
func (m ControlMode) Code() int {
	switch m {
	case Passive:
		return 0
	case BESSOnly:
		return 1
	case BESSAndPoC:
		return 2
	case PoCOnly:
		return 3
	}
	return -1
}

// Command is the complete set of setpoints the platform holds for one asset
// at one moment. Every Send replaces the previous command in full, so an
// adapter never has to merge partial updates. Powers are MW with positive =
// discharge/injection and negative = charge/absorption.
type Command struct {
	ControlMode ControlMode
	// BESSPowerMW is the battery target of the current schedule or
	// immediate dispatch (dispatch_setpoint).
	BESSPowerMW float64
	// PoCPowerMW is the point-of-connection target of bess_and_poc and
	// poc_only; nil otherwise.
	PoCPowerMW *float64
	// Dispatch15PowerMW is the upcoming day-ahead 15-minute target
	// (dispatch15_setpoint); informational for the asset.
	Dispatch15PowerMW float64

	// Reserved balancing capacity (magnitudes, MW) held back from the
	// schedule. FCR is symmetric.
	FCRReservedMW     float64
	AFRRReservedPosMW float64
	AFRRReservedNegMW float64
	// AFRRSetpointMW is the TSO's aFRR activation, signed; it moves the
	// battery on top of the schedule within the reserved capacity.
	AFRRSetpointMW float64

	// Power limits (MW, signed bounds); nil is no limit beyond the rated
	// power.
	MaxPowerMW *float64
	MinPowerMW *float64
	// Unavailable is a full unavailability: the asset must not move.
	Unavailable bool
	// Energy limits (MWh): the state-of-charge window the asset must keep
	// to; nil is the asset's whole usable capacity on that side.
	MinEnergyMWh *float64
	MaxEnergyMWh *float64
}

// Validate rejects commands no asset could execute: unknown modes,
// non-finite numbers, negative reservations, crossed power or energy
// limits, a PoC mode without its PoC target.
func (c Command) Validate() error {
	var v errs.Validation
	if c.ControlMode.Code() < 0 {
		v.Add("command.control_mode", "unknown control mode", string(c.ControlMode))
	}
	finite := func(loc string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			v.Add(loc, "must be a finite number", nil)
		}
	}
	finite("command.bess_power_mw", c.BESSPowerMW)
	finite("command.dispatch15_power_mw", c.Dispatch15PowerMW)
	finite("command.afrr_setpoint_mw", c.AFRRSetpointMW)
	reservation := func(loc string, x float64) {
		finite(loc, x)
		if x < 0 {
			v.Add(loc, "must not be negative", x)
		}
	}
	reservation("command.fcr_reserved_mw", c.FCRReservedMW)
	reservation("command.afrr_reserved_pos_mw", c.AFRRReservedPosMW)
	reservation("command.afrr_reserved_neg_mw", c.AFRRReservedNegMW)
	if c.PoCPowerMW != nil {
		finite("command.poc_power_mw", *c.PoCPowerMW)
	}
	if c.MaxPowerMW != nil {
		finite("command.max_power_mw", *c.MaxPowerMW)
	}
	if c.MinPowerMW != nil {
		finite("command.min_power_mw", *c.MinPowerMW)
	}
	if c.MaxPowerMW != nil && c.MinPowerMW != nil && *c.MinPowerMW > *c.MaxPowerMW {
		v.Add("command.min_power_mw", "must not exceed max_power_mw", *c.MinPowerMW)
	}
	if c.MinEnergyMWh != nil {
		finite("command.min_energy_mwh", *c.MinEnergyMWh)
	}
	if c.MaxEnergyMWh != nil {
		finite("command.max_energy_mwh", *c.MaxEnergyMWh)
	}
	if c.MinEnergyMWh != nil && c.MaxEnergyMWh != nil && *c.MinEnergyMWh > *c.MaxEnergyMWh {
		v.Add("command.min_energy_mwh", "must not exceed max_energy_mwh", *c.MinEnergyMWh)
	}
	needsPoC := c.ControlMode == BESSAndPoC || c.ControlMode == PoCOnly
	if needsPoC && c.PoCPowerMW == nil {
		v.Add("command.poc_power_mw", "required by control mode "+string(c.ControlMode), nil)
	}
	return v.Err()
}

// Measurements is one snapshot of every measurement of document 1 "Asset
// state (measurements)", named as there. Integer codes and 0/1 flags are
// numbers like every other value because the state response carries
// numbers. The PV fields are nil unless the asset is pv_active and are then
// left out of the JSON.
type Measurements struct {
	// Timestamp is the instant the snapshot describes (the value timestamp
	// of every point in the state response).
	Timestamp time.Time `json:"-"`

	AssetStatus       float64 `json:"asset_status"`
	OperationalStatus float64 `json:"operational_status"`

	FCRUpperLimit  float64 `json:"fcr_upper_limit"`
	FCRLowerLimit  float64 `json:"fcr_lower_limit"`
	AFRRUpperLimit float64 `json:"afrr_upper_limit"`
	AFRRLowerLimit float64 `json:"afrr_lower_limit"`

	FCRPowerActual      float64 `json:"fcr_power_actual"`
	AFRRPowerActual     float64 `json:"afrr_power_actual"`
	DispatchPowerActual float64 `json:"dispatch_power_actual"`

	FCRPowerSetpoint   float64 `json:"fcr_power_setpoint"`
	AFRRSetpoint       float64 `json:"afrr_setpoint"`
	DispatchSetpoint   float64 `json:"dispatch_setpoint"`
	Dispatch15Setpoint float64 `json:"dispatch15_setpoint"`
	PoCSetpoint        float64 `json:"poc_setpoint"`
	PVPowerSetpoint    float64 `json:"pv_power_setpoint"`

	ControlMode float64 `json:"control_mode"`

	AvailablePowerCharge    float64 `json:"available_power_charge"`
	AvailablePowerDischarge float64 `json:"available_power_discharge"`

	SoCMin float64 `json:"soc_min"`
	SoCMax float64 `json:"soc_max"`

	AvailableDischargeEnergy float64 `json:"available_discharge_energy"`
	AvailableChargeEnergy    float64 `json:"available_charge_energy"`
	// Deprecated aliases of AvailableDischargeEnergy and
	// AvailableChargeEnergy, always equal to them.
	AvailableSoCDischarge float64 `json:"available_soc_discharge"`
	AvailableSoCCharge    float64 `json:"available_soc_charge"`

	PoCPowerActualAC     float64 `json:"poc_power_actual_ac"`
	BatteryPowerActualAC float64 `json:"battery_power_actual_ac"`
	BatteryPowerActualDC float64 `json:"battery_power_actual_dc"`

	GridSwitchStatus float64 `json:"grid_switch_status"`
	RedispatchActive float64 `json:"redispatch_active"`
	RedispatchAmount float64 `json:"redispatch_amount"`
	SelfConsumption  float64 `json:"self_consumption"`
	Frequency        float64 `json:"frequency"`

	IsFCROn      float64 `json:"is_fcr_on"`
	IsAFRROn     float64 `json:"is_afrr_on"`
	IsDispatchOn float64 `json:"is_dispatch_on"`

	ExportCurtailmentDSO float64 `json:"export_curtailment_dso"`
	ImportCurtailmentDSO float64 `json:"import_curtailment_dso"`

	ActualBatteryCycles float64 `json:"actual_battery_cycles"`
	DischargeThroughput float64 `json:"discharge_throughput"`
	ChargeThroughput    float64 `json:"charge_throughput"`

	PVExportCurtailmentDSO    *float64 `json:"pv_export_curtailment_dso,omitempty"`
	PVIrradiance              *float64 `json:"pv_irradiance,omitempty"`
	PVPowerDCActual           *float64 `json:"pv_power_dc_actual,omitempty"`
	PVInverterSelfConsumption *float64 `json:"pv_inverter_self_consumption,omitempty"`
	PVSwitchStatus            *float64 `json:"pv_switch_status,omitempty"`

	LTESignalDevice1    float64 `json:"lte_signal_device_1"`
	LTESignalDevice2    float64 `json:"lte_signal_device_2"`
	LANConnectedDevice1 float64 `json:"lan_connected_device_1"`
	LANConnectedDevice2 float64 `json:"lan_connected_device_2"`
}
