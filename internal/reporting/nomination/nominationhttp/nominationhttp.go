package nominationhttp

import (
	"strconv"
	"time"

	"atcp/internal/assets"
	"atcp/internal/httpapi"
	"atcp/internal/markets/calendar"
	"atcp/internal/reporting/nomination"
)

// Header is a nomination series' header metadata (document 1).
type Header struct {
	DataExchangeReference   string `json:"data_exchange_reference" doc:"The reference of the acknowledged revision in the TSO's data exchange (row 1 of the file)."`
	SourceControlAreaEIC    string `json:"source_control_area_eic" doc:"EIC of the control area the series is delivered from."`
	TargetControlAreaEIC    string `json:"target_control_area_eic" doc:"EIC of the control area the series is delivered to."`
	SourceBalancingGroupEIC string `json:"source_balancing_group_eic" doc:"EIC of the balancing group the series is delivered from: the platform's for pos, the customer's for neg."`
	TargetBalancingGroupEIC string `json:"target_balancing_group_eic" doc:"EIC of the balancing group the series is delivered to: the customer's for pos, the platform's for neg."`
	Unit                    string `json:"unit" enum:"MW" doc:"The unit of the volumes: MW (average power of the quarter-hour)."`
}

// Period is one published quarter-hour.
type Period struct {
	PeriodStart time.Time `json:"period_start" doc:"Start of the quarter-hour, UTC."`
	VolumePosMW string    `json:"volume_pos_mw" doc:"Nominated positive aFRR (asset discharge) in MW, average of the quarter-hour, as a decimal string; 0 means 0 MW."`
	VolumeNegMW string    `json:"volume_neg_mw" doc:"Nominated negative aFRR (asset charge) in MW, average of the quarter-hour, as a decimal string; 0 means 0 MW."`
}

// AssetRow is an asset's informational share.
type AssetRow struct {
	AssetID                        string   `json:"asset_id" doc:"The asset (virtual assets as their own rows)."`
	BalancingGroupResponsibleOrgID string   `json:"balancing_group_responsible_org_id" doc:"The organisation responsible for the balancing group the asset's activation is nominated in."`
	Periods                        []Period `json:"periods" nullable:"false" doc:"The asset's published quarter-hours; a quarter-hour without published data is left out."`
}

// Zone is one TSO zone of a schedule.
type Zone struct {
	TSO            string     `json:"tso" enum:"50HZ,TNNT,AMP,TNBW" doc:"The TSO zone (control area)."`
	AggregateScope string     `json:"aggregate_scope" enum:"balancing_group,asset_only" doc:"balancing_group: the organisation is responsible for the balancing group, the zone periods are what is nominated; asset_only: its assets are nominated in another organisation's balancing group, only their rows are shown."`
	ControlAreaEIC *string    `json:"control_area_eic,omitempty" doc:"EIC of the zone's control area; absent for asset_only and while no revision is acknowledged."`
	NominationPos  *Header    `json:"nomination_pos,omitempty" doc:"Header of the pos series (platform to customer balancing group); absent for asset_only and while no revision is acknowledged."`
	NominationNeg  *Header    `json:"nomination_neg,omitempty" doc:"Header of the neg series (customer to platform balancing group); absent for asset_only and while no revision is acknowledged."`
	Periods        []Period   `json:"periods,omitempty" nullable:"false" doc:"The nominated quarter-hours (authoritative), in time order; a quarter-hour without published data is left out, so [] means nothing published. Absent for asset_only."`
	Assets         []AssetRow `json:"assets" nullable:"false" doc:"The asset rows (informational), by asset_id."`
}

// Schedule is the balancing-group schedule of document 1.
type Schedule struct {
	DeliveryDay         string    `json:"delivery_day" format:"date" doc:"The Europe/Berlin delivery day."`
	DayStart            time.Time `json:"day_start" doc:"Start of the delivery day (local midnight), UTC."`
	DayEnd              time.Time `json:"day_end" doc:"End of the delivery day (the next local midnight), UTC."`
	ExpectedPeriodCount int       `json:"expected_period_count" doc:"Quarter-hours of the day: 96; 92 on the spring-forward day, 100 on the fall-back day."`
	Zones               []Zone    `json:"zones" nullable:"false" doc:"One entry per zone, in the order 50HZ, TNNT, AMP, TNBW."`
}

func decimalPeriods(ps []nomination.Period) []Period {
	out := make([]Period, len(ps))
	for i, p := range ps {
		out[i] = Period{PeriodStart: p.Start, VolumePosMW: p.Pos.String(), VolumeNegMW: p.Neg.String()}
	}
	return out
}

func header(r *nomination.Revision, d nomination.Direction) *Header {
	h := r.EICs.Header(d)
	return &Header{DataExchangeReference: r.Reference, SourceControlAreaEIC: h.SourceControlArea, TargetControlAreaEIC: h.TargetControlArea,
		SourceBalancingGroupEIC: h.SourceBalancingGroup, TargetBalancingGroupEIC: h.TargetBalancingGroup, Unit: nomination.Unit}
}

