package settlementhttp

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/reporting"
	"atcp/internal/reporting/reportinghttp"
	"atcp/internal/settlement"
)

// amount is an EUR amount on the wire: a decimal string with two decimals.
func amount(f interface{ StringFixed(int32) string }) string { return f.StringFixed(2) }

// SettlementProduct is the settlement of one product (document 1).
type SettlementProduct struct {
	RevenueTotal   string `json:"revenue_total" doc:"Revenue in EUR, a decimal string with two decimals; negative when the provider pays (aFRR energy at a negative price)."`
	BackupFeeTotal string `json:"backup_fee_total" doc:"Backup fees in EUR paid to the pool members that covered for the asset, a decimal string with two decimals."`
	PenaltyTotal   string `json:"penalty_total" doc:"Penalties in EUR (deducted, never negative), a decimal string with two decimals."`
}

// SettlementBackupProduct is the settlement of a backup product: no backup fee
// (document 1).
type SettlementBackupProduct struct {
	RevenueTotal string `json:"revenue_total" doc:"Backup fees earned by covering other pool members, in EUR, a decimal string with two decimals."`
	PenaltyTotal string `json:"penalty_total" doc:"Penalties in EUR, a decimal string with two decimals; always 0.00 (docs/settlement.md)."`
}

// SettlementProducts are the ten product objects, always all present (zero when the
// asset did not take part).
type SettlementProducts struct {
	FCR            SettlementProduct       `json:"fcr" doc:"FCR capacity (4-hour blocks)."`
	FCRBackup      SettlementBackupProduct `json:"fcr_backup" doc:"FCR delivered for another pool member."`
	AFRRCPos4h     SettlementProduct       `json:"afrrc_pos_4h" doc:"Positive aFRR capacity, 4-hour blocks."`
	AFRRCNeg4h     SettlementProduct       `json:"afrrc_neg_4h" doc:"Negative aFRR capacity, 4-hour blocks."`
	AFRRCPos15min  SettlementProduct       `json:"afrrc_pos_15min" doc:"Positive aFRR capacity, 15-minute products: always zero (the platform trades 4-hour blocks)."`
	AFRRCNeg15min  SettlementProduct       `json:"afrrc_neg_15min" doc:"Negative aFRR capacity, 15-minute products: always zero."`
	AFRREPos       SettlementProduct       `json:"afrre_pos" doc:"Activated positive aFRR energy."`
	AFRREPosBackup SettlementBackupProduct `json:"afrre_pos_backup" doc:"Positive aFRR energy delivered for another pool member."`
	AFRRENeg       SettlementProduct       `json:"afrre_neg" doc:"Activated negative aFRR energy."`
	AFRRENegBackup SettlementBackupProduct `json:"afrre_neg_backup" doc:"Negative aFRR energy delivered for another pool member."`
}

// SettlementBlockProducts are a block's product objects: only those the asset took
// part in during the block (an absent key is zero).
type SettlementBlockProducts struct {
	FCR            *SettlementProduct       `json:"fcr,omitempty" doc:"FCR capacity."`
	FCRBackup      *SettlementBackupProduct `json:"fcr_backup,omitempty" doc:"FCR delivered for another pool member."`
	AFRRCPos4h     *SettlementProduct       `json:"afrrc_pos_4h,omitempty" doc:"Positive aFRR capacity, 4-hour blocks."`
	AFRRCNeg4h     *SettlementProduct       `json:"afrrc_neg_4h,omitempty" doc:"Negative aFRR capacity, 4-hour blocks."`
	AFRRCPos15min  *SettlementProduct       `json:"afrrc_pos_15min,omitempty" doc:"Never present (the platform trades 4-hour blocks)."`
	AFRRCNeg15min  *SettlementProduct       `json:"afrrc_neg_15min,omitempty" doc:"Never present."`
	AFRREPos       *SettlementProduct       `json:"afrre_pos,omitempty" doc:"Activated positive aFRR energy."`
	AFRREPosBackup *SettlementBackupProduct `json:"afrre_pos_backup,omitempty" doc:"Positive aFRR energy delivered for another pool member."`
	AFRRENeg       *SettlementProduct       `json:"afrre_neg,omitempty" doc:"Activated negative aFRR energy."`
	AFRRENegBackup *SettlementBackupProduct `json:"afrre_neg_backup,omitempty" doc:"Negative aFRR energy delivered for another pool member."`
}

