package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"atcp/internal/auth"
	"atcp/internal/portfolio"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// TestCoverStepStore: steps in force at an instant, superseding (an
// ended step keeps its past, a step superseded the instant it began is
// gone), a quarter-hour's steps for settlement, and the list filtered by
// visibility, organisation, pool and overlap.
func TestCoverStepStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withDispatchAssets(t, b)
		ctx, s := context.Background(), b.CoverSteps()
		qh := testkit.Start.Truncate(15 * time.Minute).Add(15 * time.Minute)
		end := qh.Add(15 * time.Minute)
		fifty := decimal.RequireFromString("50.25")
		step := func(org, pool, failing, covering string, mw float64, from time.Time) portfolio.Step {
			st := portfolio.Step{ID: uuid.NewString(), OrganizationID: org, PoolID: pool, QuarterHour: qh,
				Assignment: portfolio.Assignment{Product: portfolio.AFRRNeg, Failing: failing, Covering: covering, MW: mw, ObligationMW: 10},
				From:       from, To: end, CreatedAt: from}
			if covering != "" {
				st.Price, st.PriceSource = &fifty, "default"
			}
			return st
		}
		covered := step("acme", "p1", "a1", "a2", 6, qh.Add(2*time.Minute))
		uncovered := step("acme", "p1", "a1", "", 4, qh.Add(2*time.Minute))
		other := step("beta", "", "b1", "", 3, qh)
		if err := s.Supersede(ctx, qh, nil, []portfolio.Step{covered, uncovered, other}); err != nil {
			t.Fatal(err)
		}
		describe := func(list []portfolio.Step, err error) string {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			out := ""
			for _, st := range list {
				p := "-"
				if st.Price != nil {
					p = st.Price.StringFixed(2) + " " + st.PriceSource
				}
				out += fmt.Sprintf("[%s %s %s<-%q %g/%g @%s %s-%s]", st.OrganizationID, st.PoolID, st.Failing, st.Covering, st.MW,
					st.ObligationMW, p, st.From.Sub(qh), st.To.Sub(qh))
			}
			return out
		}
		check := func(what, got, want string) {
			t.Helper()
			if got != want {
				t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
			}
		}
		check("in force at the start", describe(s.OpenAt(ctx, qh)), `[beta  b1<-"" 3/10 @- 0s-15m0s]`)
		check("in force after 2 minutes", describe(s.OpenAt(ctx, qh.Add(2*time.Minute))),
			`[beta  b1<-"" 3/10 @- 0s-15m0s][acme p1 a1<-"" 4/10 @- 2m0s-15m0s][acme p1 a1<-"a2" 6/10 @50.25 default 2m0s-15m0s]`)
		check("not in force in the next quarter-hour", describe(s.OpenAt(ctx, end)), ``)

		// At 5 minutes the uncovered part is covered: the old step ends
		// there, the new one begins; superseding a step the instant it
		// began removes it.
		now := qh.Add(5 * time.Minute)
		more := step("acme", "p1", "a1", "a2", 10, now)
		if err := s.Supersede(ctx, now, []portfolio.Step{covered, uncovered}, []portfolio.Step{more}); err != nil {
			t.Fatal(err)
		}
		if err := s.Supersede(ctx, now, []portfolio.Step{more}, []portfolio.Step{step("acme", "p1", "a1", "a2", 9, now)}); err != nil {
			t.Fatal(err)
		}
		check("a quarter-hour's steps", describe(s.StepsIn(ctx, qh)),
			`[beta  b1<-"" 3/10 @- 0s-15m0s][acme p1 a1<-"" 4/10 @- 2m0s-5m0s][acme p1 a1<-"a2" 6/10 @50.25 default 2m0s-5m0s][acme p1 a1<-"a2" 9/10 @50.25 default 5m0s-15m0s]`)
		check("another quarter-hour", describe(s.StepsIn(ctx, end)), ``)

		all, acme := auth.Visibility{All: true}, auth.Visibility{OrganizationID: "acme"}
		list := func(v auth.Visibility, org, pool string, from, to time.Duration) string {
			return describe(s.List(ctx, v, portfolio.Filter{OrganizationID: org, PoolID: pool, Start: qh.Add(from), End: qh.Add(to), Limit: 100}))
		}
		check("pool p1 overlapping [4m, 6m)", list(acme, "acme", "p1", 4*time.Minute, 6*time.Minute),
			`[acme p1 a1<-"" 4/10 @- 2m0s-5m0s][acme p1 a1<-"a2" 6/10 @50.25 default 2m0s-5m0s][acme p1 a1<-"a2" 9/10 @50.25 default 5m0s-15m0s]`)
		check("a step ending at the start is not returned", list(acme, "acme", "p1", 5*time.Minute, 6*time.Minute),
			`[acme p1 a1<-"a2" 9/10 @50.25 default 5m0s-15m0s]`)
		check("a step starting at the end is not returned", list(acme, "acme", "p1", 0, 2*time.Minute), ``)
		check("another organisation's steps are invisible", list(acme, "beta", "", 0, time.Hour), ``)
		check("a platform administrator sees them", list(all, "beta", "", 0, time.Hour), `[beta  b1<-"" 3/10 @- 0s-15m0s]`)
		check("another pool", list(acme, "acme", "p2", 0, time.Hour), ``)
		check("an asset's steps: failing or covering", describe(s.List(ctx, acme, portfolio.Filter{OrganizationID: "acme", AssetID: "a2",
			Start: qh, End: end, Limit: 100})),
			`[acme p1 a1<-"a2" 6/10 @50.25 default 2m0s-5m0s][acme p1 a1<-"a2" 9/10 @50.25 default 5m0s-15m0s]`)
		check("an asset without steps", describe(s.List(ctx, acme, portfolio.Filter{OrganizationID: "acme", AssetID: "a3",
			Start: qh, End: end, Limit: 100})), ``)
		check("the limit", describe(s.List(ctx, acme, portfolio.Filter{OrganizationID: "acme", Start: qh, End: end, Limit: 1})),
			`[acme p1 a1<-"" 4/10 @- 2m0s-5m0s]`)
	})
}
