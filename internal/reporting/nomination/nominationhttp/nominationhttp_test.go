package nominationhttp_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/reporting/nomination"
	"atcp/internal/reporting/nomination/nominationhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// day is the nominated delivery day; the harness's clock is moved to the
// day after it.
var day = calendar.Day{Year: 2026, Month: 2, Day: 2}

var acmeEICs = nomination.EICs{ControlArea: "10YDE-VE-------2", SourceControlArea: "10YDE-VE-------2", TargetControlArea: "10YDE-VE-------2",
	SourceBalancingGroup: "11XATCP-TEST-P1C", TargetBalancingGroup: "11XATCP-TEST-D1B"}

// setup serves the endpoints over b with: acme's a1 (50Hertz) and a2
// (TenneT, no EICs: held), beta's b1 in 50Hertz in acme's balancing
// group, and the nominations of day built and exchanged by the job.
func setup(t *testing.T, b store.Backend) *testkit.Harness {
	t.Helper()
	ctx := context.Background()
	h := testkit.NewHarness(t, b)
	dir := identity.NewDirectory(b.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
	for _, org := range []string{"acme", "beta", "gamma"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []struct {
		id, org string
		tso     assets.TSO
	}{{"a1", "acme", assets.TSO50Hertz}, {"a2", "acme", assets.TSOTenneT}, {"b1", "beta", assets.TSO50Hertz}} {
		x := assets.NewAsset(a.id, a.org, "Battery "+a.id, "Kiel", assets.Standalone)
		x.TSO, x.CreatedAt, x.UpdatedAt = &a.tso, testkit.Start, testkit.Start
		if _, err := b.Assets().Create(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	s := b.Nominations()
	for _, c := range []nomination.Config{
		{OrganizationID: "acme", TSO: assets.TSO50Hertz, ResponsibleOrganizationID: "acme", EICs: acmeEICs},
		{OrganizationID: "beta", TSO: assets.TSO50Hertz, ResponsibleOrganizationID: "acme", EICs: acmeEICs},
	} {
		if err := s.PutConfig(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	qs := day.Periods()
	for i, x := range []struct {
		asset, org string
		p          bids.Product
		q          int
		mw         float64
	}{{"a1", "acme", bids.Neg, 0, 3.1}, {"b1", "beta", bids.Pos, 1, 1}, {"a2", "acme", bids.Neg, 0, 2}} {
		price := bids.EUR(1)
		mw := x.mw
		bid := bids.Bid{ID: fmt.Sprintf("00000000-0000-7000-8000-%012d", i+1), OrganizationID: x.org, AssetID: x.asset,
			Market: bids.AFRREnergy, Product: x.p, Start: qs[x.q].Start, End: qs[x.q].End, OfferedMW: 5, EnergyPrice: &price,
			Status: bids.Successful, AwardedMW: &mw, CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
		err := b.Bids().Apply(ctx, auth.Visibility{All: true}, assets.Asset{ID: bid.AssetID}, bid.Market, bid.Interval(),
			func(assets.Asset, []bids.Bid) (bids.Changes, error) {
				return bids.Changes{Insert: []bids.Bid{bid}}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	now := day.Span().End.Add(3 * time.Hour) // 2026-02-03 02:00 UTC
	h.Clock.Set(now)
	if err := nomination.NewJob(s, nomination.Simulated{}, h.Clock).Run(ctx, now); err != nil {
		t.Fatal(err)
	}
	nominationhttp.Register(h.Server, nomination.NewService(s, b.Directory(), h.Clock))
	return h
}

const schedules = "/v1/balancing-groups/afrr/schedules"

func TestSchedule(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		h := setup(t, b)
		acme := h.TokenFor("acme", auth.ReportRead)
		var s nominationhttp.Schedule
		h.Do("GET", schedules+"?delivery_day=2026-02-02", acme, nil).Expect(t, 200, "").JSON(t, &s)
		if s.DeliveryDay != "2026-02-02" || s.ExpectedPeriodCount != 96 || !s.DayStart.Equal(day.Span().Start) || len(s.Zones) != 2 {
			t.Fatalf("schedule %+v", s)
		}
		z := s.Zones[0]
		if z.TSO != "50HZ" || z.AggregateScope != "balancing_group" || z.ControlAreaEIC == nil || *z.ControlAreaEIC != "10YDE-VE-------2" ||
			z.NominationPos.SourceBalancingGroupEIC != "11XATCP-TEST-P1C" || z.NominationNeg.SourceBalancingGroupEIC != "11XATCP-TEST-D1B" ||
			z.NominationPos.DataExchangeReference != "ATCP-20260202-50HZ-acme-R001" || z.NominationPos.Unit != "MW" {
			t.Fatalf("50Hertz header %+v", z)
		}
		if len(z.Periods) != 96 || z.Periods[0].VolumeNegMW != "3.1" || z.Periods[1].VolumePosMW != "1" || z.Periods[2].VolumeNegMW != "0" {
			t.Fatalf("50Hertz periods %+v", z.Periods[:3])
		}
		if len(z.Assets) != 2 || z.Assets[0].AssetID != "a1" || z.Assets[1].AssetID != "b1" || z.Assets[1].BalancingGroupResponsibleOrgID != "acme" {
			t.Fatalf("50Hertz assets %+v", z.Assets)
		}
		// TenneT has no EICs: its revision is held, nothing is published.
		if z := s.Zones[1]; z.TSO != "TNNT" || z.AggregateScope != "balancing_group" || z.ControlAreaEIC != nil || z.NominationPos != nil ||
			len(z.Periods) != 0 || len(z.Assets) != 0 {
			t.Fatalf("TenneT %+v", z)
		}
		// asset_ids narrows the rows and the zones, never the zone periods.
		s = nominationhttp.Schedule{}
		h.Do("GET", schedules+"?delivery_day=2026-02-02&asset_ids=b1,zz", acme, nil).Expect(t, 200, "").JSON(t, &s)
		if len(s.Zones) != 1 || len(s.Zones[0].Assets) != 1 || s.Zones[0].Assets[0].AssetID != "b1" || len(s.Zones[0].Periods) != 96 {
			t.Fatalf("asset_ids=b1: %+v", s)
		}
		s = nominationhttp.Schedule{}
		h.Do("GET", schedules+"?delivery_day=2026-02-02&tso=TNNT", acme, nil).Expect(t, 200, "").JSON(t, &s)
		if len(s.Zones) != 1 || s.Zones[0].TSO != "TNNT" {
			t.Fatalf("tso=TNNT: %+v", s)
		}
		// A platform administrator names the organisation.
		s = nominationhttp.Schedule{}
		h.Do("GET", schedules+"?delivery_day=2026-02-02&organization_id=acme", h.AdminToken(), nil).Expect(t, 200, "").JSON(t, &s)
		if len(s.Zones) != 2 {
			t.Fatalf("admin: %+v", s)
		}
		// The clock-change days count their quarter-hours; nothing is nominated.
		for d, n := range map[string]int{"2026-03-29": 92, "2026-10-25": 100} {
			h.Clock.Set(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
			s = nominationhttp.Schedule{}
			h.Do("GET", schedules+"?delivery_day="+d, acme, nil).Expect(t, 200, "").JSON(t, &s)
			if s.ExpectedPeriodCount != n || len(s.Zones) != 0 {
				t.Fatalf("%s: %+v", d, s)
			}
		}
	})
}

// TestScheduleAssetOnly: beta's asset is in acme's balancing group: beta
// sees its own row only, without headers and zone periods.
func TestScheduleAssetOnly(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		h := setup(t, b)
		r := h.Do("GET", schedules+"?delivery_day=2026-02-02", h.TokenFor("beta", auth.ReportRead), nil).Expect(t, 200, "")
		for _, absent := range []string{"control_area_eic", "nomination_pos", "nomination_neg", "periods\":[{\"period_start\":\"2026-02-01T23:00:00Z\",\"volume_pos_mw\":\"0\",\"volume_neg_mw\":\"3.1\""} {
			if bytes.Contains(r.Body, []byte(absent)) {
				t.Fatalf("asset_only shows %s: %s", absent, r.Body)
			}
		}
		var s nominationhttp.Schedule
		r.JSON(t, &s)
		if len(s.Zones) != 1 || s.Zones[0].AggregateScope != "asset_only" || s.Zones[0].Periods != nil || len(s.Zones[0].Assets) != 1 ||
			s.Zones[0].Assets[0].AssetID != "b1" || s.Zones[0].Assets[0].BalancingGroupResponsibleOrgID != "acme" ||
			len(s.Zones[0].Assets[0].Periods) != 96 || s.Zones[0].Assets[0].Periods[1].VolumePosMW != "1" {
			t.Fatalf("beta %+v", s)
		}
		// Another organisation sees nothing of either.
		s = nominationhttp.Schedule{}
		h.Do("GET", schedules+"?delivery_day=2026-02-02&asset_ids=a1,b1", h.TokenFor("gamma", auth.ReportRead), nil).Expect(t, 200, "").JSON(t, &s)
		if len(s.Zones) != 0 {
			t.Fatalf("gamma %+v", s)
		}
	})
}

func TestScheduleErrors(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		h := setup(t, b)
		acme := h.TokenFor("acme", auth.ReportRead)
		admin := h.AdminToken()
		for _, path := range []string{schedules, schedules + "/revisions", schedules + "/file"} {
			file := strings.HasSuffix(path, "/file")
			q := func(s string) string {
				if file {
					s += "&tso=50HZ&direction=neg"
				}
				return path + "?" + s
			}
			t.Run(path, func(t *testing.T) {
				h.Do("GET", q("delivery_day=2026-02-03"), acme, nil).Expect(t, 400, "delivery_day_not_completed")
				h.Do("GET", q("delivery_day=2026-02-10"), acme, nil).Expect(t, 400, "delivery_day_not_completed")
				h.Do("GET", q("delivery_day=2026-02-02"), h.TokenFor("acme", auth.AssetRead), nil).Expect(t, 403, "")
				h.Do("GET", q("delivery_day=2026-02-02"), "", nil).Expect(t, 401, "")
				h.Do("GET", q("delivery_day=02.02.2026"), acme, nil).Expect(t, 422, "validation_failed")
				h.Do("GET", q("delivery_day=2026-02-02"), admin, nil).Expect(t, 422, "validation_failed")
				h.Do("GET", q("delivery_day=2026-02-02&organization_id=beta"), acme, nil).Expect(t, 422, "organization_not_accessible")
				h.Do("GET", q("delivery_day=2026-02-02&organization_id=nobody"), admin, nil).Expect(t, 422, "organization_not_accessible")
				h.Do("GET", q("delivery_day=2026-02-02&organization_id=acme"), acme, nil).Expect(t, 200, "")
				if !file {
					h.Do("GET", q("delivery_day=2026-02-02&tso=XX"), acme, nil).Expect(t, 422, "validation_failed")
				}
			})
		}
		h.Do("GET", schedules+"?delivery_day=2026-02-02&asset_ids=a1,bad%20id", acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", schedules+"/file?delivery_day=2026-02-02&tso=50HZ&direction=up", acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", schedules+"/file?delivery_day=2026-02-02&direction=pos", acme, nil).Expect(t, 422, "")
		h.Do("GET", schedules+"/file?delivery_day=2026-02-02&tso=50H&direction=pos", acme, nil).Expect(t, 422, "validation_failed")
	})
}

func TestFile(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		h := setup(t, b)
		acme := h.TokenFor("acme", auth.ReportRead)
		r := h.Do("GET", schedules+"/file?delivery_day=2026-02-02&tso=50HZ&direction=neg", acme, nil).Expect(t, 200, "")
		if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
			t.Fatalf("content type %q", ct)
		}
		if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename="afrr-nomination_50HZ_2026-02-02_neg.csv"` {
			t.Fatalf("content disposition %q", cd)
		}
		lines := strings.Split(string(r.Body), "\r\n")
		if len(lines) != 6+96+1 || lines[0] != "\uFEFFData exchange reference;ATCP-20260202-50HZ-acme-R001" ||
			lines[3] != "Balancing group from;11XATCP-TEST-D1B" || lines[5] != "Unit;MW" || lines[6] != "02.02.2026 00:00;3,100" ||
			lines[7] != "02.02.2026 00:15;0,000" {
			t.Fatalf("file:\n%s", r.Body)
		}
		pos := h.Do("GET", schedules+"/file?delivery_day=2026-02-02&tso=50HZ&direction=pos", acme, nil).Expect(t, 200, "")
		if !bytes.Contains(pos.Body, []byte("\r\n02.02.2026 00:15;1,000\r\n")) || !bytes.Contains(pos.Body, []byte("Balancing group from;11XATCP-TEST-P1C")) {
			t.Fatalf("pos file:\n%s", pos.Body)
		}
		// Held (no EICs): the file without reference, EICs and values.
		held := h.Do("GET", schedules+"/file?delivery_day=2026-02-02&tso=TNNT&direction=neg", acme, nil).Expect(t, 200, "")
		if !bytes.HasPrefix(held.Body, []byte("\uFEFFData exchange reference;\r\n")) || !bytes.Contains(held.Body, []byte("\r\n02.02.2026 00:00;\r\n")) {
			t.Fatalf("held file:\n%s", held.Body)
		}
		// No nominations: another zone, an asset_only organisation, another organisation.
		h.Do("GET", schedules+"/file?delivery_day=2026-02-02&tso=AMP&direction=neg", acme, nil).Expect(t, 404, "not_found")
		h.Do("GET", schedules+"/file?delivery_day=2026-02-02&tso=50HZ&direction=neg", h.TokenFor("beta", auth.ReportRead), nil).Expect(t, 404, "not_found")
		h.Do("GET", schedules+"/file?delivery_day=2026-02-01&tso=50HZ&direction=neg", acme, nil).Expect(t, 404, "not_found")
		h.Do("GET", schedules+"/file?delivery_day=2026-02-02&tso=50HZ&direction=neg&organization_id=acme", h.AdminToken(), nil).Expect(t, 200, "")
	})
}

func TestRevisions(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		h := setup(t, b)
		acme := h.TokenFor("acme", auth.ReportRead)
		var l nominationhttp.RevisionList
		h.Do("GET", schedules+"/revisions?delivery_day=2026-02-02", acme, nil).Expect(t, 200, "").JSON(t, &l)
		if l.OrganizationID != "acme" || len(l.Revisions) != 2 {
			t.Fatalf("revisions %+v", l)
		}
		r0, r1 := l.Revisions[0], l.Revisions[1]
		if r0.TSO != "50HZ" || r0.Status != "acknowledged" || !r0.Visible || r0.PeriodCount != 96 || r0.SentAt == nil || r0.AnsweredAt == nil ||
			r0.Reason != "first revision" {
			t.Fatalf("50Hertz revision %+v", r0)
		}
		if r1.TSO != "TNNT" || r1.Status != "held" || r1.Visible || r1.Detail != nomination.HeldDetail || r1.SentAt != nil {
			t.Fatalf("TenneT revision %+v", r1)
		}
		req, _ := http.NewRequest("GET", h.URL+schedules+"/revisions?delivery_day=2026-02-02&tso=TNNT", nil)
		req.Header.Set("Authorization", "Bearer "+acme)
		req.Header.Set("Accept", "text/csv")
		csv := h.Send(req).Expect(t, 200, "")
		rows := strings.Split(strings.TrimSpace(string(csv.Body)), "\r\n")
		if len(rows) != 2 || !strings.HasPrefix(rows[0], "tso,revision,data_exchange_reference,") ||
			!strings.HasPrefix(rows[1], "TNNT,1,ATCP-20260202-TNNT-acme-R001,first revision,held,") {
			t.Fatalf("csv:\n%s", csv.Body)
		}
		l = nominationhttp.RevisionList{}
		h.Do("GET", schedules+"/revisions?delivery_day=2026-02-02", h.TokenFor("beta", auth.ReportRead), nil).Expect(t, 200, "").JSON(t, &l)
		if len(l.Revisions) != 0 {
			t.Fatalf("beta sees %+v", l)
		}
	})
}

func TestConfig(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		h := setup(t, b)
		acme := h.TokenFor("acme", auth.ReportRead)
		admin := h.AdminToken()
		path := "/v1/organizations/acme/balancing-groups/afrr/50HZ"
		var c nominationhttp.Config
		h.Do("GET", path, acme, nil).Expect(t, 200, "").JSON(t, &c)
		if c.OrganizationID != "acme" || c.TSO != "50HZ" || c.BalancingGroupResponsibleOrgID != "acme" || c.SourceBalancingGroupEIC != "11XATCP-TEST-P1C" {
			t.Fatalf("config %+v", c)
		}
		h.Do("GET", "/v1/organizations/beta/balancing-groups/afrr/50HZ", acme, nil).Expect(t, 404, "not_found")
		h.Do("GET", "/v1/organizations/acme/balancing-groups/afrr/AMP", acme, nil).Expect(t, 404, "not_found")
		h.Do("GET", "/v1/organizations/acme/balancing-groups/afrr/XX", acme, nil).Expect(t, 404, "not_found")
		h.Do("GET", path, h.TokenFor("acme", auth.AssetRead), nil).Expect(t, 403, "")
		h.Do("GET", "/v1/organizations/beta/balancing-groups/afrr/50HZ", admin, nil).Expect(t, 200, "")

		body := `{"control_area_eic":"10YDE-EON------1","source_control_area_eic":"10YDE-EON------1","target_control_area_eic":"10YDE-EON------1",
			"source_balancing_group_eic":"11XATCP-TEST-P2A","target_balancing_group_eic":"11XATCP-TEST-D29","note":"test values"}`
		tnnt := "/v1/organizations/acme/balancing-groups/afrr/TNNT"
		h.Do("PUT", tnnt, acme, body).Expect(t, 403, "platform_admin_required")
		h.Do("PUT", tnnt, h.TokenFor("acme", auth.AssetRead), body).Expect(t, 403, "")
		h.Do("PUT", "/v1/organizations/nobody/balancing-groups/afrr/TNNT", admin, body).Expect(t, 404, "not_found")
		h.Do("PUT", "/v1/organizations/acme/balancing-groups/afrr/XX", admin, body).Expect(t, 404, "not_found")
		h.Do("PUT", tnnt, admin, strings.Replace(body, "11XATCP-TEST-D29", "11XATCP-TEST-D28", 1)).Expect(t, 422, "invalid_eic")
		h.Do("PUT", tnnt, admin, strings.Replace(body, `"note"`, `"balancing_group_responsible_org_id":"nobody","note"`, 1)).Expect(t, 422, "validation_failed")
		c = nominationhttp.Config{}
		h.Do("PUT", tnnt, admin, body).Expect(t, 200, "").JSON(t, &c)
		if c.BalancingGroupResponsibleOrgID != "acme" || c.ControlAreaEIC != "10YDE-EON------1" || c.Note != "test values" || !c.UpdatedAt.Equal(h.Clock.Now()) {
			t.Fatalf("put %+v", c)
		}
		h.Do("GET", tnnt, acme, nil).Expect(t, 200, "")

		// The next run nominates TenneT again, with the EICs, and it becomes visible.
		if err := nomination.NewJob(b.Nominations(), nomination.Simulated{}, h.Clock).Run(context.Background(), h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		var s nominationhttp.Schedule
		h.Do("GET", schedules+"?delivery_day=2026-02-02&tso=TNNT", acme, nil).Expect(t, 200, "").JSON(t, &s)
		if len(s.Zones) != 1 || s.Zones[0].NominationPos == nil || s.Zones[0].NominationPos.DataExchangeReference != "ATCP-20260202-TNNT-acme-R002" ||
			len(s.Zones[0].Periods) != 96 || s.Zones[0].Periods[0].VolumeNegMW != "2" {
			t.Fatalf("TenneT after configuring: %+v", s)
		}
	})
}
