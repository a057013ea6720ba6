package afrr_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/markets/afrr"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestParsePrice(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // empty: refused
	}{
		{"85.5", "85.50"},
		{"85.50", "85.50"},
		{"85.500", "85.50"},
		{"-12.25", "-12.25"},
		{"0", "0.00"},
		{"-0", "0.00"},
		{"15000", "15000.00"},
		{"-15000", "-15000.00"},
		{"15000.00", "15000.00"},
		{"1.5e2", "150.00"},
		{"1E-2", "0.01"},
		{"007", "7.00"},
		{"15000.01", ""},
		{"-15000.01", ""},
		{"12.345", ""},
		{"0.001", ""},
		{"1e-3", ""},
		{"1e99", ""},
		{"1e999", ""},
		{"", ""},
		{" 1", ""},
		{"1 ", ""},
		{"+1", ""},
		{"1.", ""},
		{".5", ""},
		{"NaN", ""},
		{"Infinity", ""},
		{"0x10", ""},
		{"1,5", ""},
		{"123456789012345678901", ""},
	} {
		got, err := afrr.ParsePrice(tc.in)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("ParsePrice(%q) = %s, want refused", tc.in, got)
		case tc.want != "" && err != nil:
			t.Errorf("ParsePrice(%q): %v, want %s", tc.in, err, tc.want)
		case tc.want != "" && afrr.FormatPrice(got) != tc.want:
			t.Errorf("ParsePrice(%q) = %s, want %s", tc.in, afrr.FormatPrice(got), tc.want)
		}
	}
}

func TestPriceCentsRoundTrip(t *testing.T) {
	for _, s := range []string{"0", "0.01", "-0.01", "85.5", "-15000", "15000", "1234.56"} {
		d := dec(s)
		if got := afrr.PriceFromCents(afrr.PriceCents(d)); !got.Equal(d) {
			t.Errorf("%s round-trips to %s", s, got)
		}
	}
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"85.5", "-15000", "1e2", "12.345", "1e99", "abc", "", "0.00", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := afrr.ParsePrice(s)
		if err != nil {
			return
		}
		if d.LessThan(afrr.MinBackupPrice) || d.GreaterThan(afrr.MaxBackupPrice) {
			t.Fatalf("%q accepted as %s, out of range", s, d)
		}
		if !d.Equal(d.Round(2)) {
			t.Fatalf("%q accepted as %s, more than 2 decimals", s, d)
		}
		// What is accepted survives the store's cents and the wire form.
		if back := afrr.PriceFromCents(afrr.PriceCents(d)); !back.Equal(d) {
			t.Fatalf("%q: cents round trip %s != %s", s, back, d)
		}
		again, err := afrr.ParsePrice(afrr.FormatPrice(d))
		if err != nil || !again.Equal(d) {
			t.Fatalf("%q: wire form %s parses to %s, %v", s, afrr.FormatPrice(d), again, err)
		}
	})
}

func testAsset() assets.Asset {
	a := assets.NewAsset("bess-1", "acme", "Battery", "Leipzig", assets.Standalone)
	a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW, a.FCRPrequalifiedMW = 4, 10, 3
	return a
}

// fields returns the offending locations of a validation error.
func fields(err error) []string {
	var e *errs.Error
	if !errors.As(err, &e) {
		return nil
	}
	out := []string{}
	for _, f := range e.Fields {
		out = append(out, f.Location)
	}
	slices.Sort(out)
	return out
}

