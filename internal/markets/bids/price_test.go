package bids

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParsePrice(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Price
		bad  string // substring of the error
	}{
		{"0", 0, ""}, {"-0", 0, ""}, {"12", 1200, ""}, {"12.5", 1250, ""}, {"12.50", 1250, ""}, {"12.345", 0, "more than 2 decimals"},
		{"0.01", 1, ""}, {"0.001", 0, "more than 2 decimals"}, {"-15000", -1500000, ""}, {"15000.00", 1500000, ""},
		{"1.5e2", 15000, ""}, {"1E+2", 10000, ""}, {"125e-2", 125, ""}, {"125e-3", 0, "more than 2 decimals"}, {"1.2300e1", 1230, ""},
		{"0.10000", 10, ""}, {"1e15", 0, "out of range"}, {"1e9999", 0, "out of range"}, {"99999999999999.99", 9999999999999999, ""},
		{"", 0, "not a number"}, {"01", 0, "not a decimal"}, {"1.", 0, "not a decimal"}, {".5", 0, "not a decimal"}, {"+1", 0, "not a decimal"},
		{"1,5", 0, "not a decimal"}, {" 1", 0, "not a decimal"}, {"1e", 0, "not a decimal"}, {"1e12345", 0, "not a decimal"}, {"NaN", 0, "not a decimal"},
		{"1/3", 0, "not a decimal"}, {"-", 0, "not a decimal"}, {"0x10", 0, "not a decimal"},
	} {
		got, err := ParsePrice(c.in)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("ParsePrice(%q) = %v, %v; want error %q", c.in, got, err, c.bad)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParsePrice(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestPriceString(t *testing.T) {
	for p, want := range map[Price]string{0: "0", 1: "0.01", 10: "0.1", 1250: "12.5", 1234: "12.34", -5: "-0.05", -1500000: "-15000", 100: "1"} {
		if got := p.String(); got != want {
			t.Errorf("%d: %q, want %q", int64(p), got, want)
		}
		back, err := ParsePrice(want)
		if err != nil || back != p {
			t.Errorf("round trip of %q: %v %v", want, back, err)
		}
	}
}

func TestPriceInput(t *testing.T) {
	bounds := PriceBounds{Min: 0, Max: EUR(15000)}
	for _, c := range []struct {
		raw             string
		want            Price
		bad, outOfRange bool
	}{
		{`12.5`, 1250, false, false}, {`"12.50"`, 1250, false, false}, {`"15000"`, 1500000, false, false},
		{`15000.01`, 0, true, true}, {`-0.01`, 0, true, true}, {`"abc"`, 0, true, false}, {`true`, 0, true, false},
		{`{}`, 0, true, false}, {`[1]`, 0, true, false}, {`null`, 0, true, false}, {`"1.234"`, 0, true, false}, {`"\u0031"`, 100, false, false},
	} {
		var in PriceInput
		if err := json.Unmarshal([]byte(c.raw), &in); err != nil {
			t.Fatal(err)
		}
		got, oor, err := bounds.Check(in)
		if (err != nil) != c.bad || oor != c.outOfRange || (!c.bad && got != c.want) {
			t.Errorf("%s: %v %v %v", c.raw, got, oor, err)
		}
	}
	if (PriceInput{}).Given() {
		t.Error("an absent price is given")
	}
}

// FuzzParsePrice: never panics; what is accepted prints back to the same
// value, has at most two decimals, and stays within the digit bound.
func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"0", "12.5", "-1.25e2", "1e9999", "0.001", "99999999999999.99", "1e-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrice(s)
		if err != nil {
			return
		}
		back, err := ParsePrice(p.String())
		if err != nil || back != p {
			t.Fatalf("%q -> %v -> %q -> %v %v", s, int64(p), p.String(), back, err)
		}
		if v := int64(p); v > 1e17 || v < -1e17 {
			t.Fatalf("%q parsed beyond the digit bound: %d", s, v)
		}
	})
}

// TestPayment: MW x price x units to the cent, half away from zero, in
// decimal: 1.005 MW x 1 EUR is 100.5 cents, which the float product
// (100.49999999999999) would round down.
func TestPayment(t *testing.T) {
	for _, c := range []struct {
		price Price
		mw    float64
		units int64
		want  Price
	}{
		{100, 1.005, 1, 101}, {-100, 1.005, 1, -101}, {310, 10, 4, 12400}, {1234, 3, 1, 3702},
		{333, 1.234, 4, 1644}, {6520, 2.5, 1, 16300}, {100, 0, 5, 0}, {1, 0.001, 3, 0},
	} {
		if got := Payment(c.price, c.mw, c.units); got != c.want {
			t.Errorf("Payment(%v, %v, %v) = %v, want %v", c.price, c.mw, c.units, got, c.want)
		}
	}
}