func toSchedule(s nomination.Schedule) Schedule {
	span := s.Day.Span()
	out := Schedule{DeliveryDay: s.Day.String(), DayStart: span.Start, DayEnd: span.End, ExpectedPeriodCount: len(s.Day.Periods()),
		Zones: make([]Zone, len(s.Zones))}
	for i, z := range s.Zones {
		zone := Zone{TSO: string(z.TSO), AggregateScope: string(z.Scope), Assets: make([]AssetRow, len(z.Assets))}
		responsible := ""
		if z.Revision != nil {
			responsible = z.Revision.OrganizationID
		}
		for j, a := range z.Assets {
			zone.Assets[j] = AssetRow{AssetID: a.AssetID, BalancingGroupResponsibleOrgID: responsible, Periods: decimalPeriods(a.Periods)}
		}
		if z.Scope == nomination.BalancingGroup {
			zone.Periods = []Period{}
			if r := z.Revision; r != nil {
				zone.Periods = decimalPeriods(r.Periods)
				if r.EICs != nil {
					ca := r.EICs.ControlArea
					zone.ControlAreaEIC, zone.NominationPos, zone.NominationNeg = &ca, header(r, nomination.Pos), header(r, nomination.Neg)
				}
			}
		}
		out.Zones[i] = zone
	}
	return out
}

// Revision is one revision and its exchange record.
type Revision struct {
	TSO                   string     `json:"tso" enum:"50HZ,TNNT,AMP,TNBW" doc:"The TSO zone."`
	Revision              int        `json:"revision" doc:"The revision number, from 1 per zone and day."`
	DataExchangeReference string     `json:"data_exchange_reference" doc:"The revision's reference in the TSO's data exchange."`
	Reason                string     `json:"reason" doc:"What changed against the previous revision (first revision, header EICs changed, n zone period(s) changed, n asset row(s) changed)."`
	Status                string     `json:"status" enum:"pending,held,sent,acknowledged,rejected" doc:"The exchange status: pending (built, not sent yet), held (not sent: no EICs configured), sent (waiting for the answer), acknowledged (visible in the schedule and file), rejected (by the TSO; not visible)."`
	Detail                string     `json:"detail" doc:"The TSO's answer, or why the revision is held; empty while pending or sent."`
	PeriodCount           int        `json:"period_count" doc:"How many quarter-hours the revision publishes."`
	Visible               bool       `json:"visible" doc:"Whether this is the revision the schedule and the file show (the latest acknowledged one)."`
	CreatedAt             time.Time  `json:"created_at" doc:"When the revision was built (platform clock)."`
	SentAt                *time.Time `json:"sent_at" doc:"When it was last sent to the data exchange; null while never sent."`
	AnsweredAt            *time.Time `json:"answered_at" doc:"When the TSO answered; null without an answer."`
}

// RevisionList is the revisions report.
type RevisionList struct {
	OrganizationID string     `json:"organization_id" doc:"The nominating organisation."`
	DeliveryDay    string     `json:"delivery_day" format:"date" doc:"The Europe/Berlin delivery day."`
	Revisions      []Revision `json:"revisions" nullable:"false" doc:"By zone, then revision number."`
}

func (l RevisionList) CSVHeader() []string {
	return []string{"tso", "revision", "data_exchange_reference", "reason", "status", "detail", "period_count", "visible",
		"created_at", "sent_at", "answered_at"}
}

func (l RevisionList) CSVRows() [][]string {
	out := make([][]string, len(l.Revisions))
	for i, r := range l.Revisions {
		out[i] = []string{r.TSO, strconv.Itoa(r.Revision), r.DataExchangeReference, r.Reason, r.Status, r.Detail,
			strconv.Itoa(r.PeriodCount), strconv.FormatBool(r.Visible), httpapi.CSVInstant(r.CreatedAt), httpapi.CSVOptionalInstant(r.SentAt), httpapi.CSVOptionalInstant(r.AnsweredAt)}
	}
	return out
}

func toRevisions(org string, day calendar.Day, revs []nomination.Revision) RevisionList {
	visible := map[assets.TSO]int{}
	for _, r := range revs {
		if r.Status == nomination.Acknowledged {
			visible[r.TSO] = max(visible[r.TSO], r.Number)
		}
	}
	out := RevisionList{OrganizationID: org, DeliveryDay: day.String(), Revisions: make([]Revision, len(revs))}
	for i, r := range revs {
		out.Revisions[i] = Revision{TSO: string(r.TSO), Revision: r.Number, DataExchangeReference: r.Reference, Reason: r.Reason,
			Status: string(r.Status), Detail: r.Detail, PeriodCount: len(r.Periods), Visible: visible[r.TSO] == r.Number,
			CreatedAt: r.CreatedAt, SentAt: r.SentAt, AnsweredAt: r.AnswerAt}
	}
	return out
}