// SettlementBlock is one 15-minute block of an asset.
type SettlementBlock struct {
	BlockStart  time.Time `json:"block_start" doc:"Start of the 15-minute block (UTC)."`
	BlockEnd    time.Time `json:"block_end" doc:"End of the block (UTC, exclusive); an addition to document 1."`
	DeliveryDay string    `json:"delivery_day" format:"date" doc:"The Europe/Berlin delivery day the block belongs to (YYYY-MM-DD); an addition to document 1."`
	ProcessedAt time.Time `json:"processed_at" doc:"When the block's figures were last computed with a change (platform clock); unchanged means identical data."`
	Status      string    `json:"status" enum:"PRELIMINARY,FINAL" doc:"The block's settlement status: the status the request selected."`
	FinalAt     time.Time `json:"final_at" doc:"When the block is (or became) FINAL: 00:00 Europe/Berlin of the day after delivery plus the configured settlement lag (docs/settlement.md); an addition to document 1."`
	SettlementBlockProducts
}

// SettlementAsset is one asset's part of the envelope.
type SettlementAsset struct {
	AssetID string            `json:"asset_id" doc:"The asset (physical or virtual)."`
	Blocks  []SettlementBlock `json:"blocks" nullable:"false" doc:"The asset's blocks of the selected status in [start, end), by block_start; [] when it has none."`
	SettlementProducts
}

// SettlementEnvelope is the settlement envelope of document 1.
type SettlementEnvelope struct {
	OrganizationID string            `json:"organization_id" doc:"The organisation settled; an addition to document 1."`
	Start          time.Time         `json:"start" doc:"The window's start (UTC, inclusive), as requested."`
	End            time.Time         `json:"end" doc:"The window's end (UTC, exclusive), as requested."`
	Status         string            `json:"status" enum:"PRELIMINARY,FINAL" doc:"The status selected (upper case); an addition to document 1."`
	Currency       string            `json:"currency" enum:"EUR" doc:"The currency of every amount: EUR."`
	Assets         []SettlementAsset `json:"assets" nullable:"false" doc:"Every asset in scope, by asset_id: those named in asset_ids, or every asset of the organisation and every asset with figures in the window."`
	SettlementProducts
}

// SettlementQuery is the query of GET /v1/settlements.
type SettlementQuery struct {
	Start          time.Time `query:"start" required:"true" doc:"Start of the window (UTC, inclusive), aligned to a quarter-hour."`
	End            time.Time `query:"end" required:"true" doc:"End of the window (UTC, exclusive), aligned to a quarter-hour, after start, at most 93 days after it."`
	Status         string    `query:"status" required:"true" maxLength:"16" doc:"PRELIMINARY or FINAL, in any case: which of the two disjoint sets to read."`
	AssetIDs       string    `query:"asset_ids" maxLength:"40000" doc:"Comma-separated asset ids of the organisation (at most 500); default every asset of the organisation. An unknown asset, or another organisation's, is 422 at query.asset_ids."`
	OrganizationID string    `query:"organization_id" maxLength:"64" doc:"The organisation to read: platform administrators may name any registered one; others may leave it out or name their own (422 organization_not_accessible otherwise). Default: the caller's."`
}

type settlementInput struct {
	SettlementQuery
}

// settlementOutput writes the envelope as Service.Rendered renders it:
// reflection over its 180,000 blocks of a month of 100 assets would take
// seconds (docs/performance.md). The 200 response's schema is set from
// SettlementEnvelope in Register.
type settlementOutput struct{ Body func(huma.Context) }

// splitIDs splits asset_ids; nil when the parameter is absent.
func splitIDs(s string) []string {
	if s == "" {
		return nil
	}
	ids := strings.Split(s, ",")
	for i := range ids {
		ids[i] = strings.TrimSpace(ids[i])
	}
	return ids
}

// WindowQuery is the window and scope of the quality gates.
type WindowQuery struct {
	Start          time.Time `query:"start" required:"true" doc:"Start of the window (UTC, inclusive), aligned to a quarter-hour."`
	End            time.Time `query:"end" required:"true" doc:"End of the window (UTC, exclusive), aligned to a quarter-hour, after start, at most 93 days after it."`
	AssetIDs       string    `query:"asset_ids" maxLength:"40000" doc:"Comma-separated asset ids of the organisation (at most 500); default every asset of the organisation. An unknown asset, or another organisation's, is 422 at query.asset_ids."`
	OrganizationID string    `query:"organization_id" maxLength:"64" doc:"The organisation to read: platform administrators may name any registered one; others may leave it out or name their own (422 organization_not_accessible otherwise). Default: the caller's."`
}

