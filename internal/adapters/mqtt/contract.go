package mqtt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"atcp/internal/assets"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/simulator"
)

// The topics under an asset's prefix P.
const (
	commandSuffix      = "/command"
	measurementsSuffix = "/measurements"
	statusSuffix       = "/status"
)

// The payloads of P/status (UTF-8, retained).
const (
	StatusOnline  = "online"
	StatusOffline = "offline"
)

// CommandMessage is the payload of P/command.
type CommandMessage struct {
	// Seq increases with every command the platform sends (see
	// docs/adapters.md); a gateway executes a command only when Seq is
	// above the last one it executed.
	Seq uint64
	// At is the platform second the command is for.
	At time.Time
	// ExpiresAt is the wall-clock instant (UTC, real time) after which
	// the command must not be executed.
	ExpiresAt time.Time
	Command   telemetry.Command
}

// commandWire is CommandMessage on the wire; pointers tell a missing
// member from a zero one.
type commandWire struct {
	Seq       *uint64      `json:"seq"`
	At        *time.Time   `json:"at"`
	ExpiresAt *time.Time   `json:"expires_at"`
	Command   *commandBody `json:"command"`
}

// commandBody is telemetry.Command with the snake_case names of the
// contract. Every member is always sent; a null limit is no limit.
type commandBody struct {
	ControlMode       *string  `json:"control_mode"`
	BESSPowerMW       float64  `json:"bess_power_mw"`
	PoCPowerMW        *float64 `json:"poc_power_mw"`
	Dispatch15PowerMW float64  `json:"dispatch15_power_mw"`
	FCRReservedMW     float64  `json:"fcr_reserved_mw"`
	AFRRReservedPosMW float64  `json:"afrr_reserved_pos_mw"`
	AFRRReservedNegMW float64  `json:"afrr_reserved_neg_mw"`
	AFRRSetpointMW    float64  `json:"afrr_setpoint_mw"`
	MaxPowerMW        *float64 `json:"max_power_mw"`
	MinPowerMW        *float64 `json:"min_power_mw"`
	Unavailable       bool     `json:"unavailable"`
	MinEnergyMWh      *float64 `json:"min_energy_mwh"`
	MaxEnergyMWh      *float64 `json:"max_energy_mwh"`
}

// EncodeCommand renders a command message.
func EncodeCommand(m CommandMessage) ([]byte, error) {
	c := m.Command
	mode := string(c.ControlMode)
	at, expires := m.At.UTC(), m.ExpiresAt.UTC()
	return json.Marshal(commandWire{
		Seq: &m.Seq, At: &at, ExpiresAt: &expires,
		Command: &commandBody{
			ControlMode: &mode, BESSPowerMW: c.BESSPowerMW, PoCPowerMW: c.PoCPowerMW, Dispatch15PowerMW: c.Dispatch15PowerMW,
			FCRReservedMW: c.FCRReservedMW, AFRRReservedPosMW: c.AFRRReservedPosMW, AFRRReservedNegMW: c.AFRRReservedNegMW,
			AFRRSetpointMW: c.AFRRSetpointMW, MaxPowerMW: c.MaxPowerMW, MinPowerMW: c.MinPowerMW, Unavailable: c.Unavailable,
			MinEnergyMWh: c.MinEnergyMWh, MaxEnergyMWh: c.MaxEnergyMWh,
		},
	})
}

// ParseCommand reads a command message. Unknown members are refused: a
// gateway that ignored a setpoint it does not know could break a limit.
func ParseCommand(payload []byte) (CommandMessage, error) {
	var w commandWire
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := decodeOne(dec, &w); err != nil {
		return CommandMessage{}, fmt.Errorf("command: %w", err)
	}
	switch {
	case w.Seq == nil || *w.Seq == 0:
		return CommandMessage{}, errors.New("command: seq must be a positive integer")
	case w.At == nil:
		return CommandMessage{}, errors.New("command: at is required")
	case w.ExpiresAt == nil:
		return CommandMessage{}, errors.New("command: expires_at is required")
	case w.Command == nil || w.Command.ControlMode == nil:
		return CommandMessage{}, errors.New("command: command.control_mode is required")
	case !inRange(*w.At) || !inRange(*w.ExpiresAt):
		return CommandMessage{}, errors.New("command: at and expires_at must lie in the years 2000 to 9999")
	}
	b := w.Command
	c := telemetry.Command{
		ControlMode: telemetry.ControlMode(*b.ControlMode), BESSPowerMW: b.BESSPowerMW, PoCPowerMW: b.PoCPowerMW,
		Dispatch15PowerMW: b.Dispatch15PowerMW, FCRReservedMW: b.FCRReservedMW, AFRRReservedPosMW: b.AFRRReservedPosMW,
		AFRRReservedNegMW: b.AFRRReservedNegMW, AFRRSetpointMW: b.AFRRSetpointMW, MaxPowerMW: b.MaxPowerMW,
		MinPowerMW: b.MinPowerMW, Unavailable: b.Unavailable, MinEnergyMWh: b.MinEnergyMWh, MaxEnergyMWh: b.MaxEnergyMWh,
	}
	if err := c.Validate(); err != nil {
		return CommandMessage{}, fmt.Errorf("command: %w", err)
	}
	return CommandMessage{Seq: *w.Seq, At: w.At.UTC(), ExpiresAt: w.ExpiresAt.UTC(), Command: c}, nil
}

