package dpl_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/onboarding/dpl"
	"atcp/internal/telemetry"
)

var fc = dpl.TemplatePoints(dpl.FullControlTemplate)

func row(name, protocol, address, dataType, unit string, dir dpl.Direction) dpl.Row {
	r := dpl.NewRow()
	r.PointName, r.Protocol, r.Address, r.DataType, r.Unit, r.Direction = name, protocol, address, dataType, unit, dir
	return r
}

func body(member string) string { return "body." + member }

func TestTemplatePoints(t *testing.T) {
	mon := dpl.TemplatePoints(dpl.MonitoringOnlyTemplate)
	if dpl.TemplatePoints("v0") != nil || len(fc) != len(mon)+1 {
		t.Fatalf("fc %d, mon %d", len(fc), len(mon))
	}
	if _, ok := dpl.FindPoint(mon, "bess_power_setpoint_mw"); ok {
		t.Fatal("monitoring only has a setpoint")
	}
	for _, name := range []string{"bess_power_mw", "soc", "grid_power_mw", "available_charge_energy", "available_discharge_energy", "frequency_hz", "lan_connected_device_1"} {
		if p, ok := dpl.FindPoint(mon, name); !ok || !p.Required || p.Direction != dpl.Read {
			t.Fatalf("mon_v1 %s: %+v", name, p)
		}
	}
	// Every measurement a point names is one the telemetry stores.
	for _, p := range fc {
		if p.Measurement != "" && !slices.Contains(telemetry.PointNames(), p.Measurement) {
			t.Fatalf("%s reads %q, not a telemetry point", p.Name, p.Measurement)
		}
		if !slices.Contains(dpl.Units, p.Unit) {
			t.Fatalf("%s: unit %q", p.Name, p.Unit)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := row("bess_power_mw", "iec104", "ca:1/ioa:100", "float32", "MW", dpl.Read)
	for _, c := range []struct {
		name   string
		change func(*dpl.Row)
		bad    string // the member refused, "" valid
	}{
		{"valid", func(*dpl.Row) {}, ""},
		{"kW converts to MW", func(r *dpl.Row) { r.Unit = "kW" }, ""},
		{"read_write includes read", func(r *dpl.Row) { r.Direction = dpl.ReadWrite }, ""},
		{"custom point, any unit", func(r *dpl.Row) { r.PointName, r.Unit = "x_cell_temp_max", "degC" }, ""},
		{"no name", func(r *dpl.Row) { r.PointName = "" }, "point_name"},
		{"unknown name", func(r *dpl.Row) { r.PointName = "cell_temp" }, "point_name"},
		{"custom too long", func(r *dpl.Row) { r.PointName = "x_" + strings.Repeat("a", 61) }, "point_name"},
		{"custom upper case", func(r *dpl.Row) { r.PointName = "x_Temp" }, "point_name"},
		{"unit not convertible", func(r *dpl.Row) { r.Unit = "MWh" }, "unit"},
		{"unknown unit", func(r *dpl.Row) { r.Unit = "GW" }, "unit"},
		{"direction excluded", func(r *dpl.Row) { r.Direction = dpl.Write }, "direction"},
		{"unknown direction", func(r *dpl.Row) { r.Direction = "both" }, "direction"},
		{"scale 0", func(r *dpl.Row) { r.Scale = 0 }, "scale"},
		{"data type", func(r *dpl.Row) { r.DataType = "int64" }, "data_type"},
		{"protocol", func(r *dpl.Row) { r.Protocol = "dnp3" }, "protocol"},
		{"iec104 range", func(r *dpl.Row) { r.Address = "ca:65536/ioa:1" }, "address"},
		{"iec104 ioa range", func(r *dpl.Row) { r.Address = "ca:1/ioa:16777216" }, "address"},
		{"iec104 grammar", func(r *dpl.Row) { r.Address = "1/100" }, "address"},
		{"empty address", func(r *dpl.Row) { r.Address = "" }, "address"},
		{"modbus", func(r *dpl.Row) { r.Protocol, r.Address = "modbus_tcp", "1:hr:40001" }, ""},
		{"modbus unit range", func(r *dpl.Row) { r.Protocol, r.Address = "modbus_tcp", "256:hr:1" }, "address"},
		{"modbus table", func(r *dpl.Row) { r.Protocol, r.Address = "modbus_tcp", "1:xx:1" }, "address"},
		{"modbus coil holds a bit", func(r *dpl.Row) { r.Protocol, r.Address = "modbus_tcp", "1:co:1" }, "data_type"},
		{"modbus input read only", func(r *dpl.Row) { r.Protocol, r.Address, r.Direction = "modbus_tcp", "1:ir:1", dpl.ReadWrite }, "direction"},
		{"opcua", func(r *dpl.Row) { r.Protocol, r.Address = "opcua", "ns=2;s=Battery.Power" }, ""},
		{"opcua numeric", func(r *dpl.Row) { r.Protocol, r.Address = "opcua", "i=2258" }, ""},
		{"opcua grammar", func(r *dpl.Row) { r.Protocol, r.Address = "opcua", "Battery.Power" }, "address"},
		{"mqtt", func(r *dpl.Row) { r.Protocol, r.Address = "mqtt", "site/bess/power" }, ""},
		{"mqtt wildcard", func(r *dpl.Row) { r.Protocol, r.Address = "mqtt", "site/+/power" }, "address"},
		{"address control character", func(r *dpl.Row) { r.Protocol, r.Address = "mqtt", "a\x00b" }, "address"},
		{"description too long", func(r *dpl.Row) { r.Description = strings.Repeat("d", 201) }, "description"},
		{"description line break", func(r *dpl.Row) { r.Description = "a\nb" }, "description"},
		{"notes line break", func(r *dpl.Row) { r.Notes = "a\nb" }, ""},
		{"notes too long", func(r *dpl.Row) { r.Notes = strings.Repeat("n", 1001) }, "notes"},
	} {
		r := ok
		c.change(&r)
		_, fes := dpl.Validate(r, fc, body)
		switch {
		case c.bad == "" && len(fes) != 0:
			t.Errorf("%s: %+v", c.name, fes)
		case c.bad != "" && (len(fes) != 1 || fes[0].Location != "body."+c.bad || fes[0].Code != "invalid_value"):
			t.Errorf("%s: %+v, want one error at body.%s", c.name, fes, c.bad)
		}
	}
	// Addresses are normalised, so that uniqueness compares like with like.
	r := row("soc", "iec104", "ca:01/ioa:0100", "float32", "percent", dpl.Read)
	if got, _ := dpl.Validate(r, fc, body); got.Address != "ca:1/ioa:100" {
		t.Fatalf("normalised %q", got.Address)
	}
}

func TestUniqueness(t *testing.T) {
	a := row("bess_power_mw", "iec104", "ca:1/ioa:1", "float32", "MW", dpl.Read)
	a.ID = "r1"
	b := row("soc", "iec104", "ca:1/ioa:2", "float32", "percent", dpl.Read)
	b.ID = "r2"
	existing := []dpl.Row{a, b}
	c := row("soc", "iec104", "ca:1/ioa:3", "float32", "percent", dpl.Read)
	if err := dpl.Clash(existing, c); !errs.Is(err, errs.Conflict) || err.(*errs.Error).Code != "dpl_point_exists" {
		t.Fatalf("same point: %v", err)
	}
	c = row("grid_power_mw", "iec104", "ca:1/ioa:2", "float32", "MW", dpl.Read)
	if err := dpl.Clash(existing, c); err == nil || err.(*errs.Error).Code != "dpl_address_in_use" {
		t.Fatalf("same address: %v", err)
	}
	c.Protocol = "mqtt"
	if err := dpl.Clash(existing, c); err != nil {
		t.Fatalf("another protocol: %v", err)
	}
	// A row does not clash with its own stored version.
	b.Description = "changed"
	if err := dpl.Clash(existing, b); err != nil {
		t.Fatalf("own row: %v", err)
	}
	fes := dpl.Duplicates([]dpl.Row{a, b, a}, func(i int, m string) string { return fmt.Sprintf("r%d.%s", i, m) })
	if len(fes) != 2 || fes[0].Location != "r2.point_name" || fes[1].Location != "r2.address" {
		t.Fatalf("duplicates %+v", fes)
	}
}

func TestMissingPoints(t *testing.T) {
	rows := []dpl.Row{row("soc", "iec104", "ca:1/ioa:2", "float32", "percent", dpl.Read)}
	got := dpl.MissingPoints(rows, dpl.TemplatePoints(dpl.MonitoringOnlyTemplate))
	if want := []string{"bess_power_mw", "grid_power_mw", "available_charge_energy", "available_discharge_energy", "frequency_hz", "lan_connected_device_1"}; !slices.Equal(got, want) {
		t.Fatalf("missing %v", got)
	}
}

// list is a complete full_control list plus two custom points.
func list() []dpl.Row {
	var rows []dpl.Row
	for i, p := range fc {
		dir := p.Direction
		if dir == dpl.Write {
			dir = dpl.ReadWrite
		}
		r := row(p.Name, "iec104", fmt.Sprintf("ca:1/ioa:%d", 100+i), "float32", p.Unit, dir)
		r.ID = fmt.Sprintf("id-%d", i)
		rows = append(rows, r)
	}
	x := row("x_cell_temp_max", "modbus_tcp", "1:hr:40001", "int16", "degC", dpl.Read)
	x.ID, x.Scale, x.Offset, x.Description, x.Notes = "id-x", 0.1, -40, `Hottest cell, "max", °C`, "line one\nline two, with a comma"
	y := row("x_aux_power", "opcua", "ns=2;s=Aux,Power", "float64", "kW", dpl.Read)
	y.ID, y.Scale = "id-y", 1e-3
	return append(rows, y, x)
}

func TestCSVRoundTrip(t *testing.T) {
	rows := list()
	out := dpl.Export(rows, fc)
	if !bytes.HasPrefix(out, []byte("\xef\xbb\xbfpoint_name,description,protocol,address,data_type,unit,scale,offset,direction,notes\r\n")) &&
		!bytes.HasPrefix(out, []byte("\xef\xbb\xbfpoint_name,description,protocol,address,data_type,unit,scale,offset,direction,notes\n")) {
		t.Fatalf("header %q", out[:120])
	}
	// Template order, then custom points by name.
	lines := strings.Split(string(out), "\n")
	if !strings.HasPrefix(lines[1], "bess_power_mw,") || !strings.HasPrefix(lines[len(fc)+1], "x_aux_power,") {
		t.Fatalf("order:\n%s", out)
	}
	imported, fes := dpl.Import(out, fc)
	if fes != nil {
		t.Fatal(fes)
	}
	res, fes := dpl.MergeRows(rows, imported, dpl.Replace, fc)
	if fes != nil {
		t.Fatal(fes)
	}
	want := slices.Clone(rows)
	dpl.Order(want, fc)
	if len(res.Created)+len(res.Updated)+len(res.Deleted) != 0 || !reflect.DeepEqual(res.Rows, want) {
		t.Fatalf("export -> import(replace) is not the identity: %+v", res)
	}
	if again := dpl.Export(res.Rows, fc); !bytes.Equal(again, out) {
		t.Fatal("a second export differs")
	}
}

func TestImport(t *testing.T) {
	const header = "point_name,description,protocol,address,data_type,unit,scale,offset,direction,notes\n"
	// Columns in any order, optional ones left out, no BOM.
	rows, fes := dpl.Import([]byte("direction,unit,data_type,address,protocol,point_name\nread,kW,float32,ca:1/ioa:1,iec104,bess_power_mw\n"), fc)
	if fes != nil || len(rows) != 1 || rows[0].Unit != "kW" || rows[0].Scale != 1 || rows[0].Offset != 0 {
		t.Fatalf("%+v %+v", rows, fes)
	}
	for _, c := range []struct {
		name, csv string
		want      []string // locations
		code      errs.Code
	}{
		{"unknown column", "point_name,protocol,address,data_type,unit,direction,colour\n", []string{"csv.header.colour"}, "unknown_column"},
		{"column twice", "point_name,protocol,address,data_type,unit,direction,unit\n", []string{"csv.header.unit"}, "unknown_column"},
		{"missing column", "point_name,protocol,data_type,unit,direction\n", []string{"csv.header.address"}, "missing_column"},
		{"empty", "", []string{"csv"}, "invalid_value"},
		{"bad cells", header + "bess_power_mw,,iec104,ca:1/ioa:1,float32,MW,1,0,read,\nsoc,,iec104,nowhere,float32,percent,zero,0,read,\n",
			[]string{"csv.row[3].scale", "csv.row[3].address"}, "invalid_value"},
		{"ragged row", header + "soc,,iec104\n", []string{"csv.row[2]"}, "invalid_value"},
		{"bad quote", header + "soc,\"unclosed,iec104,ca:1/ioa:1,float32,percent,1,0,read,\n", []string{"csv.row[2]"}, "invalid_value"},
		{"duplicates", header + "soc,,iec104,ca:1/ioa:1,float32,percent,1,0,read,\nsoc,,iec104,ca:1/ioa:1,float32,percent,1,0,read,\n",
			[]string{"csv.row[3].point_name", "csv.row[3].address"}, "dpl_point_exists"},
		{"not utf-8", header + "soc,\xff,iec104,ca:1/ioa:1,float32,percent,1,0,read,\n", []string{"csv"}, "invalid_value"},
	} {
		rows, fes := dpl.Import([]byte(c.csv), fc)
		var locs []string
		for _, fe := range fes {
			locs = append(locs, fe.Location)
		}
		if rows != nil || !slices.Equal(locs, c.want) || fes[0].Code != c.code {
			t.Errorf("%s: %v %+v, want %v %s", c.name, rows, fes, c.want, c.code)
		}
	}
	// At most 100 errors, the last saying how many more there were.
	var b strings.Builder
	b.WriteString(header)
	for i := range 150 {
		fmt.Fprintf(&b, "x_p%d,,iec104,bad,float32,none,1,0,read,\n", i)
	}
	_, fes = dpl.Import([]byte(b.String()), fc)
	if len(fes) != dpl.MaxImportErrors || fes[99].Location != "csv" || !strings.Contains(fes[99].Message, "51 more") {
		t.Fatalf("%d errors, last %+v", len(fes), fes[len(fes)-1])
	}
	// At most 2,000 rows.
	b.Reset()
	b.WriteString(header)
	for i := range dpl.MaxImportRows + 1 {
		fmt.Fprintf(&b, "x_p%d,,mqtt,t/%d,float32,none,1,0,read,\n", i, i)
	}
	if _, fes = dpl.Import([]byte(b.String()), fc); len(fes) != 1 || !strings.Contains(fes[0].Message, "2000 rows") {
		t.Fatalf("too many rows: %+v", fes)
	}
	if _, fes = dpl.Import(bytes.Repeat([]byte("a"), dpl.MaxImportBytes+1), fc); len(fes) != 1 || fes[0].Location != "csv" {
		t.Fatalf("too large: %+v", fes)
	}
	// The error helper gives the 422.
	if err := dpl.Err(fes); !errs.Is(err, errs.Invalid) {
		t.Fatal(err)
	}
}

func TestMergeRows(t *testing.T) {
	a := row("bess_power_mw", "iec104", "ca:1/ioa:1", "float32", "MW", dpl.Read)
	a.ID = "ra"
	b := row("soc", "iec104", "ca:1/ioa:2", "float32", "percent", dpl.Read)
	b.ID = "rb"
	existing := []dpl.Row{a, b}
	b2 := b
	b2.ID, b2.Scale = "", 0.1
	c := row("grid_power_mw", "iec104", "ca:1/ioa:3", "float32", "MW", dpl.Read)

	res, fes := dpl.MergeRows(existing, []dpl.Row{c, b2}, dpl.Merge, fc)
	if fes != nil || len(res.Created) != 1 || len(res.Updated) != 1 || res.Updated[0].ID != "rb" || len(res.Deleted) != 0 || len(res.Rows) != 3 {
		t.Fatalf("merge %+v %+v", res, fes)
	}
	if names := []string{res.Rows[0].PointName, res.Rows[1].PointName, res.Rows[2].PointName}; !slices.Equal(names, []string{"bess_power_mw", "soc", "grid_power_mw"}) {
		t.Fatalf("order %v", names)
	}
	res, fes = dpl.MergeRows(existing, []dpl.Row{c, b2}, dpl.Replace, fc)
	if fes != nil || len(res.Created) != 1 || len(res.Updated) != 1 || len(res.Deleted) != 1 || res.Deleted[0].ID != "ra" || len(res.Rows) != 2 {
		t.Fatalf("replace %+v %+v", res, fes)
	}
	// A merged row taking a kept row's address is refused at its line.
	clash := row("grid_power_mw", "iec104", "ca:1/ioa:1", "float32", "MW", dpl.Read)
	if _, fes = dpl.MergeRows(existing, []dpl.Row{b2, clash}, dpl.Merge, fc); len(fes) != 1 || fes[0].Location != "csv.row[3].address" || fes[0].Code != "dpl_address_in_use" {
		t.Fatalf("clash %+v", fes)
	}
	// In replace mode the old row goes, so the address is free.
	if _, fes = dpl.MergeRows(existing, []dpl.Row{b2, clash}, dpl.Replace, fc); fes != nil {
		t.Fatalf("replace clash %+v", fes)
	}
}

func TestEvaluate(t *testing.T) {
	now := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	mon := dpl.TemplatePoints(dpl.MonitoringOnlyTemplate)
	var rows []dpl.Row
	for i, p := range mon {
		if p.Required {
			rows = append(rows, row(p.Name, "iec104", fmt.Sprintf("ca:1/ioa:%d", i), "float32", p.Unit, dpl.Read))
		}
	}
	rows = append(rows, row("x_temp", "mqtt", "t", "float32", "degC", dpl.Read))
	fresh := func(v float64) dpl.Measurement {
		return dpl.Measurement{Value: v, MeasuredAt: now.Add(-5 * time.Second)}
	}
	good := map[string]dpl.Measurement{
		"battery_power_actual_ac": fresh(5), "poc_power_actual_ac": fresh(-4.9), "available_charge_energy": fresh(8),
		"available_discharge_energy": fresh(12), "frequency": fresh(50.01), "lan_connected_device_1": fresh(1),
	}
	ten := 10.0
	with := func(name string, m dpl.Measurement) map[string]dpl.Measurement {
		out := map[string]dpl.Measurement{}
		for k, v := range good {
			out[k] = v
		}
		out[name] = m
		return out
	}
	without := func(name string) map[string]dpl.Measurement {
		out := with(name, dpl.Measurement{})
		delete(out, name)
		return out
	}
	for _, c := range []struct {
		name   string
		rows   []dpl.Row
		snap   dpl.Snapshot
		passed bool
		point  string
		result dpl.Result
	}{
		{"all ok", rows, dpl.Snapshot{Connected: true, Values: good}, true, "bess_power_mw", dpl.OK},
		{"soc not mapped", rows, dpl.Snapshot{Connected: true, Values: good}, true, "soc", dpl.NotMapped},
		{"custom not mapped", rows, dpl.Snapshot{Connected: true, Values: good}, true, "x_temp", dpl.NotMapped},
		{"not connected", rows, dpl.Snapshot{Connected: false, Values: good}, false, "bess_power_mw", dpl.Missing},
		{"missing value", rows, dpl.Snapshot{Connected: true, Values: without("frequency")}, false, "frequency_hz", dpl.Missing},
		{"stale value", rows, dpl.Snapshot{Connected: true, Values: with("frequency", dpl.Measurement{Value: 50, MeasuredAt: now.Add(-61 * time.Second)})}, false, "frequency_hz", dpl.Stale},
		{"60 s is not stale", rows, dpl.Snapshot{Connected: true, Values: with("frequency", dpl.Measurement{Value: 50, MeasuredAt: now.Add(-60 * time.Second)})}, true, "frequency_hz", dpl.OK},
		{"adapter stale", rows, dpl.Snapshot{Connected: true, Unavailable: true, Values: good}, false, "grid_power_mw", dpl.Stale},
		{"frequency out of range", rows, dpl.Snapshot{Connected: true, Values: with("frequency", fresh(44.9))}, false, "frequency_hz", dpl.OutOfRange},
		{"power beyond twice usable", rows, dpl.Snapshot{Connected: true, Values: with("battery_power_actual_ac", fresh(20.1))}, false, "bess_power_mw", dpl.OutOfRange},
		{"power at twice usable", rows, dpl.Snapshot{Connected: true, Values: with("poc_power_actual_ac", fresh(-20))}, true, "grid_power_mw", dpl.OK},
		{"negative energy", rows, dpl.Snapshot{Connected: true, Values: with("available_charge_energy", fresh(-1))}, false, "available_charge_energy", dpl.OutOfRange},
		{"flag not 0 or 1", rows, dpl.Snapshot{Connected: true, Values: with("lan_connected_device_1", fresh(2))}, false, "lan_connected_device_1", dpl.OutOfRange},
		{"required point without row", rows[1:], dpl.Snapshot{Connected: true, Values: good}, false, "bess_power_mw", dpl.Missing},
	} {
		got := dpl.Evaluate(c.rows, mon, &ten, c.snap, now)
		i := slices.IndexFunc(got.Points, func(p dpl.PointResult) bool { return p.PointName == c.point })
		if got.Passed != c.passed || i < 0 || got.Points[i].Result != c.result {
			t.Errorf("%s: passed %v, %+v", c.name, got.Passed, got.Points)
		}
	}
	got := dpl.Evaluate(rows, mon, &ten, dpl.Snapshot{Connected: true, Values: without("frequency")}, now)
	if got.OK != 5 || got.Failed != 1 || len(got.Points) != len(rows) {
		t.Fatalf("summary %+v", got)
	}
	// Write-only rows are not exercised; without a usable power no power bound applies.
	w := append(slices.Clone(rows), row("bess_power_setpoint_mw", "iec104", "ca:1/ioa:99", "float32", "MW", dpl.Write))
	got = dpl.Evaluate(w, fc, nil, dpl.Snapshot{Connected: true, Values: with("battery_power_actual_ac", fresh(500))}, now)
	if slices.ContainsFunc(got.Points, func(p dpl.PointResult) bool { return p.PointName == "bess_power_setpoint_mw" }) || !got.Passed {
		t.Fatalf("write row or unbounded power: %+v", got)
	}
}

// FuzzImport: any bytes give rows or errors, never a panic; rows that
// import export and import again to the same rows.
func FuzzImport(f *testing.F) {
	f.Add(dpl.Export(list(), fc))
	f.Add([]byte("point_name,protocol,address,data_type,unit,direction\nsoc,iec104,ca:1/ioa:1,float32,percent,read\n"))
	f.Add([]byte("\xef\xbb\xbfpoint_name,protocol\n\"a\"\"b\",x\n"))
	f.Add([]byte("direction,unit,data_type,address,protocol,point_name,scale\nread,none,bool,1:co:1,modbus_tcp,x_a,1e308\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, fes := dpl.Import(data, fc)
		if (rows == nil) == (fes == nil) && len(rows) > 0 {
			t.Fatalf("both or neither: %v %v", rows, fes)
		}
		if len(fes) > dpl.MaxImportErrors {
			t.Fatalf("%d errors", len(fes))
		}
		for _, fe := range fes {
			if !strings.HasPrefix(fe.Location, "csv") || fe.Code == "" {
				t.Fatalf("error %+v", fe)
			}
		}
		if rows != nil {
			again, fes := dpl.Import(dpl.Export(rows, fc), fc)
			if fes != nil {
				t.Fatalf("export of imported rows does not import: %+v", fes)
			}
			want := slices.Clone(rows)
			dpl.Order(want, fc)
			if !reflect.DeepEqual(again, want) {
				t.Fatalf("round trip:\n%+v\n%+v", want, again)
			}
		}
	})
}
