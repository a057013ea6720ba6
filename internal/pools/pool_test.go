package pools

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/errs"
)

func TestValidID(t *testing.T) {
	for _, ok := range []string{"a", "Z", "9", "pool-1", "Nord_Ost.2026", strings.Repeat("p", 64), "a..b", "a-"} {
		if !ValidID(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", ".", "..", "-a", "_a", ".a", strings.Repeat("p", 65), "a b", "a/b", "a%2F", "a:b",
		"pool\n", "Pöol", "a\x00"} {
		if ValidID(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

// fields returns the locations an error names, or the code of another
// domain error, so that a table states both.
func fields(err error) []string {
	var e *errs.Error
	if !errors.As(err, &e) {
		if err == nil {
			return nil
		}
		return []string{"not a domain error: " + err.Error()}
	}
	if e.Kind != errs.Invalid {
		return []string{string(e.Code)}
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Location)
	}
	return out
}

func TestCheckList(t *testing.T) {
	many := make([]string, MaxMembers+1)
	for i := range many {
		many[i] = fmt.Sprintf("bess-%d", i)
	}
	for _, c := range []struct {
		name string
		ids  []string
		want []string
	}{
		{"none", nil, nil},
		{"empty", []string{}, nil},
		{"distinct", []string{"a", "b", "c"}, nil},
		{"the most", many[:MaxMembers], nil},
		{"one too many", many, []string{"list_asset_ids"}},
		{"a repetition is named where it repeats", []string{"a", "b", "a", "a", "b"},
			[]string{"list_asset_ids[2]", "list_asset_ids[3]", "list_asset_ids[4]"}},
		// Asset ids are case-sensitive.
		{"case differs", []string{"bess", "BESS"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v errs.Validation
			ok := checkList(&v, c.ids)
			if got := fields(v.Err()); !slices.Equal(got, c.want) || ok != (c.want == nil) {
				t.Fatalf("fields %v, want %v", got, c.want)
			}
		})
	}
}

func TestCheckCandidates(t *testing.T) {
	member := func(id, pool string) Candidate {
		return Candidate{AssetID: id, Found: true, Status: assets.Live, PoolID: pool}
	}
	for _, c := range []struct {
		name  string
		cands []Candidate
		want  []string
		// words the message of a 409 must hold
		names []string
	}{
		{"empty pool", nil, nil, nil},
		{"free assets", []Candidate{member("a", ""), member("b", "")}, nil, nil},
		{"members of this pool stay", []Candidate{member("a", "p"), member("b", "")}, nil, nil},
		{"every operational status but offboarded", []Candidate{
			{AssetID: "a", Found: true, Status: assets.Onboarding}, {AssetID: "b", Found: true, Status: assets.OnboardingTesting},
			{AssetID: "c", Found: true, Status: assets.Maintenance}, member("d", ""),
		}, nil, nil},
		{"unknown", []Candidate{member("a", ""), {AssetID: "x"}}, []string{"list_asset_ids[1]"}, nil},
		{"offboarded", []Candidate{{AssetID: "a", Found: true, Status: assets.Offboarded}}, []string{"list_asset_ids[0]"}, nil},
		{"in another pool", []Candidate{member("a", ""), member("b", "q"), member("c", "r")},
			[]string{"asset_in_other_pool"}, []string{`asset "b" is in pool "q"`, `asset "c" is in pool "r"`}},
		// Every 422 comes before a 409: the request is wrong either way.
		{"unknown and in another pool", []Candidate{member("b", "q"), {AssetID: "x"}}, []string{"list_asset_ids[1]"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckCandidates("acme", "p", c.cands)
			if got := fields(err); !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v (%v)", got, c.want, err)
			}
			for _, w := range c.names {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %s", err, w)
				}
			}
		})
	}
}

// The message about an asset that is not the organisation's is the same
// whether it is unknown or another organisation's: it names only the
// organisation the request acts on.
func TestUnknownMemberSaysNothingOfOthers(t *testing.T) {
	err := CheckCandidates("acme", "p", []Candidate{{AssetID: "beta-bess"}})
	var e *errs.Error
	if !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Message != `is not an asset of organisation "acme"` ||
		e.Fields[0].Value != "beta-bess" {
		t.Fatalf("%#v", err)
	}
}
