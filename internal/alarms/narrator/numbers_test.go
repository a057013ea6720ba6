package narrator

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var testFacts = []string{
	"asset demo-bess (TSO 50Hertz), rule TELEMETRY-001",
	"last telemetry received 2026-03-15T08:12:00Z, 312 s ago",
	"state of charge 48.7 %, window 10 % to 90 %",
	"power 1.4837 MW, deviation 4.6 MW",
	"throughput 1234.5 kWh",
}

// 17:30 German winter time.
var testDeadline = time.Date(2026, 3, 15, 16, 30, 0, 0, time.UTC)

func TestUnverifiedNumbers(t *testing.T) {
	cases := []struct {
		name, draft string
		want        []string
	}{
		{"integer", "Die Anlage sendet seit 312 Sekunden keine Daten.", nil},
		{"German decimal comma", "Ladezustand 48,7 %", nil},
		{"trailing zero", "Ladezustand 48,70 %", nil},
		{"point", "state of charge 48.7 %", nil},
		{"rounded, two significant digits", "Ladezustand 49 %, Leistung 1,5 MW, 1,48 MW", nil},
		{"rounded to one digit is not the evidence", "Abweichung 5 MW", []string{"5"}},
		{"invented", "Leistung 2 MW", []string{"2"}},
		{"sign ignored", "Leistung -48,7", nil},
		{"German thousands", "Durchsatz 1.234,5 kWh", nil},
		{"English thousands", "throughput 1,234.5 kWh", nil},
		{"deadline, German date and time", "bis zum 15.03.2026, 17:30 Uhr", nil},
		{"deadline, short forms", "bis 15.03. um 17.30 Uhr, 15.03.26", nil},
		{"deadline, hour alone", "bis 17 Uhr", nil},
		{"deadline, English", "until 15 March 2026, 17:30 CET", nil},
		{"deadline in UTC", "until 2026-03-15T16:30:00Z (16:30 UTC)", nil},
		{"deadline, slashes", "until 15/03/2026", nil},
		{"wrong deadline", "bis 16.03.2026, 18:00 Uhr", []string{"16.03.2026", "18:00"}},
		{"a fact's instant in local time", "seit 09:12 Uhr (08:12 UTC)", nil},
		{"identifiers", "TELEMETRY-001 an der Anlage demo-bess, 50Hertz", nil},
		{"range", "Fenster 10-90 %", nil},
		{"range, one end invented", "Fenster 10-95 %", []string{"95"}},
		{"phone number", "Rufen Sie 0800 123456 an", []string{"0800", "123456"}},
		{"each once, in order", "7 Techniker, 3 Stunden, 7 Techniker", []string{"7", "3"}},
		{"list markers", "1. Prüfen Sie die Anlage.\n2) Melden Sie sich.\n  3. Danke.", nil},
		{"a list marker mid-line is a number", "Schritt 3. Danke", []string{"3"}},
		{"no numbers", "Sehr geehrte Damen und Herren", nil},
		{"read as a date", "Firmware 2.7.19", []string{"2.7.19"}},
		{"version-like", "Firmware 2.7.123", []string{"2", "7", "123"}},
		{"invalid date", "am 31.02.2026", []string{"31", "02"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := UnverifiedNumbers(c.draft, testFacts, []time.Time{testDeadline})
			if !slices.Equal(got, c.want) {
				t.Fatalf("UnverifiedNumbers(%q) = %q, want %q", c.draft, got, c.want)
			}
		})
	}
}

func TestUnverifiedNumbersSummerTime(t *testing.T) {
	deadline := time.Date(2026, 7, 1, 22, 15, 0, 0, time.UTC) // 00:15 CEST on 2 July
	if got := UnverifiedNumbers("bis 02.07.2026, 00:15 Uhr", nil, []time.Time{deadline}); got != nil {
		t.Fatalf("local: %q", got)
	}
	if got := UnverifiedNumbers("until 2026-07-01 22:15 UTC", nil, []time.Time{deadline}); got != nil {
		t.Fatalf("UTC: %q", got)
	}
	if got := UnverifiedNumbers("bis 30.06.2026, 00:15 Uhr", nil, []time.Time{deadline}); !slices.Equal(got, []string{"30.06.2026"}) {
		t.Fatalf("wrong day: %q", got)
	}
}

func TestUnverifiedNumbersSeconds(t *testing.T) {
	facts := []string{"last value at 09:12:34"}
	if got := UnverifiedNumbers("um 09:12:34 und um 09:12", facts, nil); got != nil {
		t.Fatalf("%q", got)
	}
	if got := UnverifiedNumbers("um 09:12:35", facts, nil); !slices.Equal(got, []string{"09:12:35"}) {
		t.Fatalf("%q", got)
	}
}

func FuzzUnverifiedNumbers(f *testing.F) {
	for _, s := range append(slices.Clone(testFacts), "bis 15.03. um 17.30 Uhr, 1.234,5; 1,234.5 10-12 1/2/3 2026-03-15T16:30:00+01:00",
		"1. a\n2) b", "99999999999999999999999999999999999999999999999999.5", "0,000", "24:00:00 7:5 1.2.3.4", "\xff1,\x002") {
		f.Add(s, testFacts[1])
	}
	f.Fuzz(func(t *testing.T, text, evidence string) {
		got := UnverifiedNumbers(text, []string{evidence}, []time.Time{testDeadline})
		seen := map[string]bool{}
		for _, n := range got {
			if seen[n] || !strings.Contains(text, n) || n == "" || !isDigit(n[0]) || !isDigit(n[len(n)-1]) ||
				strings.Trim(n, "0123456789.,:/-") != "" {
				t.Fatalf("UnverifiedNumbers(%q) = %q: %q is no number of the text, or twice", text, got, n)
			}
			seen[n] = true
		}
		// A text supports all of its own numbers.
		if self := UnverifiedNumbers(text, []string{text}, nil); self != nil {
			t.Fatalf("the text does not support %q", self)
		}
		// More evidence never adds an unverified number.
		for _, n := range got {
			if !slices.Contains(UnverifiedNumbers(text, nil, nil), n) {
				t.Fatalf("%q unverified with evidence but not without", n)
			}
		}
	})
}
