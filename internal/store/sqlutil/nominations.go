package sqlutil

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/markets/calendar"
	"atcp/internal/reporting/nomination"
)

// nominationPeriod is the stored form of a nomination period.
type nominationPeriod struct {
	Start time.Time       `json:"s"`
	Pos   decimal.Decimal `json:"p"`
	Neg   decimal.Decimal `json:"n"`
}

// NominationPeriods is the JSON text of periods.
func NominationPeriods(periods []nomination.Period) (string, error) {
	out := make([]nominationPeriod, len(periods))
	for i, p := range periods {
		out[i] = nominationPeriod{p.Start.UTC(), p.Pos, p.Neg}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// ParseNominationPeriods reads NominationPeriods' text.
func ParseNominationPeriods(text string) ([]nomination.Period, error) {
	var in []nominationPeriod
	if err := json.Unmarshal([]byte(text), &in); err != nil {
		return nil, err
	}
	out := make([]nomination.Period, len(in))
	for i, p := range in {
		out[i] = nomination.Period{Start: p.Start.UTC(), Pos: p.Pos, Neg: p.Neg}
	}
	return out, nil
}

// NominationEICs are the five nullable EIC columns of a revision.
func NominationEICs(e *nomination.EICs) []any {
	if e == nil {
		return []any{nil, nil, nil, nil, nil}
	}
	return []any{e.ControlArea, e.SourceControlArea, e.TargetControlArea, e.SourceBalancingGroup, e.TargetBalancingGroup}
}

// RevisionRow is a stored revision before its conversion.
type RevisionRow struct {
	OrganizationID, TSO, Day        string
	Number                          int
	Reason, Reference, Status       string
	Detail                          string
	ControlArea, SourceCA, TargetCA *string
	SourceBG, TargetBG              *string
	Periods                         string
}

// Targets are the scan targets of the revision columns (in
// RevisionColumns' order) with the backend's instant targets.
func (r *RevisionRow) Targets(createdAt, sentAt, answeredAt any) []any {
	return []any{&r.OrganizationID, &r.TSO, &r.Day, &r.Number, &r.Reason, &r.Reference, &r.Status, &r.Detail,
		&r.ControlArea, &r.SourceCA, &r.TargetCA, &r.SourceBG, &r.TargetBG, &r.Periods, createdAt, sentAt, answeredAt}
}

// RevisionColumns are the columns RevisionRow.Targets scans.
const RevisionColumns = `organization_id, tso, delivery_day, revision, reason, data_exchange_reference, status, detail,
	control_area_eic, source_control_area_eic, target_control_area_eic, source_balancing_group_eic, target_balancing_group_eic,
	periods, created_at, sent_at, answered_at`

// Revision converts the row; the backend sets the instants.
func (r *RevisionRow) Revision() (nomination.Revision, error) {
	day, err := calendar.ParseDay(r.Day)
	if err != nil {
		return nomination.Revision{}, err
	}
	out := nomination.Revision{Key: nomination.Key{OrganizationID: r.OrganizationID, TSO: assets.TSO(r.TSO), Day: day},
		Number: r.Number, Reason: r.Reason, Reference: r.Reference, Status: nomination.Status(r.Status), Detail: r.Detail,
		Content: nomination.Content{Assets: []nomination.AssetRow{}}}
	if r.ControlArea != nil {
		out.EICs = &nomination.EICs{ControlArea: *r.ControlArea, SourceControlArea: deref(r.SourceCA), TargetControlArea: deref(r.TargetCA),
			SourceBalancingGroup: deref(r.SourceBG), TargetBalancingGroup: deref(r.TargetBG)}
	}
	out.Periods, err = ParseNominationPeriods(r.Periods)
	return out, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