// inRange reports whether t lies in the instants the platform accepts
// anywhere (assets.EarliestInstant to assets.InstantsBefore): an offset
// can move a four-digit year out of what RFC 3339 can express again.
func inRange(t time.Time) bool {
	return !t.Before(assets.EarliestInstant) && t.Before(assets.InstantsBefore)
}

// decodeOne decodes exactly one JSON value: trailing data is malformed.
func decodeOne(dec *json.Decoder, v any) error {
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// measurementsWire is the payload of P/measurements: at, every point of
// document 1 under its name and, from atcp edge, the sequence number of
// the command last executed (optional, informational).
type measurementsWire struct {
	At         time.Time `json:"at"`
	CommandSeq uint64    `json:"command_seq,omitempty"`
	telemetry.Measurements
}

// EncodeMeasurements renders a measurement message for m.Timestamp.
func EncodeMeasurements(m telemetry.Measurements, commandSeq uint64) ([]byte, error) {
	return json.Marshal(measurementsWire{At: m.Timestamp.UTC(), CommandSeq: commandSeq, Measurements: m})
}

// The reasons a measurement message is refused (the reason label of
// atcp_mqtt_measurements_refused_total).
const (
	ReasonMalformed    = "malformed"     // not one JSON object, or no valid at
	ReasonUnknownAsset = "unknown_asset" // no attached asset has the topic's prefix
	ReasonMissing      = "missing_point" // a point of document 1 is absent
	ReasonNotANumber   = "not_a_number"  // a point is not a finite JSON number
	ReasonOutOfRange   = "out_of_range"  // a point is outside its range (Bounds)
)

// Refusal is why a measurement message was refused.
type Refusal struct {
	Reason string
	Detail string
}

func (r *Refusal) Error() string { return r.Reason + ": " + r.Detail }

func refuse(reason, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// Bounds are the asset-dependent ranges of measurements.
type Bounds struct {
	// PowerMW bounds the magnitude of every power.
	PowerMW float64
	// EnergyMWh bounds the energy window and available energies.
	EnergyMWh float64
	// PVActive keeps the PV points; without it they are ignored.
	PVActive bool
}

// BoundsFor returns the ranges of an asset: ten times its rated power
// (the largest of battery, grid connection and PV, at least 1 MW) and ten
// times its usable energy (at least 1 MWh). A tenfold margin refuses unit
// mistakes (kW sent as MW) and garbage without second-guessing a meter.
func BoundsFor(c simulator.Config) Bounds {
	return Bounds{
		PowerMW:   10 * max(c.PowerCapacityMW, c.GridConnectionMW, c.PVPeakMW, 1),
		EnergyMWh: 10 * max(c.EnergyCapacityMWh, 1),
		PVActive:  c.PVActive,
	}
}

// rule says whether a value is in range for an asset.
type rule func(x float64, b Bounds) bool

func between(lo, hi float64) rule {
	return func(x float64, _ Bounds) bool { return x >= lo && x <= hi }
}

func oneOf(codes ...float64) rule {
	return func(x float64, _ Bounds) bool {
		for _, c := range codes {
			if x == c {
				return true
			}
		}
		return false
	}
}

var (
	flag01  = oneOf(0, 1)
	power   = rule(func(x float64, b Bounds) bool { return math.Abs(x) <= b.PowerMW })
	energy  = rule(func(x float64, b Bounds) bool { return x >= 0 && x <= b.EnergyMWh })
	counter = rule(func(x float64, _ Bounds) bool { return x >= 0 })
	percent = between(0, 100)
)

// rules holds the range of every point of document 1 (docs/adapters.md
// lists them). asset_status and operational_status are atcp's codes
// (1 tradeable, 0 not), control_mode the codes of telemetry.ControlMode.
var rules = map[string]rule{
	"asset_status": flag01, "operational_status": flag01,
	"fcr_upper_limit": power, "fcr_lower_limit": power, "afrr_upper_limit": power, "afrr_lower_limit": power,
	"fcr_power_actual": power, "afrr_power_actual": power, "dispatch_power_actual": power,
	"fcr_power_setpoint": power, "afrr_setpoint": power, "dispatch_setpoint": power, "dispatch15_setpoint": power,
	"poc_setpoint": power, "pv_power_setpoint": power,
	"control_mode":           oneOf(0, 1, 2, 3),
	"available_power_charge": power, "available_power_discharge": power,
	"soc_min": energy, "soc_max": energy, "available_discharge_energy": energy, "available_charge_energy": energy,
	"poc_power_actual_ac": power, "battery_power_actual_ac": power, "battery_power_actual_dc": power,
	"grid_switch_status": flag01, "redispatch_active": flag01, "redispatch_amount": power, "self_consumption": power,
	"frequency": between(45, 55),
	"is_fcr_on": flag01, "is_afrr_on": flag01, "is_dispatch_on": flag01,
	"export_curtailment_dso": percent, "import_curtailment_dso": percent,
	"actual_battery_cycles": counter, "discharge_throughput": counter, "charge_throughput": counter,
	"pv_export_curtailment_dso": percent, "pv_irradiance": between(0, 2000), "pv_power_dc_actual": power,
	"pv_inverter_self_consumption": power, "pv_switch_status": flag01,
	"lte_signal_device_1": between(-150, 0), "lte_signal_device_2": between(-150, 0),
	"lan_connected_device_1": flag01, "lan_connected_device_2": flag01,
}

// pvPoints are the points present only for pv_active assets.
var pvPoints = map[string]bool{
	"pv_export_curtailment_dso": true, "pv_irradiance": true, "pv_power_dc_actual": true,
	"pv_inverter_self_consumption": true, "pv_switch_status": true,
}

var pointNames = telemetry.PointNames()

// ParseMeasurements reads a measurement message and checks every point
// against its range. Members other than at and the points (the deprecated
// aliases, command_seq, extensions) are ignored; the aliases are derived
// from their points.
func ParseMeasurements(payload []byte, b Bounds) (telemetry.Measurements, *Refusal) {
	m, _, r := parseMeasurements(payload, b)
	return m, r
}

// parseMeasurements is ParseMeasurements that also returns the optional
// command_seq (0 when absent or not a positive integer): only the
// adapter's latency metric uses it, so it never refuses a message.
func parseMeasurements(payload []byte, b Bounds) (telemetry.Measurements, uint64, *Refusal) {
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := decodeOne(dec, &raw); err != nil || raw == nil {
		return telemetry.Measurements{}, 0, refuse(ReasonMalformed, "not a JSON object")
	}
	s, ok := raw["at"].(string)
	if !ok {
		return telemetry.Measurements{}, 0, refuse(ReasonMalformed, "at must be an RFC 3339 instant")
	}
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !inRange(at) {
		return telemetry.Measurements{}, 0, refuse(ReasonMalformed, "at must be an RFC 3339 instant from the year 2000")
	}
	values := make([]float64, len(pointNames))
	for i, name := range pointNames {
		v, present := raw[name]
		if pvPoints[name] && (!b.PVActive || !present) {
			values[i] = math.NaN()
			continue
		}
		if !present {
			return telemetry.Measurements{}, 0, refuse(ReasonMissing, "%s is missing", name)
		}
		n, ok := v.(json.Number)
		if !ok {
			return telemetry.Measurements{}, 0, refuse(ReasonNotANumber, "%s is not a number", name)
		}
		x, err := n.Float64()
		if err != nil || math.IsInf(x, 0) {
			return telemetry.Measurements{}, 0, refuse(ReasonNotANumber, "%s is not a finite number", name)
		}
		if !rules[name](x, b) {
			return telemetry.Measurements{}, 0, refuse(ReasonOutOfRange, "%s %v is out of range", name, x)
		}
		values[i] = x
	}
	var seq uint64
	if n, ok := raw["command_seq"].(json.Number); ok {
		// Not an unsigned integer (negative, fractional, too large): none.
		seq, _ = strconv.ParseUint(n.String(), 10, 64)
	}
	return telemetry.MeasurementsFromValues(at.UTC(), values), seq, nil
}

// filterFor is the wildcard subscription that covers prefix p's topics
// with the given suffix: p's last level becomes +, so every asset under
// the same parent (atcp/+ by default) shares one subscription.
func filterFor(p, suffix string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i] + "/+" + suffix
	}
	return "+" + suffix
}