type gatesInput struct {
	WindowQuery
	reportinghttp.PageQuery
}

// QualityGateRun is a gate holding consecutive blocks of an asset.
type QualityGateRun struct {
	AssetID     string     `json:"asset_id" doc:"The asset."`
	Gate        string     `json:"gate" enum:"not_published,not_computed,energy_outcome_pending,awaiting_tso_settlement,recently_changed,changed_after_publication" doc:"Why the blocks are held back or changed (docs/reporting.md lists every gate)."`
	Start       time.Time  `json:"start" doc:"Start of the first block of the run (UTC)."`
	End         time.Time  `json:"end" doc:"End of the last block of the run (UTC, exclusive)."`
	BlockCount  int        `json:"block_count" doc:"The quarter-hours of the run."`
	Until       *time.Time `json:"until" doc:"When the gate lifts: publication, the end of the job's wait for energy outcomes, FINAL; null when not known (not_computed) or not a gate that lifts (the changes)."`
	ProcessedAt *time.Time `json:"processed_at" doc:"For recently_changed and changed_after_publication: the latest processed_at of the run's blocks; null for the other gates."`
	Detail      string     `json:"detail" doc:"The reason in a sentence."`
}

// QualityGateReport is the body of the quality gates.
type QualityGateReport struct {
	OrganizationID string           `json:"organization_id" doc:"The organisation read."`
	Start          time.Time        `json:"start" doc:"The window's start (UTC, inclusive)."`
	End            time.Time        `json:"end" doc:"The window's end (UTC, exclusive)."`
	AsOf           time.Time        `json:"as_of" doc:"The platform-clock instant the gates were decided at."`
	Gates          []QualityGateRun `json:"gates" nullable:"false" doc:"The runs of this page, by asset_id, start and the gates' order."`
	Total          int              `json:"total" doc:"Runs in all pages."`
	Limit          int              `json:"limit" doc:"The page size."`
	Offset         int              `json:"offset" doc:"The rows skipped."`
}

// CSVHeader makes the report a httpapi.Table.
func (QualityGateReport) CSVHeader() []string {
	return []string{"asset_id", "gate", "start", "end", "block_count", "until", "processed_at", "detail"}
}

// CSVRows are the runs of the page.
func (r QualityGateReport) CSVRows() [][]string {
	out := make([][]string, len(r.Gates))
	for i, g := range r.Gates {
		out[i] = []string{g.AssetID, g.Gate, httpapi.CSVOptionalInstant(&g.Start), httpapi.CSVOptionalInstant(&g.End), strconv.Itoa(g.BlockCount), httpapi.CSVOptionalInstant(g.Until),
			httpapi.CSVOptionalInstant(g.ProcessedAt), g.Detail}
	}
	return out
}

type gatesOutput struct{ Body QualityGateReport }

func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func detail(r settlement.GateRun) string {
	until := r.Until.UTC().Format(time.RFC3339)
	switch r.Gate {
	case settlement.GateNotPublished:
		return "The delivery day is not over: the blocks are published as PRELIMINARY at " + until + "."
	case settlement.GateNotComputed:
		return "Delivered, but the settlement job has not computed these quarter-hours yet; they appear once it catches up."
	case settlement.GateEnergyOutcomePending:
		return "An aFRR energy bid has no outcome yet (PENDING or SUBMITTED); the job waits for it until " + until +
			", then settles without it."
	case settlement.GateAwaitingTSOSettlement:
		return "PRELIMINARY, awaiting the TSO settlement: FINAL at " + until + "."
	case settlement.GateRecentlyChanged:
		return "The figures changed at " + r.ProcessedAt.UTC().Format(time.RFC3339) + ", within the job's 2-hour recompute window: they may still change."
	case settlement.GateChangedAfterPublication:
		return "The figures changed at " + r.ProcessedAt.UTC().Format(time.RFC3339) + ", after publication: a read before then showed other amounts."
	}
	return ""
}

