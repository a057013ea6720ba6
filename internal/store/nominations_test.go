package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/reporting/nomination"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// nominationDay is a delivery day before testkit.Start's next day.
var nominationDay = calendar.Day{Year: 2026, Month: 2, Day: 2}

// withNominationAssets registers acme, beta and optico and the assets
// a1 (acme, 50Hertz), b1 (beta, 50Hertz) and z1 (acme, no zone).
func withNominationAssets(t *testing.T, b store.Backend) {
	t.Helper()
	withAssetOrganizations(t, b)
	for _, a := range []struct {
		id, org string
		tso     *assets.TSO
	}{{"a1", "acme", assetPtr(assets.TSO50Hertz)}, {"b1", "beta", assetPtr(assets.TSO50Hertz)}, {"z1", "acme", nil}} {
		x := assets.NewAsset(a.id, a.org, "Battery "+a.id, "Kiel", assets.Standalone)
		x.TSO, x.CreatedAt, x.UpdatedAt = a.tso, testkit.Start, testkit.Start
		if _, err := b.Assets().Create(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
}

var testEICs = nomination.EICs{ControlArea: "10YDE-VE-------2", SourceControlArea: "10YDE-VE-------2",
	TargetControlArea: "10YDE-VE-------2", SourceBalancingGroup: "11XATCP-TEST-P1C", TargetBalancingGroup: "11XATCP-TEST-D1B"}

func nominationContent(eics *nomination.EICs, negMW string) nomination.Content {
	q := nominationDay.Periods()[0].Start
	p := []nomination.Period{{Start: q, Pos: decimal.Zero, Neg: decimal.RequireFromString(negMW)}}
	return nomination.Content{EICs: eics, Periods: p, Assets: []nomination.AssetRow{
		{AssetID: "a1", OrganizationID: "acme", Periods: p},
		{AssetID: "b1", OrganizationID: "beta", Periods: []nomination.Period{{Start: q, Pos: decimal.Zero, Neg: decimal.Zero}}},
	}}
}

func TestNominationStoreInputs(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withNominationAssets(t, b)
		span := nominationDay.Span()
		in := func(id string, start time.Time, st bids.Status) bids.Bid {
			x := settlementBid(id, "a1", bids.AFRREnergy, bids.Neg, start, start.Add(15*time.Minute), st)
			return x
		}
		seedSettlementBids(t, b,
			in("00000000-0000-7000-8000-000000000001", span.Start, bids.Successful),
			in("00000000-0000-7000-8000-000000000002", span.End.Add(-15*time.Minute), bids.Submitted),
			in("00000000-0000-7000-8000-000000000003", span.Start.Add(15*time.Minute), bids.Failed),
			in("00000000-0000-7000-8000-000000000004", span.End, bids.Successful), // the next day
		)
		got, err := b.Nominations().EnergyBids(ctx, span)
		if err != nil || len(got) != 2 || got[0].Status != bids.Successful || *got[0].AwardedMW != 2 {
			t.Fatalf("EnergyBids = %+v, %v", got, err)
		}
		zones, err := b.Nominations().AssetZones(ctx)
		if err != nil || len(zones) != 2 || zones[0] != (nomination.AssetZone{AssetID: "a1", OrganizationID: "acme", TSO: assets.TSO50Hertz}) ||
			zones[1].AssetID != "b1" {
			t.Fatalf("AssetZones = %+v, %v", zones, err)
		}
	})
}

func TestNominationStoreConfigs(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withNominationAssets(t, b)
		s := b.Nominations()
		if _, err := s.Config(ctx, "acme", assets.TSO50Hertz); !errs.Is(err, errs.NotFound) {
			t.Fatalf("no config: %v", err)
		}
		c := nomination.Config{OrganizationID: "acme", TSO: assets.TSO50Hertz, ResponsibleOrganizationID: "acme", EICs: testEICs,
			Note: "test values", UpdatedAt: testkit.Start}
		if err := s.EnsureConfig(ctx, c); err != nil {
			t.Fatal(err)
		}
		other := c
		other.Note, other.ResponsibleOrganizationID = "not applied", "beta"
		if err := s.EnsureConfig(ctx, other); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Config(ctx, "acme", assets.TSO50Hertz); err != nil || got != c {
			t.Fatalf("Config = %+v, %v; want %+v", got, err, c)
		}
		other.UpdatedAt = testkit.Start.Add(time.Hour)
		if err := s.PutConfig(ctx, other); err != nil {
			t.Fatal(err)
		}
		list, err := s.Configs(ctx)
		if err != nil || len(list) != 1 || list[0] != other {
			t.Fatalf("Configs = %+v, %v", list, err)
		}
	})
}

