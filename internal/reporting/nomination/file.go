package nomination

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"
	"time"

	"atcp/internal/markets/calendar"
)

// LabelLayout is the Berlin-local label of a quarter-hour in the file.
const LabelLayout = "02.01.2006 15:04"

// Label is the file's label of the quarter-hour starting at t: its Berlin
// wall-clock start, so that the fall-back day labels 02:00 to 02:45 twice.
func Label(t time.Time) string { return t.In(calendar.Berlin).Format(LabelLayout) }

// bom is the UTF-8 byte-order mark the file starts with.
const bom = "\uFEFF"

// File is one zone and direction of a nomination as the TSO receives it.
type File struct {
	Day       calendar.Day
	Direction Direction
	// Reference is the data-exchange reference; Header the series' EICs.
	// Both are empty while nothing is nominated (no acknowledged
	// revision) or the zone has no EIC configuration.
	Reference string
	Header    Header
	Periods   []Period // the published quarter-hours
}

// Render writes the file (document 3): UTF-8 with a byte-order mark,
// semicolons, CRLF, decimal comma. Rows 1 to 5: the data-exchange
// reference, the control areas (from, to), the balancing groups (from,
// to), each as label;value; row 6 the unit; from row 7 one row per
// quarter-hour of the day, Berlin label;MW with three decimals, the value
// empty where nothing is published (never 0).
func (f File) Render() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(bom)
	w := csv.NewWriter(&buf)
	w.Comma = ';'
	w.UseCRLF = true
	rows := [][]string{
		{"Data exchange reference", f.Reference},
		{"Control area from", f.Header.SourceControlArea},
		{"Control area to", f.Header.TargetControlArea},
		{"Balancing group from", f.Header.SourceBalancingGroup},
		{"Balancing group to", f.Header.TargetBalancingGroup},
		{"Unit", Unit},
	}
	byStart := make(map[time.Time]Period, len(f.Periods))
	for _, p := range f.Periods {
		byStart[p.Start] = p
	}
	for _, q := range f.Day.Periods() {
		value := ""
		if p, ok := byStart[q.Start]; ok {
			value = DecimalComma(p.Volume(f.Direction).StringFixed(mwScale))
		}
		rows = append(rows, []string{Label(q.Start), value})
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecimalComma writes a decimal point number with a decimal comma.
func DecimalComma(s string) string { return strings.Replace(s, ".", ",", 1) }

// FileName is the attachment name of the file of key and direction.
func FileName(k Key, d Direction) string {
	return fmt.Sprintf("afrr-nomination_%s_%s_%s.csv", k.TSO, k.Day, d)
}