// RevenueQuery is the query of the revenue summary.
type RevenueQuery struct {
	StartTime      time.Time `query:"start_time" doc:"Start of the window (UTC, inclusive): blocks starting at or after it count. Default: 24 hours before end_time."`
	EndTime        time.Time `query:"end_time" doc:"End of the window (UTC, exclusive). Default: now. At most 93 days after start_time."`
	Granularity    string    `query:"granularity" enum:"daily,monthly" doc:"The periods: Europe/Berlin days (23 and 25 hours on the clock-change days) or months. Default daily."`
	AssetIDs       string    `query:"asset_ids" maxLength:"40000" doc:"Comma-separated asset ids of the organisation (at most 500); default every asset of the organisation. An unknown asset, or another organisation's, is 422 at query.asset_ids."`
	OrganizationID string    `query:"organization_id" maxLength:"64" doc:"The organisation to read: platform administrators may name any registered one; others may leave it out or name their own (422 organization_not_accessible otherwise). Default: the caller's."`
}

type revenueInput struct {
	RevenueQuery
	reportinghttp.PageQuery
}

// RevenueReportRow is one asset's settlement of one product in one period.
type RevenueReportRow struct {
	PeriodStart    time.Time `json:"period_start" doc:"Start of the Berlin day or month (UTC)."`
	PeriodEnd      time.Time `json:"period_end" doc:"Its end (UTC, exclusive); only the blocks inside the window count."`
	AssetID        string    `json:"asset_id" doc:"The asset."`
	Product        string    `json:"product" enum:"fcr,fcr_backup,afrrc_pos_4h,afrrc_neg_4h,afrrc_pos_15min,afrrc_neg_15min,afrre_pos,afrre_pos_backup,afrre_neg,afrre_neg_backup" doc:"The product key."`
	RevenueTotal   string    `json:"revenue_total" doc:"Revenue in EUR, a decimal string with two decimals."`
	BackupFeeTotal string    `json:"backup_fee_total" doc:"Backup fees paid in EUR, a decimal string with two decimals (0.00 for the backup products)."`
	PenaltyTotal   string    `json:"penalty_total" doc:"Penalties in EUR, a decimal string with two decimals."`
	NetTotal       string    `json:"net_total" doc:"revenue_total - backup_fee_total - penalty_total, in EUR, a decimal string with two decimals."`
	Status         string    `json:"status" enum:"PRELIMINARY,FINAL,MIXED" doc:"The status of the blocks summed: MIXED when some are FINAL and some PRELIMINARY."`
	BlockCount     int       `json:"block_count" doc:"The published blocks summed."`
}

// RevenueReportTotal is the organisation's total of one product.
type RevenueReportTotal struct {
	Product        string `json:"product" enum:"fcr,fcr_backup,afrrc_pos_4h,afrrc_neg_4h,afrrc_pos_15min,afrrc_neg_15min,afrre_pos,afrre_pos_backup,afrre_neg,afrre_neg_backup" doc:"The product key."`
	RevenueTotal   string `json:"revenue_total" doc:"Revenue in EUR, a decimal string with two decimals."`
	BackupFeeTotal string `json:"backup_fee_total" doc:"Backup fees paid in EUR, a decimal string with two decimals."`
	PenaltyTotal   string `json:"penalty_total" doc:"Penalties in EUR, a decimal string with two decimals."`
	NetTotal       string `json:"net_total" doc:"Net in EUR, a decimal string with two decimals."`
	Status         string `json:"status" enum:"PRELIMINARY,FINAL,MIXED" doc:"The status of the blocks summed (FINAL when none)."`
	BlockCount     int    `json:"block_count" doc:"The published blocks summed."`
}

// RevenueReport is the body of the revenue summary.
type RevenueReport struct {
	OrganizationID string               `json:"organization_id" doc:"The organisation read."`
	StartTime      time.Time            `json:"start_time" doc:"The window's start (UTC, inclusive)."`
	EndTime        time.Time            `json:"end_time" doc:"The window's end (UTC, exclusive)."`
	Granularity    string               `json:"granularity" enum:"daily,monthly" doc:"The periods."`
	Currency       string               `json:"currency" enum:"EUR" doc:"The currency of every amount."`
	AsOf           time.Time            `json:"as_of" doc:"The platform-clock instant the statuses were decided at."`
	Rows           []RevenueReportRow   `json:"rows" nullable:"false" doc:"This page's rows, by period_start, asset_id and product order; only products an asset took part in."`
	Totals         []RevenueReportTotal `json:"totals" nullable:"false" doc:"The organisation's totals over the window per product (all ten, in document 1's order), over every page."`
	NetTotal       string               `json:"net_total" doc:"The organisation's net over the window in EUR, a decimal string with two decimals."`
	Status         string               `json:"status" enum:"PRELIMINARY,FINAL,MIXED" doc:"The status of every block summed."`
	Total          int                  `json:"total" doc:"Rows in all pages."`
	Limit          int                  `json:"limit" doc:"The page size."`
	Offset         int                  `json:"offset" doc:"The rows skipped."`
}

