package control

import (
	"fmt"
	"testing"

	"atcp/internal/portfolio"
)

// TestCover: a covered step moves the reservation and the same share of
// the failing battery's activation in that direction to the coverer; an
// uncovered step moves nothing.
func TestCover(t *testing.T) {
	fresh := func() awardCache {
		return awardCache{
			fcr:     map[string]float64{"a": 4},
			afrrPos: map[string]float64{"a": 2}, afrrNeg: map[string]float64{"a": 10, "b": 1},
			// a is activated 1 MW up and 6 MW down in this quarter-hour.
			activated: map[string]float64{"a": -5, "b": -0.5}, ownPos: map[string]float64{"a": 1},
			ownNeg: map[string]float64{"a": -6, "b": -0.5},
		}
	}
	step := func(p portfolio.Product, covering string, mw, obligation float64) portfolio.Step {
		return portfolio.Step{Assignment: portfolio.Assignment{Product: p, Failing: "a", Covering: covering, MW: mw, ObligationMW: obligation}}
	}
	tests := []struct {
		name  string
		steps []portfolio.Step
		want  string
	}{
		{"nothing", nil, "fcr a=4 b=0 | pos a=2 b=0 | neg a=10 b=1 | act a=-5 b=-0.5"},
		{"half of the neg obligation", []portfolio.Step{step(portfolio.AFRRNeg, "b", 5, 10)},
			"fcr a=4 b=0 | pos a=2 b=0 | neg a=5 b=6 | act a=-2 b=-3.5"},
		{"uncovered moves nothing", []portfolio.Step{step(portfolio.AFRRNeg, "", 5, 10)},
			"fcr a=4 b=0 | pos a=2 b=0 | neg a=10 b=1 | act a=-5 b=-0.5"},
		{"the pos obligation: only the pos activation moves", []portfolio.Step{step(portfolio.AFRRPos, "b", 2, 2)},
			"fcr a=4 b=0 | pos a=0 b=2 | neg a=10 b=1 | act a=-6 b=0.5"},
		{"FCR", []portfolio.Step{step(portfolio.FCR, "b", 3, 4)},
			"fcr a=1 b=3 | pos a=2 b=0 | neg a=10 b=1 | act a=-5 b=-0.5"},
		{"two coverers share it", []portfolio.Step{step(portfolio.AFRRNeg, "b", 4, 10), step(portfolio.AFRRNeg, "c", 6, 10)},
			"fcr a=4 b=0 c=0 | pos a=2 b=0 c=0 | neg a=0 b=5 c=6 | act a=1 b=-2.9 c=-3.6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fresh()
			for _, s := range tt.steps {
				c.cover(s)
			}
			ids := []string{"a", "b"}
			if len(tt.steps) == 2 {
				ids = append(ids, "c")
			}
			got := ""
			for i, m := range []map[string]float64{c.fcr, c.afrrPos, c.afrrNeg, c.activated} {
				if i > 0 {
					got += " | "
				}
				got += []string{"fcr", "pos", "neg", "act"}[i]
				for _, id := range ids {
					got += fmt.Sprintf(" %s=%.4g", id, m[id])
				}
			}
			if got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestWithCoversKeepsTheAwards: the covers apply to a copy, so that the
// next read of the covers starts from the awards as read.
func TestWithCoversKeepsTheAwards(t *testing.T) {
	c := awardCache{fcr: map[string]float64{"a": 4}, afrrPos: map[string]float64{}, afrrNeg: map[string]float64{"a": 10},
		activated: map[string]float64{"a": -6}, ownNeg: map[string]float64{"a": -6}}
	step := portfolio.Step{Assignment: portfolio.Assignment{Product: portfolio.AFRRNeg, Failing: "a", Covering: "b", MW: 10, ObligationMW: 10}}
	covered := c.withCovers([]portfolio.Step{step})
	if covered.afrrNeg["b"] != 10 || covered.activated["b"] != -6 || covered.afrrNeg["a"] != 0 {
		t.Fatalf("covered: %+v", covered)
	}
	if c.afrrNeg["a"] != 10 || c.afrrNeg["b"] != 0 || c.activated["a"] != -6 || c.activated["b"] != 0 {
		t.Fatalf("the awards as read changed: %+v", c)
	}
	if again := c.withCovers([]portfolio.Step{step}); again.afrrNeg["b"] != 10 {
		t.Fatalf("applied twice from the awards: %+v", again)
	}
}
