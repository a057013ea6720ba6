package nomination

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/calendar"
)

var update = flag.Bool("update", false, "rewrite the golden nomination files in testdata/")

func day(t *testing.T, s string) calendar.Day {
	t.Helper()
	d, err := calendar.ParseDay(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLabels(t *testing.T) {
	for _, tc := range []struct {
		day         string
		rows        int
		first, last string
		twice       []string // labels that appear twice
		missing     string   // a label that does not appear
	}{
		{"2026-02-02", 96, "02.02.2026 00:00", "02.02.2026 23:45", nil, ""},
		{"2026-03-29", 92, "29.03.2026 00:00", "29.03.2026 23:45", nil, "29.03.2026 02:00"},
		{"2026-10-25", 100, "25.10.2026 00:00", "25.10.2026 23:45",
			[]string{"25.10.2026 02:00", "25.10.2026 02:15", "25.10.2026 02:30", "25.10.2026 02:45"}, ""},
	} {
		t.Run(tc.day, func(t *testing.T) {
			periods := day(t, tc.day).Periods()
			if len(periods) != tc.rows {
				t.Fatalf("%d periods, want %d", len(periods), tc.rows)
			}
			count := map[string]int{}
			for _, p := range periods {
				count[Label(p.Start)]++
			}
			if got := Label(periods[0].Start); got != tc.first {
				t.Errorf("first %q, want %q", got, tc.first)
			}
			if got := Label(periods[len(periods)-1].Start); got != tc.last {
				t.Errorf("last %q, want %q", got, tc.last)
			}
			twice := 0
			for l, n := range count {
				if n == 2 {
					twice++
					if !strings.Contains(strings.Join(tc.twice, ","), l) {
						t.Errorf("%q appears twice", l)
					}
				}
			}
			if twice != len(tc.twice) {
				t.Errorf("%d labels twice, want %d", twice, len(tc.twice))
			}
			if tc.missing != "" && count[tc.missing] != 0 {
				t.Errorf("%q appears", tc.missing)
			}
		})
	}
}

// goldenFile is a nomination with published values, an unpublished
// quarter-hour (empty cell) and a published 0, on day d.
func goldenFile(t *testing.T, d calendar.Day) File {
	t.Helper()
	eics := EICs{ControlArea: "10YDE-VE-------2", SourceControlArea: "10YDE-VE-------2", TargetControlArea: "10YDE-VE-------2",
		SourceBalancingGroup: "11XATCP-TEST-P1C", TargetBalancingGroup: "11XATCP-TEST-D1B"}
	k := Key{OrganizationID: "demo", TSO: "50HZ", Day: d}
	var periods []Period
	for i, q := range d.Periods() {
		if i == 9 { // 02:15 local: still waiting for its outcome
			continue
		}
		periods = append(periods, Period{Start: q.Start, Pos: decimal.Zero,
			Neg: decimal.New(int64(i%7)*1250, -3)}) // 0, 1.25, 2.5, ... 7.5 MW
	}
	r := NewRevision(k, 2, Content{EICs: &eics, Periods: periods}, "first revision", time.Time{})
	return r.File(Neg)
}

func TestRenderGolden(t *testing.T) {
	for _, s := range []string{"2026-02-02", "2026-03-29", "2026-10-25"} {
		t.Run(s, func(t *testing.T) {
			d := day(t, s)
			got, err := goldenFile(t, d).Render()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "nomination_"+s+".csv")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from the rendering (go test -run TestRenderGolden -update to rewrite):\n%s", path, got)
			}
			// The shape the document states, independent of the golden bytes.
			if !bytes.HasPrefix(got, []byte("\xEF\xBB\xBF")) {
				t.Fatal("no byte-order mark")
			}
			r := csv.NewReader(bytes.NewReader(got[3:]))
			r.Comma = ';'
			rows, err := r.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 6+len(d.Periods()) {
				t.Fatalf("%d rows, want %d", len(rows), 6+len(d.Periods()))
			}
			if rows[0][1] != "ATCP-"+strings.ReplaceAll(s, "-", "")+"-50HZ-demo-R002" || rows[5][1] != "MW" {
				t.Errorf("rows 1 and 6: %v %v", rows[0], rows[5])
			}
			// neg swaps the pos header: from the customer's group to the platform's.
			if rows[3][1] != "11XATCP-TEST-D1B" || rows[4][1] != "11XATCP-TEST-P1C" {
				t.Errorf("balancing groups %v %v", rows[3], rows[4])
			}
			if rows[6+9][1] != "" || rows[6][1] != "0,000" || rows[7][1] != "1,250" {
				t.Errorf("values: %v %v %v", rows[6], rows[7], rows[6+9])
			}
		})
	}
}

func TestRenderWithoutRevision(t *testing.T) {
	got, err := File{Day: day(t, "2026-03-29"), Direction: Pos}.Render()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(got), "\r\n"), "\r\n")
	if len(lines) != 6+92 || lines[0] != "\uFEFFData exchange reference;" || lines[5] != "Unit;MW" || lines[6] != "29.03.2026 00:00;" {
		t.Fatalf("%d lines: %q", len(lines), lines[:7])
	}
}
