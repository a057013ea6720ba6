package dpl

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"atcp/internal/errs"
	"atcp/internal/textrule"
)

// Row is one line of a data-point list. ID is the store's (row_id), empty
// for a row not stored yet.
type Row struct {
	ID          string
	PointName   string
	Description string
	Protocol    string
	Address     string
	DataType    string
	Unit        string
	Scale       float64 // engineering value = raw × Scale + Offset; never 0
	Offset      float64
	Direction   Direction
	Notes       string
}

// NewRow is a row with the defaults of an absent scale (1) and offset (0).
func NewRow() Row { return Row{Scale: 1} }

// The protocols, data types and units a row may name.
var (
	Protocols = []string{"iec104", "modbus_tcp", "opcua", "mqtt"}
	DataTypes = []string{"bool", "int16", "uint16", "int32", "uint32", "float32", "float64"}
	Units     = []string{"MW", "kW", "MWh", "kWh", "percent", "Hz", "V", "kV", "A", "degC", "bool", "none"}
)

// Lengths, in characters.
const (
	MaxDescriptionLength = 200
	MaxNotesLength       = 1000
	MaxAddressLength     = 200
)

// FieldError is one refused member of a row or cell of an import.
type FieldError struct {
	Location string
	Code     errs.Code
	Message  string
	Value    any
}

// Err is the 422 validation_failed of field errors, nil for none.
func Err(fes []FieldError) error {
	var v errs.Validation
	for _, fe := range fes {
		v.Add(fe.Location, fe.Message, fe.Value)
	}
	return v.Err()
}

var (
	customName = regexp.MustCompile(`^x_[a-z0-9_]{1,60}$`)
	iec104Addr = regexp.MustCompile(`^ca:([0-9]{1,5})/ioa:([0-9]{1,8})$`)
	modbusAddr = regexp.MustCompile(`^([0-9]{1,3}):(hr|ir|co|di):([0-9]{1,5})$`)
	opcuaAddr  = regexp.MustCompile(`^(ns=[0-9]{1,5};)?(i=[0-9]{1,10}|s=.+|g=[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|b=[A-Za-z0-9+/]+={0,2})$`)
)

// unitClass groups the units one converts into another; a unit outside
// every group converts only into itself.
var unitClass = map[string]string{"MW": "power", "kW": "power", "MWh": "energy", "kWh": "energy", "V": "voltage", "kV": "voltage"}

// Convertible reports whether a value in unit from converts into unit to.
func Convertible(from, to string) bool {
	return from == to || (unitClass[from] != "" && unitClass[from] == unitClass[to])
}

// Validate checks a row against the template's points and returns it
// normalised (address numbers without leading zeros), with every problem
// at loc(member): "body.address", "csv.row[7].address".
func Validate(r Row, points []Point, loc func(member string) string) (Row, []FieldError) {
	var out []FieldError
	bad := func(member, msg string, value any) {
		out = append(out, FieldError{loc(member), CodeInvalidValue, msg, value})
	}
	p, template := FindPoint(points, r.PointName)
	switch {
	case r.PointName == "":
		bad("point_name", "required", nil)
	case !template && !customName.MatchString(r.PointName):
		bad("point_name", "must be a point of the template or a custom name x_[a-z0-9_]{1,60}", r.PointName)
	}
	if utf8.RuneCountInString(r.Description) > MaxDescriptionLength {
		bad("description", fmt.Sprintf("must be at most %d characters", MaxDescriptionLength), r.Description)
	} else if !textrule.Name(r.Description) {
		bad("description", textrule.NameMessage, r.Description)
	}
	if utf8.RuneCountInString(r.Notes) > MaxNotesLength {
		bad("notes", fmt.Sprintf("must be at most %d characters", MaxNotesLength), r.Notes)
	} else if !textrule.Text(r.Notes) {
		bad("notes", textrule.TextMessage, r.Notes)
	}
	if !slices.Contains(Protocols, r.Protocol) {
		bad("protocol", "must be one of "+strings.Join(Protocols, ", "), r.Protocol)
	} else if addr, msg := normalizeAddress(r.Protocol, r.Address); msg != "" {
		bad("address", msg, r.Address)
	} else {
		r.Address = addr
	}
	if !slices.Contains(DataTypes, r.DataType) {
		bad("data_type", "must be one of "+strings.Join(DataTypes, ", "), r.DataType)
	} else if r.Protocol == "modbus_tcp" && bitTable(r.Address) && r.DataType != "bool" {
		bad("data_type", "a Modbus coil or discrete input holds one bit: must be bool", r.DataType)
	}
	switch {
	case !slices.Contains(Units, r.Unit):
		bad("unit", "must be one of "+strings.Join(Units, ", "), r.Unit)
	case template && !Convertible(r.Unit, p.Unit):
		bad("unit", fmt.Sprintf("must convert into the point's unit %s", p.Unit), r.Unit)
	}
	switch {
	case math.IsNaN(r.Scale) || math.IsInf(r.Scale, 0) || r.Scale == 0:
		bad("scale", "must be a finite number other than 0", r.Scale)
	case math.IsNaN(r.Offset) || math.IsInf(r.Offset, 0):
		bad("offset", "must be a finite number", r.Offset)
	}
	switch {
	case r.Direction != Read && r.Direction != Write && r.Direction != ReadWrite:
		bad("direction", "must be read, write or read_write", string(r.Direction))
	case template && !r.Direction.Includes(p.Direction):
		bad("direction", fmt.Sprintf("the point is %s: the row must include it", p.Direction), string(r.Direction))
	case r.Protocol == "modbus_tcp" && readOnlyTable(r.Address) && r.Direction != Read:
		bad("direction", "Modbus input registers and discrete inputs can only be read", string(r.Direction))
	}
	return r, out
}

