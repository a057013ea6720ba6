package segmentation

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/errs"
)

func segs(shares ...float64) []Segment {
	out := make([]Segment, len(shares))
	for i, s := range shares {
		out[i] = Segment{ID: string(rune('a' + i)), Name: "Segment", Share: s}
	}
	return out
}

// locations returns the locations a validation error names.
func locations(t *testing.T, err error) []string {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.Invalid {
		t.Fatalf("want a validation error, got %v", err)
	}
	var out []string
	for _, d := range e.Fields {
		out = append(out, d.Location)
	}
	return out
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		parent   string
		mode     Mode
		segments []Segment
		want     []string // locations; nil = valid
	}{
		{"valid proportional", "bess-1", Proportional, segs(0.5, 0.5), nil},
		{"valid priority with tolerance", "bess-1", Priority, segs(1.0/3, 1.0/3, 1.0/3), nil},
		{"valid colour and counterparty", "bess-1", Proportional, []Segment{
			{ID: "trader-a", Name: "A", Share: 0.7, Color: new("#A0b1C2"), Counterparty: new("Trader A")},
			{ID: "b", Name: "B", Share: 0.3}}, nil},
		{"unknown mode", "bess-1", "fair", segs(0.5, 0.5), []string{"body.mode"}},
		{"one segment", "bess-1", Proportional, segs(1), []string{"body.segments"}},
		{"seventeen segments", "bess-1", Proportional, func() []Segment {
			s := make([]Segment, 17)
			for i := range s {
				s[i] = Segment{ID: strings.Repeat("x", i+1), Name: "n", Share: 1.0 / 17}
			}
			return s
		}(), []string{"body.segments"}},
		{"shares not adding up", "bess-1", Proportional, segs(0.5, 0.4), []string{"body.segments"}},
		{"percent instead of fraction", "bess-1", Proportional, segs(50, 50), []string{"body.segments[0].share", "body.segments[1].share"}},
		{"zero share", "bess-1", Proportional, segs(1, 0), []string{"body.segments[1].share"}},
		{"NaN share", "bess-1", Proportional, segs(math.NaN(), 1), []string{"body.segments[0].share"}},
		{"duplicate id", "bess-1", Proportional, []Segment{{ID: "a", Name: "A", Share: 0.5}, {ID: "a", Name: "B", Share: 0.5}}, []string{"body.segments[1].segment_id"}},
		{"bad id", "bess-1", Proportional, []Segment{{ID: "A.b", Name: "A", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5}}, []string{"body.segments[0].segment_id"}},
		{"virtual id too long", strings.Repeat("p", 60), Proportional, []Segment{{ID: "abcdef", Name: "A", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5}}, []string{"body.segments[0].segment_id"}},
		{"blank name", "bess-1", Proportional, []Segment{{ID: "a", Name: "  ", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5}}, []string{"body.segments[0].name"}},
		{"bad colour", "bess-1", Proportional, []Segment{{ID: "a", Name: "A", Share: 0.5, Color: new("red")}, {ID: "b", Name: "B", Share: 0.5, Color: new("#12345")}},
			[]string{"body.segments[0].color", "body.segments[1].color"}},
		{"long counterparty", "bess-1", Proportional, []Segment{{ID: "a", Name: "A", Share: 0.5, Counterparty: new(strings.Repeat("c", 201))}, {ID: "b", Name: "B", Share: 0.5}},
			[]string{"body.segments[0].counterparty"}},
		{"name with NUL", "bess-1", Proportional, []Segment{{ID: "a", Name: "A\x00", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5}}, []string{"body.segments[0].name"}},
		{"name of NUL only", "bess-1", Proportional, []Segment{{ID: "a", Name: "A", Share: 0.5}, {ID: "b", Name: "\x00", Share: 0.5}}, []string{"body.segments[1].name"}},
		{"name with escape", "bess-1", Proportional, []Segment{{ID: "a", Name: "\x1b[31mA", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5}}, []string{"body.segments[0].name"}},
		{"name with line break", "bess-1", Proportional, []Segment{{ID: "a", Name: "A\nB", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5}}, []string{"body.segments[0].name"}},
		{"name not UTF-8", "bess-1", Proportional, []Segment{{ID: "a", Name: "A\xff", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5}}, []string{"body.segments[0].name"}},
		{"counterparty with NUL", "bess-1", Proportional, []Segment{{ID: "a", Name: "A", Share: 0.5, Counterparty: new("Trader\x00")}, {ID: "b", Name: "B", Share: 0.5}},
			[]string{"body.segments[0].counterparty"}},
		{"counterparty with a C1 control", "bess-1", Proportional, []Segment{{ID: "a", Name: "A", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5, Counterparty: new("Trader\u009b")}},
			[]string{"body.segments[1].counterparty"}},
		{"segment id with NUL", "bess-1", Proportional, []Segment{{ID: "a\x00", Name: "A", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5}}, []string{"body.segments[0].segment_id"}},
		{"names in other scripts", "bess-1", Proportional, []Segment{{ID: "a", Name: "Händler Süd", Share: 0.5}, {ID: "b", Name: "蓄電池", Share: 0.5, Counterparty: new("Energie – Nord")}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.parent, tc.mode, tc.segments)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if got := locations(t, err); !slices.Equal(got, tc.want) {
				t.Fatalf("locations = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSplitVirtualAssetID(t *testing.T) {
	tests := []struct {
		id, parent, segment string
		ok                  bool
	}{
		{"bess-1.trader-a", "bess-1", "trader-a", true},
		{"site.2.a", "site.2", "a", true},
		{"bess-1", "", "", false},
		{".a", "", "", false},
		{"bess.A", "", "", false},
		{"bess.", "", "", false},
	}
	for _, tc := range tests {
		p, s, ok := SplitVirtualAssetID(tc.id)
		if p != tc.parent || s != tc.segment || ok != tc.ok {
			t.Errorf("SplitVirtualAssetID(%q) = %q, %q, %v", tc.id, p, s, ok)
		}
		if ok && VirtualAssetID(p, s) != tc.id {
			t.Errorf("VirtualAssetID(%q, %q) does not round-trip", p, s)
		}
	}
}

func TestVirtualAsset(t *testing.T) {
	parent := assets.NewAsset("bess-1", "acme", "Leipzig 1", "Leipzig", assets.Standalone)
	parent.UsablePowerCapacityMW, parent.UsableEnergyCapacityMWh = new(10.0), new(20.0)
	parent.AFRRPrequalifiedNegMW, parent.FCRPrequalifiedMW = 8, 4
	parent.Adapter, parent.AdapterTopicPrefix = assets.AdapterMQTT, "plant/bess-1"
	v := VirtualAsset(parent, Segment{ID: "a", Name: "Trader A", Share: 0.25})
	if v.ID != "bess-1.a" || !v.IsVirtual() || *v.ParentAssetID != "bess-1" || v.OrganizationID != "acme" || v.Name != "Leipzig 1 / Trader A" {
		t.Fatalf("identity: %+v", v)
	}
	// The battery behind a virtual asset is the parent's, steered through
	// the parent's adapter.
	if v.Adapter != assets.AdapterMQTT || v.AdapterTopicPrefix != "plant/bess-1" {
		t.Fatalf("adapter %q under %q", v.Adapter, v.AdapterTopicPrefix)
	}
	if *v.UsablePowerCapacityMW != 2.5 || *v.UsableEnergyCapacityMWh != 5 || v.AFRRPrequalifiedNegMW != 2 || v.FCRPrequalifiedMW != 1 || v.GridConnectionPowerMW != nil {
		t.Fatalf("capacities: %+v", v)
	}
	if *parent.UsablePowerCapacityMW != 10 || parent.IsVirtual() {
		t.Fatal("the parent changed")
	}
}

func TestCodecRoundTrip(t *testing.T) {
	in := []Segment{{ID: "a", Name: "A", Share: 0.6, Color: new("#ffffff")}, {ID: "b", Name: "B", Share: 0.4, Counterparty: new("X")}}
	data, err := EncodeSegments(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeSegments(data)
	if err != nil || len(out) != 2 || out[0].ID != "a" || *out[0].Color != "#ffffff" || out[1].Color != nil || *out[1].Counterparty != "X" || out[1].Share != 0.4 {
		t.Fatalf("round trip: %+v, %v", out, err)
	}
}

// FuzzValidate checks that Validate never panics and that whatever it
// accepts has segment ids giving valid virtual asset ids.
func FuzzValidate(f *testing.F) {
	f.Add("bess-1", "proportional", "a", "b", 0.5, 0.5, "#000000")
	f.Add("x", "priority", "a", "a", 0.2, 0.8, "")
	f.Fuzz(func(t *testing.T, parent, mode, id0, id1 string, s0, s1 float64, color string) {
		g := []Segment{{ID: id0, Name: "A", Share: s0, Color: &color}, {ID: id1, Name: "B", Share: s1}}
		if Validate(parent, Mode(mode), g) != nil {
			return
		}
		for _, s := range g {
			p, seg, ok := SplitVirtualAssetID(VirtualAssetID(parent, s.ID))
			if !ok || p != parent || seg != s.ID {
				t.Fatalf("accepted segment %q of %q does not round-trip", s.ID, parent)
			}
		}
	})
}
