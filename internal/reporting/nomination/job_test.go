package nomination_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/reporting/nomination"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// jobDay is the delivery day the job tests nominate.
var jobDay = calendar.Day{Year: 2026, Month: 3, Day: 29}

func seed(t *testing.T, b store.Backend) {
	t.Helper()
	ctx := context.Background()
	dir := identity.NewDirectory(b.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	tso := assets.TSOTenneT
	a := assets.NewAsset("a1", "acme", "Battery a1", "Kiel", assets.Standalone)
	a.TSO, a.CreatedAt, a.UpdatedAt = &tso, testkit.Start, testkit.Start
	if _, err := b.Assets().Create(ctx, a); err != nil {
		t.Fatal(err)
	}
}

var bidSeq int

func putBid(t *testing.T, b store.Backend, q time.Time, p bids.Product, st bids.Status, mw float64) bids.Bid {
	t.Helper()
	bidSeq++
	price := bids.EUR(1)
	x := bids.Bid{ID: fmt.Sprintf("00000000-0000-7000-8000-%012d", bidSeq),
		OrganizationID: "acme", AssetID: "a1", Market: bids.AFRREnergy, Product: p, Start: q, End: q.Add(calendar.PeriodLength),
		OfferedMW: 10, EnergyPrice: &price, Status: st, CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
	if st == bids.Successful {
		x.AwardedMW = &mw
	}
	err := b.Bids().Apply(context.Background(), auth.Visibility{All: true}, assets.Asset{ID: x.AssetID}, x.Market, x.Interval(),
		func(assets.Asset, []bids.Bid) (bids.Changes, error) { return bids.Changes{Insert: []bids.Bid{x}}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func settle(t *testing.T, b store.Backend, x bids.Bid, mw float64) {
	t.Helper()
	x.Status, x.AwardedMW = bids.Successful, &mw
	err := b.Bids().Apply(context.Background(), auth.Visibility{All: true}, assets.Asset{ID: x.AssetID}, x.Market, x.Interval(),
		func(assets.Asset, []bids.Bid) (bids.Changes, error) { return bids.Changes{Update: []bids.Bid{x}}, nil })
	if err != nil {
		t.Fatal(err)
	}
}

// rejecting is an exchange that rejects every revision.
type rejecting struct{}

func (rejecting) Send(context.Context, nomination.Revision, map[nomination.Direction][]byte) (nomination.Answer, error) {
	return nomination.Answer{Detail: "rejected: unknown balancing group"}, nil
}

// recording acknowledges and keeps what it was sent.
type recording struct{ sent []nomination.Revision }

func (r *recording) Send(ctx context.Context, rev nomination.Revision, files map[nomination.Direction][]byte) (nomination.Answer, error) {
	r.sent = append(r.sent, rev)
	return nomination.Simulated{}.Send(ctx, rev, files)
}

var acmeTenneT = nomination.Config{OrganizationID: "acme", TSO: assets.TSOTenneT, ResponsibleOrganizationID: "acme",
	EICs: nomination.EICs{ControlArea: "10YDE-EON------1", SourceControlArea: "10YDE-EON------1", TargetControlArea: "10YDE-EON------1",
		SourceBalancingGroup: "11XATCP-TEST-P2A", TargetBalancingGroup: "11XATCP-TEST-D29"}}

func TestJob(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		seed(t, b)
		s := b.Nominations()
		if err := s.PutConfig(ctx, acmeTenneT); err != nil {
			t.Fatal(err)
		}
		qs := jobDay.Periods()
		end := jobDay.Span().End
		putBid(t, b, qs[0].Start, bids.Neg, bids.Successful, 3.1)
		late := putBid(t, b, qs[91].Start, bids.Pos, bids.Submitted, 0)
		clk := clock.NewManual(end)
		x := &recording{}
		job := nomination.NewJob(s, x, clk)
		run := func(at time.Time) {
			t.Helper()
			clk.Set(at)
			if err := job.Run(ctx, at); err != nil {
				t.Fatal(err)
			}
		}
		revisions := func() []nomination.Revision {
			t.Helper()
			revs, err := s.Revisions(ctx, "acme", jobDay, "")
			if err != nil {
				t.Fatal(err)
			}
			return revs
		}

		run(end.Add(-15 * time.Minute)) // the day is not over
		run(end.Add(time.Hour))         // an outcome is missing: within the grace
		if revs := revisions(); len(revs) != 0 {
			t.Fatalf("revisions before the grace ended: %+v", revs)
		}
		run(end.Add(nomination.Grace))
		revs := revisions()
		if len(revs) != 1 || revs[0].Status != nomination.Acknowledged || len(revs[0].Periods) != 91 || len(x.sent) != 1 {
			t.Fatalf("after the grace: %+v (sent %d)", revs, len(x.sent))
		}
		run(end.Add(nomination.Grace + nomination.Every)) // nothing changed
		if revs := revisions(); len(revs) != 1 || len(x.sent) != 1 {
			t.Fatalf("unchanged day: %d revisions, sent %d", len(revs), len(x.sent))
		}
		settle(t, b, late, 1.5) // the late outcome
		run(end.Add(nomination.Grace + 2*nomination.Every))
		revs = revisions()
		if len(revs) != 2 || revs[1].Status != nomination.Acknowledged || len(revs[1].Periods) != 92 ||
			revs[1].Reason != "1 zone period(s) changed; 1 asset row(s) changed" || revs[1].SentAt == nil {
			t.Fatalf("after the late outcome: %+v", revs)
		}
		acked, err := s.Acknowledged(ctx, "acme", jobDay, "")
		if err != nil || len(acked) != 1 || acked[0].Number != 2 || acked[0].Periods[91].Pos.String() != "1.5" {
			t.Fatalf("acknowledged %+v, %v", acked, err)
		}
		// Days beyond the lookback are left alone.
		putBid(t, b, qs[10].Start, bids.Neg, bids.Successful, 1)
		run(end.Add(nomination.Lookback))
		if revs := revisions(); len(revs) != 2 {
			t.Fatalf("a day beyond the lookback was nominated again: %d revisions", len(revs))
		}
	})
}

func TestJobRejectedAndHeld(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		seed(t, b)
		s := b.Nominations()
		putBid(t, b, jobDay.Periods()[4].Start, bids.Neg, bids.Successful, 2)
		end := jobDay.Span().End
		clk := clock.NewManual(end)
		// No EICs: held, never sent.
		if err := nomination.NewJob(s, rejecting{}, clk).Run(ctx, end); err != nil {
			t.Fatal(err)
		}
		revs, err := s.Revisions(ctx, "acme", jobDay, assets.TSOTenneT)
		if err != nil || len(revs) != 1 || revs[0].Status != nomination.Held || revs[0].Detail != nomination.HeldDetail || revs[0].SentAt != nil {
			t.Fatalf("without EICs: %+v, %v", revs, err)
		}
		// EICs configured: the next revision is sent, and rejected.
		if err := s.PutConfig(ctx, acmeTenneT); err != nil {
			t.Fatal(err)
		}
		if err := nomination.NewJob(s, rejecting{}, clk).Run(ctx, end.Add(nomination.Every)); err != nil {
			t.Fatal(err)
		}
		revs, err = s.Revisions(ctx, "acme", jobDay, "")
		if err != nil || len(revs) != 2 || revs[1].Status != nomination.Rejected || revs[1].Detail != "rejected: unknown balancing group" ||
			revs[1].Reason != "header EICs changed" || revs[1].AnswerAt == nil {
			t.Fatalf("rejected: %+v, %v", revs, err)
		}
		if acked, err := s.Acknowledged(ctx, "acme", jobDay, ""); err != nil || len(acked) != 0 {
			t.Fatalf("a rejected revision is visible: %+v, %v", acked, err)
		}
	})
}