// Config is an organisation's balancing-group configuration of a zone.
type Config struct {
	OrganizationID                 string    `json:"organization_id" doc:"The organisation whose assets in the zone the configuration is about."`
	TSO                            string    `json:"tso" enum:"50HZ,TNNT,AMP,TNBW" doc:"The TSO zone."`
	BalancingGroupResponsibleOrgID string    `json:"balancing_group_responsible_org_id" doc:"The organisation responsible for the balancing group of the organisation's assets in the zone, which nominates their activation; the organisation itself by default."`
	ControlAreaEIC                 string    `json:"control_area_eic" doc:"EIC of the zone's control area."`
	SourceControlAreaEIC           string    `json:"source_control_area_eic" doc:"EIC of the control area of the platform's balancing group (the pos series' source, the neg series' target)."`
	TargetControlAreaEIC           string    `json:"target_control_area_eic" doc:"EIC of the control area of the customer's balancing group (the pos series' target, the neg series' source)."`
	SourceBalancingGroupEIC        string    `json:"source_balancing_group_eic" doc:"EIC of the platform's balancing group (the pos series' source)."`
	TargetBalancingGroupEIC        string    `json:"target_balancing_group_eic" doc:"EIC of the customer's balancing group (the pos series' target)."`
	Note                           string    `json:"note" doc:"Free text, e.g. that the EICs are test values."`
	UpdatedAt                      time.Time `json:"updated_at" doc:"When the configuration was last written (platform clock)."`
}

func toConfig(c nomination.Config) Config {
	return Config{OrganizationID: c.OrganizationID, TSO: string(c.TSO), BalancingGroupResponsibleOrgID: c.ResponsibleOrganizationID,
		ControlAreaEIC: c.EICs.ControlArea, SourceControlAreaEIC: c.EICs.SourceControlArea, TargetControlAreaEIC: c.EICs.TargetControlArea,
		SourceBalancingGroupEIC: c.EICs.SourceBalancingGroup, TargetBalancingGroupEIC: c.EICs.TargetBalancingGroup, Note: c.Note,
		UpdatedAt: c.UpdatedAt}
}

// ConfigRequest is the body of the PUT.
type ConfigRequest struct {
	BalancingGroupResponsibleOrgID string `json:"balancing_group_responsible_org_id,omitempty" required:"false" maxLength:"64" doc:"The responsible organisation (a registered one); default the organisation itself."`
	ControlAreaEIC                 string `json:"control_area_eic" maxLength:"16" doc:"EIC (16 characters, valid check character) of the zone's control area."`
	SourceControlAreaEIC           string `json:"source_control_area_eic" maxLength:"16" doc:"EIC of the control area of the platform's balancing group."`
	TargetControlAreaEIC           string `json:"target_control_area_eic" maxLength:"16" doc:"EIC of the control area of the customer's balancing group."`
	SourceBalancingGroupEIC        string `json:"source_balancing_group_eic" maxLength:"16" doc:"EIC of the platform's balancing group."`
	TargetBalancingGroupEIC        string `json:"target_balancing_group_eic" maxLength:"16" doc:"EIC of the customer's balancing group."`
	Note                           string `json:"note,omitempty" required:"false" maxLength:"500" doc:"Free text; default empty."`
}

// Scheduled are the query parameters every schedule read shares.
type Scheduled struct {
	DeliveryDay    string `query:"delivery_day" required:"true" maxLength:"10" doc:"The Europe/Berlin delivery day, YYYY-MM-DD: a completed day (today or a future day is 400)."`
	OrganizationID string `query:"organization_id" maxLength:"64" doc:"The organisation: required for a caller who may act for several organisations (platform administrators; 422 without it); others may leave it out or name their own (422 organization_not_accessible otherwise)."`
}

type scheduleInput struct {
	Scheduled
	TSO      string `query:"tso" maxLength:"4" doc:"Only this zone: 50HZ, TNNT, AMP or TNBW."`
	AssetIDs string `query:"asset_ids" maxLength:"6500" doc:"Comma-separated asset ids (at most 100): narrows the asset rows, and the zones to those with one of them; never the zone periods. An id the organisation neither owns nor nominates matches nothing."`
}

type fileInput struct {
	Scheduled
	TSO       string `query:"tso" required:"true" maxLength:"4" doc:"The zone: 50HZ, TNNT, AMP or TNBW."`
	Direction string `query:"direction" required:"true" maxLength:"3" doc:"The series: pos or neg."`
}

type revisionsInput struct {
	Scheduled
	TSO string `query:"tso" maxLength:"4" doc:"Only this zone: 50HZ, TNNT, AMP or TNBW."`
}

type fileOutput struct {
	ContentType        string `header:"Content-Type" doc:"text/csv; charset=utf-8"`
	ContentDisposition string `header:"Content-Disposition" doc:"attachment; filename=afrr-nomination_<tso>_<delivery_day>_<direction>.csv"`
	Body               []byte
}

// ConfigPath names a configuration.
type ConfigPath struct {
	OrganizationID string `path:"organization_id" maxLength:"64" doc:"The organisation whose assets in the zone the configuration is about."`
	TSO            string `path:"tso" maxLength:"4" doc:"The zone: 50HZ, TNNT, AMP or TNBW."`
}

type configPutInput struct {
	ConfigPath
	Body ConfigRequest
}