func TestNominationStoreRevisions(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withNominationAssets(t, b)
		s := b.Nominations()
		k := nomination.Key{OrganizationID: "acme", TSO: assets.TSO50Hertz, Day: nominationDay}
		at := testkit.Start

		// Without EICs: held, never claimed.
		r1, added, err := s.AddRevision(ctx, k, nominationContent(nil, "3.1"), at)
		if err != nil || !added || r1.Number != 1 || r1.Status != nomination.Held || r1.Reason != "first revision" {
			t.Fatalf("revision 1 = %+v, %v, %v", r1, added, err)
		}
		if _, added, err := s.AddRevision(ctx, k, nominationContent(nil, "3.100"), at); err != nil || added {
			t.Fatalf("unchanged content added a revision (%v)", err)
		}
		if got, err := s.ClaimUnsent(ctx, at, at); err != nil || len(got) != 0 {
			t.Fatalf("claimed a held revision: %+v, %v", got, err)
		}
		// With EICs: pending, claimed once.
		r2, added, err := s.AddRevision(ctx, k, nominationContent(&testEICs, "3.1"), at.Add(time.Minute))
		if err != nil || !added || r2.Number != 2 || r2.Status != nomination.Pending || r2.Reason != "header EICs changed" {
			t.Fatalf("revision 2 = %+v, %v, %v", r2, added, err)
		}
		claimed, err := s.ClaimUnsent(ctx, at.Add(2*time.Minute), at.Add(-time.Hour))
		if err != nil || len(claimed) != 1 || claimed[0].Number != 2 || claimed[0].Status != nomination.Sent ||
			len(claimed[0].Assets) != 2 || claimed[0].EICs == nil || *claimed[0].EICs != testEICs || !claimed[0].Periods[0].Neg.Equal(decimal.RequireFromString("3.1")) {
			t.Fatalf("claimed %+v, %v", claimed, err)
		}
		if got, err := s.ClaimUnsent(ctx, at.Add(3*time.Minute), at.Add(2*time.Minute)); err != nil || len(got) != 0 {
			t.Fatalf("claimed again before resend time: %+v, %v", got, err)
		}
		// Unanswered: sent again once its sent_at is before resendBefore.
		if got, err := s.ClaimUnsent(ctx, at.Add(30*time.Minute), at.Add(15*time.Minute)); err != nil || len(got) != 1 {
			t.Fatalf("resend: %+v, %v", got, err)
		}
		acked, err := s.Acknowledged(ctx, "acme", nominationDay, "")
		if err != nil || len(acked) != 0 {
			t.Fatalf("acknowledged before the answer: %+v, %v", acked, err)
		}
		if err := s.Answer(ctx, k, 2, nomination.Acknowledged, "ok", at.Add(31*time.Minute)); err != nil {
			t.Fatal(err)
		}
		// A late outcome: revision 3, rejected; 2 stays the visible one.
		r3, added, err := s.AddRevision(ctx, k, nominationContent(&testEICs, "4"), at.Add(time.Hour))
		if err != nil || !added || r3.Number != 3 || r3.Reason != "1 zone period(s) changed; 1 asset row(s) changed" {
			t.Fatalf("revision 3 = %+v, %v, %v", r3, added, err)
		}
		if _, err := s.ClaimUnsent(ctx, at.Add(time.Hour), at); err != nil {
			t.Fatal(err)
		}
		if err := s.Answer(ctx, k, 3, nomination.Rejected, "schema error", at.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		acked, err = s.Acknowledged(ctx, "acme", nominationDay, assets.TSO50Hertz)
		if err != nil || len(acked) != 1 || acked[0].Number != 2 || acked[0].Detail != "ok" || acked[0].AnswerAt == nil ||
			!acked[0].AnswerAt.Equal(at.Add(31*time.Minute)) || len(acked[0].Assets) != 2 || acked[0].Reference != nomination.Reference(k, 2) {
			t.Fatalf("acknowledged %+v, %v", acked, err)
		}
		revs, err := s.Revisions(ctx, "acme", nominationDay, "")
		if err != nil || len(revs) != 3 || revs[0].Status != nomination.Held || revs[1].Status != nomination.Acknowledged ||
			revs[2].Status != nomination.Rejected || revs[2].Detail != "schema error" || revs[0].SentAt != nil {
			t.Fatalf("revisions %+v, %v", revs, err)
		}
		if revs, err := s.Revisions(ctx, "acme", nominationDay, assets.TSOTenneT); err != nil || len(revs) != 0 {
			t.Fatalf("TenneT revisions %+v, %v", revs, err)
		}
		if zones, err := s.Zones(ctx, "acme", nominationDay); err != nil || len(zones) != 1 || zones[0] != assets.TSO50Hertz {
			t.Fatalf("zones %v, %v", zones, err)
		}
		// Isolation: beta sees its own row of acme's nomination and nothing else.
		if zones, err := s.Zones(ctx, "beta", nominationDay); err != nil || len(zones) != 0 {
			t.Fatalf("beta zones %v, %v", zones, err)
		}
		if acked, err := s.Acknowledged(ctx, "beta", nominationDay, ""); err != nil || len(acked) != 0 {
			t.Fatalf("beta acknowledged %+v, %v", acked, err)
		}
		else_, err := s.OwnedElsewhere(ctx, "beta", nominationDay, "")
		if err != nil || len(else_) != 1 || else_[0].OrganizationID != "acme" || else_[0].EICs != nil || len(else_[0].Periods) != 0 ||
			len(else_[0].Assets) != 1 || else_[0].Assets[0].AssetID != "b1" {
			t.Fatalf("beta elsewhere %+v, %v", else_, err)
		}
		if got, err := s.OwnedElsewhere(ctx, "acme", nominationDay, ""); err != nil || len(got) != 0 {
			t.Fatalf("acme elsewhere %+v, %v", got, err)
		}
		if got, err := s.OwnedElsewhere(ctx, "beta", nominationDay, assets.TSOAmprion); err != nil || len(got) != 0 {
			t.Fatalf("beta elsewhere in Amprion %+v, %v", got, err)
		}
	})
}