// CSVHeader makes the summary a httpapi.Table (the rows of the page).
func (RevenueReport) CSVHeader() []string {
	return []string{"period_start", "period_end", "asset_id", "product", "revenue_total", "backup_fee_total", "penalty_total",
		"net_total", "status", "block_count"}
}

// CSVRows are the rows of the page.
func (r RevenueReport) CSVRows() [][]string {
	out := make([][]string, len(r.Rows))
	for i, x := range r.Rows {
		out[i] = []string{httpapi.CSVOptionalInstant(&x.PeriodStart), httpapi.CSVOptionalInstant(&x.PeriodEnd), x.AssetID, x.Product, x.RevenueTotal, x.BackupFeeTotal,
			x.PenaltyTotal, x.NetTotal, x.Status, strconv.Itoa(x.BlockCount)}
	}
	return out
}

type revenueOutput struct{ Body RevenueReport }

func page(q reportinghttp.PageQuery) (reporting.Page, error) { return q.Page().Resolve() }

// window slices [offset, offset+limit) out of n.
func window(n int, p reporting.Page) (int, int) {
	from := min(p.Offset, n)
	return from, min(from+p.Limit, n)
}

// envelopeResponse is the 200 response of GET /v1/settlements: the body
// is written by hand (settlementOutput), so its schema is given here.
func envelopeResponse(s *httpapi.Server) map[string]*huma.Response {
	r := httpapi.ResponseExample(http.StatusOK, exampleEnvelope)
	r["200"].Content["application/json"].Schema = s.API.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[SettlementEnvelope](), true, "")
	return r
}