func TestNewOverride(t *testing.T) {
	now := at("2026-02-01T06:00:00Z")
	valid := func() afrr.OverrideRequest {
		return afrr.OverrideRequest{Product: "neg", Start: at("2026-02-01T08:00:00Z"), End: at("2026-02-01T09:00:00Z"),
			Price: new("85.5"), MaxCapacityMW: new(5.0), Note: new("maintenance")}
	}
	for _, tc := range []struct {
		name   string
		change func(r *afrr.OverrideRequest)
		now    time.Time
		fields []string  // 422 locations
		code   errs.Code // else the code of another error
	}{
		{name: "valid", change: func(*afrr.OverrideRequest) {}},
		{name: "all values unset", change: func(r *afrr.OverrideRequest) { r.Price, r.MaxCapacityMW, r.Note = nil, nil, nil }},
		{name: "cap zero", change: func(r *afrr.OverrideRequest) { r.MaxCapacityMW = new(0.0) }},
		{name: "cap at prequalified", change: func(r *afrr.OverrideRequest) { r.MaxCapacityMW = new(10.0) }},
		{name: "pos cap above prequalified", change: func(r *afrr.OverrideRequest) { r.Product, r.MaxCapacityMW = "pos", new(4.5) },
			fields: []string{"body.max_capacity_mw"}},
		{name: "negative cap", change: func(r *afrr.OverrideRequest) { r.MaxCapacityMW = new(-1.0) }, fields: []string{"body.max_capacity_mw"}},
		{name: "na: the FCR cover offer", change: func(r *afrr.OverrideRequest) { r.Product, r.MaxCapacityMW = "na", new(3.0) }},
		{name: "na cap above the FCR prequalified capacity", change: func(r *afrr.OverrideRequest) { r.Product, r.MaxCapacityMW = "na", new(3.5) },
			fields: []string{"body.max_capacity_mw"}},
		{name: "unknown product", change: func(r *afrr.OverrideRequest) { r.Product = "up" }, fields: []string{"body.product"}},
		{name: "unaligned start", change: func(r *afrr.OverrideRequest) { r.Start = at("2026-02-01T08:05:00Z") }, fields: []string{"body.start_time"}},
		{name: "sub-second start", change: func(r *afrr.OverrideRequest) { r.Start = at("2026-02-01T08:00:00.5Z") }, fields: []string{"body.start_time"}},
		{name: "unaligned end", change: func(r *afrr.OverrideRequest) { r.End = at("2026-02-01T09:00:01Z") }, fields: []string{"body.end_time"}},
		{name: "empty window", change: func(r *afrr.OverrideRequest) { r.End = r.Start }, fields: []string{"body.end_time"}},
		{name: "reversed window", change: func(r *afrr.OverrideRequest) { r.End = at("2026-02-01T07:45:00Z") }, fields: []string{"body.end_time"}},
		{name: "one block", change: func(r *afrr.OverrideRequest) { r.End = at("2026-02-01T08:15:00Z") }},
		{name: "offset times are instants", change: func(r *afrr.OverrideRequest) {
			r.Start, r.End = at("2026-02-01T09:00:00+01:00"), at("2026-02-01T10:15:00+01:00")
		}},
		{name: "price precision", change: func(r *afrr.OverrideRequest) { r.Price = new("1.001") }, fields: []string{"body.price"}},
		{name: "price range", change: func(r *afrr.OverrideRequest) { r.Price = new("-15000.01") }, fields: []string{"body.price"}},
		{name: "long note", change: func(r *afrr.OverrideRequest) { r.Note = new(strings.Repeat("é", 1001)) }, fields: []string{"body.note"}},
		{name: "note at limit", change: func(r *afrr.OverrideRequest) { r.Note = new(strings.Repeat("é", 1000)) }},
		{name: "note with line breaks and tabs", change: func(r *afrr.OverrideRequest) { r.Note = new("grid works:\r\n\tfeeder 3") }},
		{name: "note with NUL", change: func(r *afrr.OverrideRequest) { r.Note = new("works\x00") }, fields: []string{"body.note"}},
		{name: "note with escape", change: func(r *afrr.OverrideRequest) { r.Note = new("\x1b[8mhidden") }, fields: []string{"body.note"}},
		{name: "every problem at once", change: func(r *afrr.OverrideRequest) {
			r.Product, r.Start, r.End, r.Price = "sym", at("2026-02-01T08:01:00Z"), at("2026-02-01T08:00:00Z"), new("x")
		}, fields: []string{"body.end_time", "body.price", "body.product", "body.start_time"}},
		{name: "gate open 11 s before", now: at("2026-02-01T07:59:49Z"), change: func(*afrr.OverrideRequest) {}},
		{name: "gate closes 10 s before", now: at("2026-02-01T07:59:50Z"), change: func(*afrr.OverrideRequest) {}, code: "gate_closed"},
		{name: "started", now: at("2026-02-01T08:20:00Z"), change: func(*afrr.OverrideRequest) {}, code: "gate_closed"},
		{name: "validation before the gate", now: at("2026-02-01T08:20:00Z"), change: func(r *afrr.OverrideRequest) { r.Product = "x" },
			fields: []string{"body.product"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := valid()
			tc.change(&r)
			n := now
			if !tc.now.IsZero() {
				n = tc.now
			}
			o, err := afrr.NewOverride(r, testAsset(), n)
			switch {
			case tc.fields != nil:
				if !errs.Is(err, errs.Invalid) || !slices.Equal(fields(err), tc.fields) {
					t.Fatalf("err %v (fields %v), want 422 on %v", err, fields(err), tc.fields)
				}
			case tc.code != "":
				var e *errs.Error
				if !errors.As(err, &e) || e.Kind != errs.Conflict || e.Code != tc.code {
					t.Fatalf("err %v, want 409 %s", err, tc.code)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if o.AssetID != "bess-1" || o.OrganizationID != "acme" || o.Start.Location() != time.UTC || !o.End.After(o.Start) {
					t.Fatalf("override %+v", o)
				}
				if (r.Price == nil) != (o.Price == nil) || (r.MaxCapacityMW == nil) != (o.MaxCapacityMW == nil) {
					t.Fatalf("unset values must stay unset: %+v", o)
				}
			}
		})
	}
}

func TestNewDefault(t *testing.T) {
	now := at("2026-02-01T06:03:00Z")
	for _, tc := range []struct {
		name   string
		req    afrr.DefaultRequest
		fields []string
	}{
		{"valid", afrr.DefaultRequest{Product: "neg", Price: "-20", MaxCapacityMW: new(7.5)}, nil},
		{"no cap", afrr.DefaultRequest{Product: "pos", Price: "15000"}, nil},
		{"na: the FCR cover offer", afrr.DefaultRequest{Product: "na", Price: "1", MaxCapacityMW: new(3.0)}, nil},
		{"na cap above the FCR prequalified capacity", afrr.DefaultRequest{Product: "na", Price: "1", MaxCapacityMW: new(3.01)}, []string{"body.default_max_capacity_mw"}},
		{"price", afrr.DefaultRequest{Product: "neg", Price: "15000.5"}, []string{"body.default_price"}},
		{"cap above prequalified", afrr.DefaultRequest{Product: "pos", Price: "1", MaxCapacityMW: new(4.01)}, []string{"body.default_max_capacity_mw"}},
		{"negative cap", afrr.DefaultRequest{Product: "neg", Price: "1", MaxCapacityMW: new(-0.5)}, []string{"body.default_max_capacity_mw"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := afrr.NewDefault(tc.req, testAsset(), now)
			if tc.fields != nil {
				if !slices.Equal(fields(err), tc.fields) {
					t.Fatalf("err %v, want 422 on %v", err, tc.fields)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !d.EffectiveFrom.Equal(at("2026-02-01T06:15:00Z")) || d.AssetID != "bess-1" || d.OrganizationID != "acme" {
				t.Fatalf("default %+v", d)
			}
		})
	}
}

func TestFirstOpenBlock(t *testing.T) {
	for _, tc := range []struct{ now, want string }{
		{"2026-02-01T06:00:00Z", "2026-02-01T06:15:00Z"}, // a block starting now has started
		{"2026-02-01T06:14:49.999Z", "2026-02-01T06:15:00Z"},
		{"2026-02-01T06:14:50Z", "2026-02-01T06:30:00Z"}, // the gate is 10 s before
		{"2026-02-01T06:14:59Z", "2026-02-01T06:30:00Z"},
		{"2026-02-01T23:59:55Z", "2026-02-02T00:15:00Z"},
		{"2026-02-01T07:00:00+01:00", "2026-02-01T06:15:00Z"},
	} {
		if got := afrr.FirstOpenBlock(at(tc.now)); !got.Equal(at(tc.want)) || got.Location() != time.UTC {
			t.Errorf("FirstOpenBlock(%s) = %s, want %s", tc.now, got, tc.want)
		}
	}
}

func TestEffectiveBackupOffer(t *testing.T) {
	defaults := []afrr.Default{
		{Product: afrr.Neg, Price: dec("10"), MaxCapacityMW: new(8.0), EffectiveFrom: at("2026-02-01T06:00:00Z")},
		{Product: afrr.Neg, Price: dec("12.5"), MaxCapacityMW: nil, EffectiveFrom: at("2026-02-01T10:00:00Z")},
		{Product: afrr.Pos, Price: dec("99"), MaxCapacityMW: new(1.0), EffectiveFrom: at("2026-02-01T00:00:00Z")},
	}
	overrides := []afrr.Override{
		{ID: "price-only", Product: afrr.Neg, Start: at("2026-02-01T08:00:00Z"), End: at("2026-02-01T11:00:00Z"), Price: new(dec("-5"))},
		{ID: "cap-only", Product: afrr.Neg, Start: at("2026-02-01T12:00:00Z"), End: at("2026-02-01T12:30:00Z"), MaxCapacityMW: new(0.0)},
		{ID: "both", Product: afrr.Neg, Start: at("2026-02-01T13:00:00Z"), End: at("2026-02-01T13:15:00Z"), Price: new(dec("1")), MaxCapacityMW: new(3.0)},
		{ID: "neither", Product: afrr.Neg, Start: at("2026-02-01T14:00:00Z"), End: at("2026-02-01T14:15:00Z")},
		{ID: "pos", Product: afrr.Pos, Start: at("2026-02-01T08:00:00Z"), End: at("2026-02-01T09:00:00Z"), Price: new(dec("50"))},
		{ID: "old", Product: afrr.Neg, Start: at("2026-02-01T16:00:00Z"), End: at("2026-02-01T17:00:00Z"), Price: new(dec("7")), CreatedAt: at("2026-02-01T01:00:00Z")},
		{ID: "new", Product: afrr.Neg, Start: at("2026-02-01T16:00:00Z"), End: at("2026-02-01T16:30:00Z"), Price: new(dec("8")), CreatedAt: at("2026-02-01T02:00:00Z")},
	}
	type want struct {
		price       string // empty: nil
		priceSource afrr.OfferSource
		cap         *float64
		capSource   afrr.OfferSource
		override    string
		offered     bool
	}
	for _, tc := range []struct {
		name    string
		product afrr.Product
		q       string
		want    want
	}{
		{"before any default", afrr.Neg, "2026-02-01T05:45:00Z", want{"", afrr.FromNothing, nil, afrr.FromNothing, "", false}},
		{"first default from its block", afrr.Neg, "2026-02-01T06:00:00Z", want{"10.00", afrr.FromDefault, new(8.0), afrr.FromDefault, "", true}},
		{"override start is inclusive", afrr.Neg, "2026-02-01T08:00:00Z", want{"-5.00", afrr.FromOverride, new(8.0), afrr.FromDefault, "price-only", true}},
		{"unset cap picks up the newer default", afrr.Neg, "2026-02-01T10:45:00Z", want{"-5.00", afrr.FromOverride, nil, afrr.FromDefault, "price-only", true}},
		{"override end is exclusive", afrr.Neg, "2026-02-01T11:00:00Z", want{"12.50", afrr.FromDefault, nil, afrr.FromDefault, "", true}},
		{"cap zero: not offered", afrr.Neg, "2026-02-01T12:15:00Z", want{"12.50", afrr.FromDefault, new(0.0), afrr.FromOverride, "cap-only", false}},
		{"both set", afrr.Neg, "2026-02-01T13:00:00Z", want{"1.00", afrr.FromOverride, new(3.0), afrr.FromOverride, "both", true}},
		{"neither set", afrr.Neg, "2026-02-01T14:00:00Z", want{"12.50", afrr.FromDefault, nil, afrr.FromDefault, "neither", true}},
		{"other product ignored", afrr.Pos, "2026-02-01T08:30:00Z", want{"50.00", afrr.FromOverride, new(1.0), afrr.FromDefault, "pos", true}},
		{"pos default", afrr.Pos, "2026-02-01T13:00:00Z", want{"99.00", afrr.FromDefault, new(1.0), afrr.FromDefault, "", true}},
		{"newest overlapping wins", afrr.Neg, "2026-02-01T16:15:00Z", want{"8.00", afrr.FromOverride, nil, afrr.FromDefault, "new", true}},
		{"older where alone", afrr.Neg, "2026-02-01T16:30:00Z", want{"7.00", afrr.FromOverride, nil, afrr.FromDefault, "old", true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := afrr.EffectiveBackupOffer(defaults, overrides, tc.product, at(tc.q))
			gotPrice := ""
			if got.Price != nil {
				gotPrice = afrr.FormatPrice(*got.Price)
			}
			capEq := (got.MaxCapacityMW == nil) == (tc.want.cap == nil) && (got.MaxCapacityMW == nil || *got.MaxCapacityMW == *tc.want.cap)
			if gotPrice != tc.want.price || got.PriceSource != tc.want.priceSource || !capEq || got.CapacitySource != tc.want.capSource ||
				got.OverrideID != tc.want.override || got.Offered() != tc.want.offered || !got.QuarterHour.Equal(at(tc.q)) || got.Product != tc.product {
				t.Fatalf("got %+v (price %q cap %v offered %v), want %+v", got, gotPrice, got.MaxCapacityMW, got.Offered(), tc.want)
			}
		})
	}
	// The result never aliases the inputs.
	got := afrr.EffectiveBackupOffer(defaults, overrides, afrr.Neg, at("2026-02-01T13:00:00Z"))
	*got.MaxCapacityMW = 99
	if *overrides[2].MaxCapacityMW != 3 {
		t.Fatal("offer aliases the override's cap")
	}
}