// TestNominationStoreConcurrentRuns: two runs nominating the same day at
// once add one revision, and two runs sending claim it once.
func TestNominationStoreConcurrentRuns(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withNominationAssets(t, b)
		s := b.Nominations()
		for round := range 5 {
			k := nomination.Key{OrganizationID: "acme", TSO: assets.TSO50Hertz, Day: nominationDay.AddDays(-round)}
			var wg sync.WaitGroup
			added := make([]bool, 2)
			claimed := make([]int, 2)
			errors := make([]error, 2)
			for i := range 2 {
				wg.Go(func() {
					_, added[i], errors[i] = s.AddRevision(ctx, k, nominationContent(&testEICs, "1"), testkit.Start)
					if errors[i] != nil {
						return
					}
					var got []nomination.Revision
					got, errors[i] = s.ClaimUnsent(ctx, testkit.Start, testkit.Start.Add(-time.Hour))
					claimed[i] = len(got)
				})
			}
			wg.Wait()
			for _, err := range errors {
				if err != nil {
					t.Fatal(err)
				}
			}
			if added[0] == added[1] || claimed[0]+claimed[1] != 1 {
				t.Fatalf("round %d: added %v, claimed %v", round, added, claimed)
			}
			revs, err := s.Revisions(ctx, "acme", k.Day, "")
			if err != nil || len(revs) != 1 {
				t.Fatalf("round %d: %d revisions, %v", round, len(revs), err)
			}
		}
	})
}