// Register adds the settlement endpoints to s.
func Register(s *httpapi.Server, svc *settlement.Service) {
	tags := []string{s.Tag("Settlement",
		"Settlement figures per asset and 15-minute block (PRELIMINARY one day after delivery, FINAL after the TSO settlement), why blocks are held back, and the revenue summary.")}
	errors := []int{http.StatusUnprocessableEntity}

	httpapi.Register(s, huma.Operation{
		OperationID: "get-settlements", Method: http.MethodGet, Path: "/v1/settlements", Tags: tags,
		Responses: envelopeResponse(s),
		Summary:   "Read the settlement envelope",
		Description: "The organisation's settlement over [start, end) as one envelope (document 1): totals per product key, and per asset " +
			"its totals and its 15-minute blocks of the selected status. Blocks appear once published (00:00 Europe/Berlin the day after " +
			"delivery) and settled; PRELIMINARY and FINAL are disjoint: to assemble an in-progress month query both and merge on " +
			"block_start. 422 for a start or end missing or not on a quarter-hour, end not after start, a window over 93 days, a status " +
			"other than PRELIMINARY or FINAL, an asset_ids entry that is not an asset of the organisation (unknown and other " +
			"organisations' alike), or organization_not_accessible.",
		Errors: errors,
	}, httpapi.Scopes(auth.InvoiceRead), func(ctx context.Context, in *settlementInput) (*settlementOutput, error) {
		e, err := svc.Rendered(ctx, httpapi.Principal(ctx), settlement.Query{Start: in.Start, End: in.End, Status: in.Status,
			AssetIDs: splitIDs(in.AssetIDs), OrganizationID: in.OrganizationID})
		if err != nil {
			return nil, err
		}
		return &settlementOutput{Body: func(ctx huma.Context) {
			ctx.SetHeader("Content-Type", "application/json")
			ctx.SetStatus(http.StatusOK)
			_, _ = ctx.BodyWriter().Write(e.AppendJSON(nil)) // an error: the client has gone
		}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-settlement-quality-gates", Method: http.MethodGet, Path: "/v1/settlements/quality-gates", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleGates),
		Summary:   "Why blocks are not FINAL yet, or changed",
		Description: "Per asset, the runs of consecutive quarter-hours of [start, end) that a quality gate holds: not published yet, " +
			"not computed yet, an aFRR energy outcome pending, awaiting the TSO settlement (PRELIMINARY until FINAL), figures changed " +
			"recently or after publication. A block FINAL and unchanged since publication has no row. Paged; CSV for Accept: text/csv. " +
			"422 as GET /v1/settlements, and for limit or offset out of range.",
		Errors: errors,
	}, httpapi.Scopes(auth.InvoiceRead), func(ctx context.Context, in *gatesInput) (*gatesOutput, error) {
		pg, err := page(in.PageQuery)
		if err != nil {
			return nil, err
		}
		r, err := svc.QualityGates(ctx, httpapi.Principal(ctx), settlement.GateQuery{Start: in.Start, End: in.End,
			AssetIDs: splitIDs(in.AssetIDs), OrganizationID: in.OrganizationID})
		if err != nil {
			return nil, err
		}
		from, to := window(len(r.Runs), pg)
		out := QualityGateReport{OrganizationID: r.OrganizationID, Start: r.Window.Start, End: r.Window.End, AsOf: r.AsOf,
			Gates: make([]QualityGateRun, 0, to-from), Total: len(r.Runs), Limit: pg.Limit, Offset: pg.Offset}
		for _, g := range r.Runs[from:to] {
			out.Gates = append(out.Gates, QualityGateRun{AssetID: g.AssetID, Gate: string(g.Gate), Start: g.Start, End: g.End,
				BlockCount: g.Blocks(), Until: optTime(g.Until), ProcessedAt: optTime(g.ProcessedAt), Detail: detail(g)})
		}
		return &gatesOutput{Body: out}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-revenue-report", Method: http.MethodGet, Path: "/v1/reports/revenue", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleRevenue),
		Summary:   "Revenue summary per asset, product and day or month",
		Description: "The organisation's published settlement summed per Europe/Berlin day or month, asset and product: revenue, " +
			"backup fees, penalties and net, each with the status of its blocks (PRELIMINARY, FINAL or MIXED), and the organisation's " +
			"totals. Blocks whose start lies in [start_time, end_time) count. Paged; CSV (the rows) for Accept: text/csv. 422 for an " +
			"end_time not after start_time, a window over 93 days, an unknown granularity, an asset_ids entry that is not an asset of " +
			"the organisation, limit or offset out of range, or organization_not_accessible.",
		Errors: errors,
	}, httpapi.Scopes(auth.InvoiceRead), func(ctx context.Context, in *revenueInput) (*revenueOutput, error) {
		pg, err := page(in.PageQuery)
		if err != nil {
			return nil, err
		}
		r, err := svc.Revenue(ctx, httpapi.Principal(ctx), settlement.RevenueQuery{Start: in.StartTime, End: in.EndTime,
			Granularity: in.Granularity, AssetIDs: splitIDs(in.AssetIDs), OrganizationID: in.OrganizationID})
		if err != nil {
			return nil, err
		}
		from, to := window(len(r.Rows), pg)
		out := RevenueReport{OrganizationID: r.OrganizationID, StartTime: r.Window.Start, EndTime: r.Window.End,
			Granularity: string(r.Granularity), Currency: "EUR", AsOf: r.AsOf, Rows: make([]RevenueReportRow, 0, to-from),
			NetTotal: amount(r.Total.Net()), Status: string(r.Status), Total: len(r.Rows), Limit: pg.Limit, Offset: pg.Offset}
		for _, x := range r.Rows[from:to] {
			out.Rows = append(out.Rows, RevenueReportRow{PeriodStart: x.PeriodStart, PeriodEnd: x.PeriodEnd, AssetID: x.AssetID,
				Product: string(x.Product), RevenueTotal: amount(x.Figure.Revenue), BackupFeeTotal: amount(x.Figure.BackupFee),
				PenaltyTotal: amount(x.Figure.Penalty), NetTotal: amount(x.Figure.Net()), Status: string(x.Status), BlockCount: x.Blocks})
		}
		for _, t := range r.Totals {
			out.Totals = append(out.Totals, RevenueReportTotal{Product: string(t.Product), RevenueTotal: amount(t.Figure.Revenue),
				BackupFeeTotal: amount(t.Figure.BackupFee), PenaltyTotal: amount(t.Figure.Penalty), NetTotal: amount(t.Figure.Net()),
				Status: string(t.Status), BlockCount: t.Blocks})
		}
		return &revenueOutput{Body: out}, nil
	})
}
