package assets

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCheckTopicPrefix(t *testing.T) {
	for _, ok := range []string{"a", "atcp/bess-1", "site 7/bess.ü/α", "a/b/c/d", "x$", strings.Repeat("a", MaxTopicPrefixLength)} {
		if msg := CheckTopicPrefix(ok); msg != "" {
			t.Errorf("%q refused: %s", ok, msg)
		}
	}
	for _, bad := range []string{
		"", strings.Repeat("a", MaxTopicPrefixLength+1), strings.Repeat("ü", MaxTopicPrefixLength/2+1),
		"a\xffb", "a\x00b", "a\tb", "a\u0085b", "a/+/b", "+", "a/#", "a#b",
		"$SYS", "$share/g/a", "/a", "/", "a/", "a//b",
	} {
		if CheckTopicPrefix(bad) == "" {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestAdapterDefaultsAndValidation(t *testing.T) {
	a := NewAsset("bess-1", "acme", "n", "l", Standalone)
	if a.Adapter != AdapterSimulator || a.AdapterTopicPrefix != "atcp/bess-1" || a.Validate() != nil {
		t.Fatalf("defaults %q %q: %v", a.Adapter, a.AdapterTopicPrefix, a.Validate())
	}
	for _, name := range Adapters {
		if !ValidAdapter(name) {
			t.Errorf("%s not valid", name)
		}
	}
	cases := []struct {
		name   string
		mutate func(a *Asset)
		want   []string
	}{
		{"mqtt with a prefix", func(a *Asset) { a.Adapter, a.AdapterTopicPrefix = AdapterMQTT, "plant/north" }, nil},
		{"unknown adapter", func(a *Asset) { a.Adapter = "iec104" }, []string{"adapter"}},
		{"no adapter", func(a *Asset) { a.Adapter = "" }, []string{"adapter"}},
		{"no prefix", func(a *Asset) { a.AdapterTopicPrefix = "" }, []string{"adapter_topic_prefix"}},
		{"prefix with an empty level", func(a *Asset) { a.AdapterTopicPrefix = "a//b" }, []string{"adapter_topic_prefix"}},
		// An invalid id is reported once, not again through its default prefix.
		{"bad id under its default prefix", func(a *Asset) { a.ID = "a+b"; a.AdapterTopicPrefix = DefaultTopicPrefix(a.ID) }, []string{"asset_id"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := NewAsset("bess-1", "acme", "n", "l", Standalone)
			c.mutate(&a)
			if got := locations(t, a.Validate()); !slices.Equal(got, c.want) {
				t.Fatalf("offending fields %v, want %v", got, c.want)
			}
		})
	}
}

// TestUpdateAdapter: the domain update takes the adapter fields as plain
// Go values; a create defaults them, an update changes only what is sent.
func TestUpdateAdapter(t *testing.T) {
	u := Update{AssetID: Some("b1"), OrganisationID: Some("acme"), AssetName: Some("n"), AssetType: Some(Standalone), Location: Some("l")}
	later := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	a, err := u.Create(later)
	if err != nil || a.Adapter != AdapterSimulator || a.AdapterTopicPrefix != "atcp/b1" {
		t.Fatalf("create %q %q: %v", a.Adapter, a.AdapterTopicPrefix, err)
	}
	next, changed, err := Update{Adapter: Some(AdapterMQTT)}.Apply(a, later)
	if err != nil || !changed || next.Adapter != AdapterMQTT || next.AdapterTopicPrefix != "atcp/b1" {
		t.Fatalf("apply %+v, %v, %v", next, changed, err)
	}
	if _, _, err := (Update{AdapterTopicPrefix: Optional[string]{Present: true, Null: true}}).Apply(a, later); !slices.Equal(locations(t, err), []string{"adapter_topic_prefix"}) {
		t.Fatalf("null prefix: %v", err)
	}
}
