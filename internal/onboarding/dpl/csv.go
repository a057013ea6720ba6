package dpl

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Columns are the CSV columns in export order; an import may order them
// freely and leave out the optional ones (description, scale, offset,
// notes).
var Columns = []string{"point_name", "description", "protocol", "address", "data_type", "unit", "scale", "offset", "direction", "notes"}

var requiredColumns = []string{"point_name", "protocol", "address", "data_type", "unit", "direction"}

// Import limits.
const (
	MaxImportRows   = 2000
	MaxImportBytes  = 1 << 20
	MaxImportErrors = 100
)

var bom = []byte("\xef\xbb\xbf")

// Location is where an import's problem sits: csv.row[N].<column>, N the
// record's line counting the header as 1.
func Location(line int, column string) string { return fmt.Sprintf("csv.row[%d].%s", line, column) }

// Import reads a CSV data-point list (RFC 4180, UTF-8, an optional BOM,
// comma, decimal point, a header row) and validates every row against the
// template's points and the others (point names and addresses unique
// within the file). It returns the rows in file order, or the field
// errors (at most MaxImportErrors, the last naming how many were cut):
// the caller stores all or nothing.
func Import(data []byte, points []Point) ([]Row, []FieldError) {
	if len(data) > MaxImportBytes {
		return nil, []FieldError{{"csv", CodeInvalidValue, fmt.Sprintf("at most %d bytes", MaxImportBytes), len(data)}}
	}
	data = bytes.TrimPrefix(data, bom)
	if !utf8.Valid(data) {
		return nil, []FieldError{{"csv", CodeInvalidValue, "must be UTF-8", nil}}
	}
	rd := csv.NewReader(bytes.NewReader(data))
	rd.ReuseRecord = false
	header, err := rd.Read()
	if err != nil {
		return nil, []FieldError{{"csv", CodeInvalidValue, "must start with the header row " + fmt.Sprint(Columns), nil}}
	}
	col := map[string]int{}
	var out []FieldError
	for i, name := range header {
		if _, dup := col[name]; dup || !slices.Contains(Columns, name) {
			out = append(out, FieldError{"csv.header." + name, CodeUnknownColumn, "not a column of the data-point list, or named twice", name})
			continue
		}
		col[name] = i
	}
	for _, name := range requiredColumns {
		if _, ok := col[name]; !ok {
			out = append(out, FieldError{"csv.header." + name, CodeMissingColumn, "required column missing", nil})
		}
	}
	if len(out) > 0 {
		return nil, out
	}
	var rows []Row
	line := 1
	for {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if len(rows) == MaxImportRows {
			return nil, append(out, FieldError{"csv", CodeInvalidValue, fmt.Sprintf("at most %d rows", MaxImportRows), nil})
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && !errors.Is(pe.Err, csv.ErrFieldCount) {
				// The reader cannot resynchronise after a quoting error.
				return nil, append(out, FieldError{fmt.Sprintf("csv.row[%d]", line), CodeInvalidValue, pe.Err.Error(), nil})
			}
			out = append(out, FieldError{fmt.Sprintf("csv.row[%d]", line), CodeInvalidValue, fmt.Sprintf("must have %d cells like the header", len(header)), nil})
			rows = append(rows, Row{})
			continue
		}
		r, fes := parseRecord(rec, col, line, points)
		out = append(out, fes...)
		rows = append(rows, r)
	}
	if len(out) == 0 {
		out = Duplicates(rows, func(i int, member string) string { return Location(i+2, member) })
	}
	if len(out) > MaxImportErrors {
		n := len(out)
		out = append(out[:MaxImportErrors-1], FieldError{"csv", CodeInvalidValue, fmt.Sprintf("%d more errors are not listed", n-MaxImportErrors+1), nil})
	}
	if len(out) > 0 {
		return nil, out
	}
	return rows, nil
}

