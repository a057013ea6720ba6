package dpl

import "slices"

// Direction says whether the platform reads a point, writes it, or both.
type Direction string

// The directions.
const (
	Read      Direction = "read"
	Write     Direction = "write"
	ReadWrite Direction = "read_write"
)

// Includes reports whether a row of direction d serves a point of
// direction want: read_write serves both.
func (d Direction) Includes(want Direction) bool { return d == want || d == ReadWrite }

// Point is a canonical telemetry point of a template.
type Point struct {
	Name        string    `json:"point_name"`
	Description string    `json:"description"`
	Unit        string    `json:"unit"`
	Direction   Direction `json:"direction"`
	Required    bool      `json:"required"`
	// Measurement is the telemetry measurement (telemetry.PointNames)
	// the communication test reads for the point; "" when none carries
	// it, and for write points.
	Measurement string `json:"-"`
}

// The templates.
const (
	FullControlTemplate    = "fc_v1"
	MonitoringOnlyTemplate = "mon_v1"
)

// TemplatePoints returns the points of a template in their order, nil for
// an unknown template; a fresh copy each call.
func TemplatePoints(templateID string) []Point {
	all := []Point{
		{"bess_power_mw", "Active power of the battery at the AC side, positive discharging", "MW", Read, true, "battery_power_actual_ac"},
		{"soc", "State of charge", "percent", Read, true, ""},
		{"bess_power_setpoint_mw", "Active power setpoint of the battery, positive discharging", "MW", Write, true, ""},
		{"grid_power_mw", "Active power at the point of connection, positive export", "MW", Read, true, "poc_power_actual_ac"},
		{"available_charge_energy", "Energy the battery can still take", "MWh", Read, true, "available_charge_energy"},
		{"available_discharge_energy", "Energy the battery can still deliver", "MWh", Read, true, "available_discharge_energy"},
		{"frequency_hz", "Grid frequency measured on site", "Hz", Read, true, "frequency"},
		{"lan_connected_device_1", "The site gateway's LAN link is up", "bool", Read, true, "lan_connected_device_1"},
		{"available_power_charge_mw", "Charging power available now", "MW", Read, false, "available_power_charge"},
		{"available_power_discharge_mw", "Discharging power available now", "MW", Read, false, "available_power_discharge"},
		{"grid_switch_status", "The grid switch is closed", "bool", Read, false, "grid_switch_status"},
		{"lte_signal_device_1", "LTE signal quality of the site gateway", "none", Read, false, "lte_signal_device_1"},
	}
	switch templateID {
	case FullControlTemplate:
		return all
	case MonitoringOnlyTemplate:
		return slices.DeleteFunc(all, func(p Point) bool { return p.Direction != Read })
	}
	return nil
}

// FindPoint returns the point named name.
func FindPoint(points []Point, name string) (Point, bool) {
	for _, p := range points {
		if p.Name == name {
			return p, true
		}
	}
	return Point{}, false
}

// MissingPoints lists, in template order, the required points no row
// names: the DPL gate's dpl.<point_name> requirements.
func MissingPoints(rows []Row, points []Point) []string {
	var out []string
	for _, p := range points {
		if p.Required && !slices.ContainsFunc(rows, func(r Row) bool { return r.PointName == p.Name }) {
			out = append(out, p.Name)
		}
	}
	return out
}