// normalizeAddress checks address against the protocol's grammar and
// returns its canonical form, or why it is refused.
func normalizeAddress(protocol, address string) (string, string) {
	switch {
	case address == "":
		return "", "required"
	case utf8.RuneCountInString(address) > MaxAddressLength:
		return "", fmt.Sprintf("must be at most %d characters", MaxAddressLength)
	case !textrule.Name(address):
		return "", textrule.NameMessage
	}
	switch protocol {
	case "iec104":
		m := iec104Addr.FindStringSubmatch(address)
		if m == nil || atoi(m[1]) > 65535 || atoi(m[2]) > 16777215 {
			return "", "must be ca:<0-65535>/ioa:<0-16777215>"
		}
		return fmt.Sprintf("ca:%d/ioa:%d", atoi(m[1]), atoi(m[2])), ""
	case "modbus_tcp":
		m := modbusAddr.FindStringSubmatch(address)
		if m == nil || atoi(m[1]) > 255 || atoi(m[3]) > 65535 {
			return "", "must be <unit 0-255>:<hr|ir|co|di>:<register 0-65535>"
		}
		return fmt.Sprintf("%d:%s:%d", atoi(m[1]), m[2], atoi(m[3])), ""
	case "opcua":
		if !opcuaAddr.MatchString(address) {
			return "", "must be an OPC UA NodeId such as ns=2;s=Battery.Power (i=, s=, g= or b=)"
		}
	case "mqtt":
		if strings.ContainsAny(address, "+#") || strings.Contains(address, " ") {
			return "", "must be an MQTT topic without wildcards (+, #) or spaces"
		}
	}
	return address, ""
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// bitTable and readOnlyTable tell a Modbus address's table.
func bitTable(address string) bool {
	return strings.Contains(address, ":co:") || strings.Contains(address, ":di:")
}

func readOnlyTable(address string) bool {
	return strings.Contains(address, ":ir:") || strings.Contains(address, ":di:")
}

// Clash is the 409 of a row whose point or protocol and address another
// row of existing has (rows with r's ID excepted: a row does not clash
// with its own stored version), nil when it has none.
func Clash(existing []Row, r Row) error {
	for _, o := range existing {
		switch {
		case r.ID != "" && o.ID == r.ID:
		case o.PointName == r.PointName:
			return errs.Conflictf(CodePointExists, "the data-point list already has a row for %s", r.PointName)
		case o.Protocol == r.Protocol && o.Address == r.Address:
			return errs.Conflictf(CodeAddressInUse, "%s address %s is already used by %s", r.Protocol, r.Address, o.PointName)
		}
	}
	return nil
}

// Duplicates reports every row of rows that repeats an earlier row's point
// name or protocol and address, at loc(i, member) of the later one.
func Duplicates(rows []Row, loc func(i int, member string) string) []FieldError {
	var out []FieldError
	names := map[string]int{}
	addrs := map[[2]string]int{}
	for i, r := range rows {
		if j, ok := names[r.PointName]; ok {
			out = append(out, FieldError{loc(i, "point_name"), CodePointExists, fmt.Sprintf("repeats the point of %s", loc(j, "point_name")), r.PointName})
		} else {
			names[r.PointName] = i
		}
		k := [2]string{r.Protocol, r.Address}
		if j, ok := addrs[k]; ok {
			out = append(out, FieldError{loc(i, "address"), CodeAddressInUse, fmt.Sprintf("repeats the %s address of %s", r.Protocol, loc(j, "address")), r.Address})
		} else {
			addrs[k] = i
		}
	}
	return out
}

// Order sorts rows as lists and exports show them: template points in
// template order, then custom points by name.
func Order(rows []Row, points []Point) {
	rank := func(r Row) int {
		if i := slices.IndexFunc(points, func(p Point) bool { return p.Name == r.PointName }); i >= 0 {
			return i
		}
		return len(points)
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.PointName, b.PointName)
	})
}