// parseRecord reads one record into a validated row.
func parseRecord(rec []string, col map[string]int, line int, points []Point) (Row, []FieldError) {
	cell := func(name string) string {
		if i, ok := col[name]; ok {
			return rec[i]
		}
		return ""
	}
	var out []FieldError
	num := func(name string, def float64) float64 {
		s := cell(name)
		if s == "" {
			return def
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			out = append(out, FieldError{Location(line, name), CodeInvalidValue, "must be a finite number with a decimal point", s})
			return def
		}
		return x
	}
	r := Row{
		PointName: cell("point_name"), Description: cell("description"), Protocol: cell("protocol"), Address: cell("address"),
		DataType: cell("data_type"), Unit: cell("unit"), Scale: num("scale", 1), Offset: num("offset", 0),
		Direction: Direction(cell("direction")), Notes: cell("notes"),
	}
	r, fes := Validate(r, points, func(member string) string { return Location(line, member) })
	// A cell that did not parse is reported once, not again by Validate.
	for _, fe := range fes {
		if !slices.ContainsFunc(out, func(o FieldError) bool { return o.Location == fe.Location }) {
			out = append(out, fe)
		}
	}
	return r, out
}

// Export writes rows as CSV for spreadsheet users: a BOM, the header of
// Columns, template points in template order, then custom points by name.
// Numbers are written in their shortest exact form, so that an import of
// the export reads the same values.
func Export(rows []Row, points []Point) []byte {
	rows = slices.Clone(rows)
	Order(rows, points)
	var b bytes.Buffer
	b.Write(bom)
	w := csv.NewWriter(&b)
	_ = w.Write(Columns)
	for _, r := range rows {
		_ = w.Write([]string{r.PointName, r.Description, r.Protocol, r.Address, r.DataType, r.Unit,
			strconv.FormatFloat(r.Scale, 'g', -1, 64), strconv.FormatFloat(r.Offset, 'g', -1, 64), string(r.Direction), r.Notes})
	}
	w.Flush() // writes to a bytes.Buffer cannot fail
	return b.Bytes()
}

// Mode is how an import meets the stored list.
type Mode string

// The import modes.
const (
	Merge   Mode = "merge"   // rows matched by point_name are replaced, others added
	Replace Mode = "replace" // the list becomes the file
)

// MergeResult is what an import does to the stored list.
type MergeResult struct {
	Rows    []Row // the list after the import, in list order; new rows without ID
	Created []Row
	Updated []Row // rows whose content changed, with their stored ID
	Deleted []Row
}

// MergeRows applies imported (validated, in file order) to existing under
// mode. A row matched by point name keeps its ID and counts as updated
// only when its content changes, so importing an export with Replace
// changes nothing. After a merge the list's addresses must still be
// unique: a clash is a field error at the imported row's address.
func MergeRows(existing, imported []Row, mode Mode, points []Point) (MergeResult, []FieldError) {
	var res MergeResult
	byName := map[string]Row{}
	for _, r := range existing {
		byName[r.PointName] = r
	}
	seen := map[string]bool{}
	for _, r := range imported {
		seen[r.PointName] = true
	}
	for _, r := range existing {
		switch {
		case seen[r.PointName]:
		case mode == Replace:
			res.Deleted = append(res.Deleted, r)
		default:
			res.Rows = append(res.Rows, r)
		}
	}
	kept := len(res.Rows)
	for _, r := range imported {
		old, ok := byName[r.PointName]
		r.ID = old.ID
		switch {
		case !ok:
			res.Created = append(res.Created, r)
		case r != old:
			res.Updated = append(res.Updated, r)
		}
		res.Rows = append(res.Rows, r)
	}
	// The kept rows come first, so a clash is reported at the import's line.
	if fes := Duplicates(res.Rows, func(i int, member string) string {
		if i < kept {
			return "dpl." + res.Rows[i].PointName + "." + member
		}
		return Location(i-kept+2, member)
	}); len(fes) > 0 {
		return MergeResult{}, fes
	}
	Order(res.Rows, points)
	return res, nil
}
