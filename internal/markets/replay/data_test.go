package replay

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"atcp/internal/markets/calendar"
)

func mustLoad(t testing.TB) *Dataset {
	t.Helper()
	d, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLoadEmbeddedData(t *testing.T) {
	d := mustLoad(t)
	feb1, feb2 := ReplayedBiddingDay, ReplayedDeliveryDay
	if len(d.fcr) != 9*6 || len(d.afrr) != 9*12 || len(d.frequency) != 2*96 || len(d.rebap) != 9*96 || len(d.dayAhead) != 9*96 || len(d.activated) != 2*96 {
		t.Fatalf("counts fcr %d afrr %d freq %d rebap %d da %d activated %d", len(d.fcr), len(d.afrr), len(d.frequency), len(d.rebap), len(d.dayAhead), len(d.activated))
	}
	// Spot checks against the published files (SOURCES.md).
	if b, _ := d.FCR(feb1, 0); b.SettlementPriceDE != 19 || b.CrossBorderPrice != 45.42 {
		t.Errorf("FCR 2026-02-01 00-04: %+v (DE decoupled at 19, cross-border 45.42)", b)
	}
	if b, _ := d.FCR(feb2, 1); b.SettlementPriceDE != 65.2 {
		t.Errorf("FCR 2026-02-02 04-08: %+v", b)
	}
	if b, _ := d.AFRRCapacity(feb2, Pos, 2); b.MinDE != 6.61 || b.AverageDE != 19.1 || b.MarginalDE != 30.81 || b.AllocatedDE != 2100 || b.OfferedDE != 3881 {
		t.Errorf("aFRR 2026-02-02 POS_08_12: %+v", b)
	}
	if b, _ := d.AFRRCapacity(feb2, Neg, 5); b.MarginalDE != 2.67 {
		t.Errorf("aFRR 2026-02-02 NEG_20_24: %+v", b)
	}
	if b, ok := d.AFRRCapacity(calendar.Day{Year: 2026, Month: time.January, Day: 25}, Pos, 0); !ok || b.MarginalDE != 2.62 {
		t.Errorf("aFRR 2026-01-25 POS_00_04 (week file): %+v", b)
	}
	q := QuarterHour{feb2, 0}
	if f, _ := d.Frequency(q); f.MeanHz != 49.983717 || f.MinHz != 49.94 || f.MaxHz != 50.031 || f.Samples != 900 {
		t.Errorf("frequency %s: %+v", q, f)
	}
	if p, _ := d.Rebap(q); p != 53.54 {
		t.Errorf("reBAP %s: %v", q, p)
	}
	if p, _ := d.DayAhead(QuarterHour{feb1, 92}); p != 113.88 {
		t.Errorf("day-ahead 2026-02-01 23:00: %v", p)
	}
	a := d.Activated()
	if a[0].Day.String() != "2024-02-04" || a[0].Index != 0 || a[0].PosMW != 0.36 || a[0].NegMW != 83.332 || a[191].Index != 95 {
		t.Errorf("activated 2024: first %+v last %+v", a[0], a[191])
	}
	// The overview in the platform's convention: NEG negated.
	if o, ok := d.EnergyOverview(QuarterHour{feb1, 0}, Neg); !ok || o.MinEUR != -104.96 || o.AverageEUR != 718.61 || o.MarginalEUR != 15000 || o.OfferedMW != 2114 {
		t.Errorf("overview NEG_001: %+v", o)
	}
	if o, ok := d.EnergyOverview(QuarterHour{feb1, 37}, Pos); !ok || o.MinEUR != 103.16 || o.AverageEUR != 1091.11 || o.MarginalEUR != 14999 || o.OfferedMW != 2205 {
		t.Errorf("overview POS_038: %+v", o)
	}
	if _, ok := d.EnergyOverview(QuarterHour{feb1, 38}, Pos); ok {
		t.Error("overview beyond 09:30 (the file is partial)")
	}
	if again, _ := Load(); again != d {
		t.Error("Load parsed the embedded data twice")
	}
}

func TestEmbeddedProvenance(t *testing.T) {
	sources, err := fs.ReadFile(Embedded, "data/SOURCES.md")
	if err != nil || !bytes.Contains(sources, []byte("regelleistung.net")) {
		t.Fatalf("SOURCES.md missing beside the data: %v", err)
	}
	prov, err := fs.ReadFile(Embedded, "data/PROVENANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FCRFile, AFRRCapacityFile, AFRRWeekFile, FrequencyFile, RebapFile, DayAheadFile, ActivatedFile, EnergyOverviewFile} {
		if !bytes.Contains(prov, []byte(f)) {
			t.Errorf("PROVENANCE.md does not name %s", f)
		}
		if _, err := fs.Stat(Embedded, "data/"+f); err != nil {
			t.Errorf("data file %s: %v", f, err)
		}
	}
}

// dataFS is the embedded data as a mutable file system.
func dataFS(t testing.TB) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(Embedded, "data", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Embedded, path)
		m[strings.TrimPrefix(path, "data/")] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLoadIsStrict(t *testing.T) {
	replace := func(file, old, new string) func(fstest.MapFS) {
		return func(m fstest.MapFS) {
			s := string(m[file].Data)
			if !strings.Contains(s, old) {
				panic("test fixture: " + old + " not in " + file)
			}
			m[file] = &fstest.MapFile{Data: []byte(strings.Replace(s, old, new, 1))}
		}
	}
	cases := []struct {
		name   string
		change func(fstest.MapFS)
		want   string
	}{
		{"missing file", func(m fstest.MapFS) { delete(m, RebapFile) }, RebapFile},
		{"not a number", replace(FCRFile, ",19,209,", ",nineteen,209,"), "is not a finite number"},
		{"NaN price", replace(AFRRCapacityFile, "2.26,-110", "NaN,-110"), "is not a finite number"},
		{"missing column", replace(FCRFile, "GERMANY_SETTLEMENTCAPACITY_PRICE_[EUR/MW]", "GERMANY_PRICE"), "missing column"},
		{"short row", replace(FrequencyFile, "49.984557,49.939,50.05,0.02145,900,", "49.984557,49.939,50.05,0.02145,"), "wrong number of fields"},
		{"bad product", replace(AFRRCapacityFile, "POS_04_08", "POS_04_09"), "is not a product"},
		{"unknown direction", replace(AFRRCapacityFile, "POS_04_08", "UP_04_08"), "is not a product"},
		{"wrong reserve type", replace(FCRFile, "2026-01-25,2026-01-25,FCR", "2026-01-25,2026-01-25,aFRR"), "want FCR"},
		{"date range", replace(FCRFile, "2026-01-25,2026-01-25,FCR", "2026-01-25,2026-01-26,FCR"), "differs from DATE_FROM"},
		{"bad date", replace(FCRFile, "2026-01-25,2026-01-25,FCR", "2026-13-25,2026-13-25,FCR"), "is not a date"},
		{"duplicate block", replace(FCRFile, "NEGPOS_04_08", "NEGPOS_00_04"), "repeated"},
		{"unordered prices", replace(AFRRCapacityFile, "1.44,2.06,2.26", "1.44,2.36,2.26"), "are not ordered"},
		{"off-grid time", replace(RebapFile, "2026-01-24T23:00:00Z", "2026-01-24T23:05:00Z"), "not on a quarter-hour"},
		{"local time disagrees", replace(DayAheadFile, "2026-01-25T00:00:00+01:00", "2026-01-25T01:00:00+01:00"), "does not name the instant"},
		{"implausible frequency", replace(FrequencyFile, "49.984557,49.939", "59.984557,49.939"), "implausible"},
		{"sample count", replace(FrequencyFile, "0.02145,900,", "0.02145,901,"), "sample count"},
		{"negative activation", replace(ActivatedFile, "0.360,0.360", "0.360,-0.360"), "negative"},
		{"activation interval", replace(ActivatedFile, "00:00,00:15", "00:00,00:30"), "does not end the quarter-hour"},
		{"overview product", replace(EnergyOverviewFile, "NEG_001", "NEG_1"), "is not a product POS_nnn or NEG_nnn"},
		{"overview quarter-hour", replace(EnergyOverviewFile, "NEG_001", "NEG_097"), "is not a product"},
		{"overview start", replace(EnergyOverviewFile, ",,00:00,00:15", ",,00:15,00:15"), "is not the start of NEG_001"},
		{"overview end", replace(EnergyOverviewFile, ",,00:00,00:15", ",,00:00,00:30"), "is not the end of NEG_001"},
		{"overview reserve type", replace(EnergyOverviewFile, "2026-02-01,aFRR,NEG_001", "2026-02-01,mFRR,NEG_001"), "want aFRR"},
		{"overview NEG order", replace(EnergyOverviewFile, "104.96,-718.61,-15000", "-718.61,104.96,-15000"), "are not a merit order of neg bids"},
		{"overview POS order", replace(EnergyOverviewFile, "85.34,1221.94,15000", "1221.94,85.34,15000"), "are not a merit order of pos bids"},
		{"overview note", replace(EnergyOverviewFile, "2114,,00:00", "2114,estimated,00:00"), "unexpected note"},
		{"overview offered", replace(EnergyOverviewFile, "2114,,00:00", "0,,00:00"), "not positive"},
		{"overview duplicate", replace(EnergyOverviewFile, "NEG_002,104.94,-728.41,-15000,2120,,00:15,00:30", "NEG_001,104.94,-728.41,-15000,2120,,00:00,00:15"), "repeated"},
		{"overview price", replace(EnergyOverviewFile, "104.96", "1O4.96"), "is not a finite number"},
		{"overview direction missing", func(m fstest.MapFS) {
			var keep []string
			for _, l := range strings.Split(string(m[EnergyOverviewFile].Data), "\n") {
				if !strings.Contains(l, ",POS_") {
					keep = append(keep, l)
				}
			}
			m[EnergyOverviewFile] = &fstest.MapFile{Data: []byte(strings.Join(keep, "\n"))}
		}, "no pos quarter-hour"},
		{"gap in a day", func(m fstest.MapFS) {
			lines := strings.Split(string(m[RebapFile].Data), "\n")
			m[RebapFile] = &fstest.MapFile{Data: []byte(strings.Join(append(lines[:5], lines[6:]...), "\n"))}
		}, "has 95 entries, want 96"},
		{"replayed day missing", func(m fstest.MapFS) {
			var keep []string
			for _, l := range strings.Split(string(m[FCRFile].Data), "\n") {
				if !strings.HasPrefix(l, "2026-02-02") {
					keep = append(keep, l)
				}
			}
			m[FCRFile] = &fstest.MapFile{Data: []byte(strings.Join(keep, "\n"))}
		}, "replayed day 2026-02-02 missing"},
		{"clock-change day", replace(FCRFile, "2026-01-25,2026-01-25,FCR", "2026-03-29,2026-03-29,FCR"), "clock-change day"},
		{"header only", func(m fstest.MapFS) {
			s := string(m[AFRRWeekFile].Data)
			m[AFRRWeekFile] = &fstest.MapFile{Data: []byte(s[:strings.Index(s, "\n")+1])}
		}, "no rows"},
	}
	if _, err := LoadFS(dataFS(t)); err != nil {
		t.Fatalf("unchanged copy fails: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := dataFS(t)
			c.change(m)
			d, err := LoadFS(m)
			if err == nil || d != nil {
				t.Fatalf("loaded a broken data set")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
		})
	}
}

// FuzzLoadFCR feeds arbitrary FCR files to the loader: it must fail
// cleanly or load, never panic, and a loaded set is complete.
func FuzzLoadFCR(f *testing.F) {
	base := dataFS(f)
	f.Add(base[FCRFile].Data)
	f.Add([]byte("DATE_FROM,DATE_TO\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := fstest.MapFS{}
		for k, v := range base {
			m[k] = v
		}
		m[FCRFile] = &fstest.MapFile{Data: data}
		d, err := LoadFS(m)
		if err != nil {
			return
		}
		for _, day := range []calendar.Day{ReplayedBiddingDay, ReplayedDeliveryDay} {
			for b := range BlocksPerDay {
				if p, ok := d.FCR(day, b); !ok || p.SettlementPriceDE < 0 {
					t.Fatalf("loaded set lacks %s block %d: %+v", day, b, p)
				}
			}
		}
	})
}
