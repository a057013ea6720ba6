package restrictions

import (
	"time"

	"atcp/internal/errs"
	"atcp/internal/textrule"
)

// Status is the state of a restriction request.
type Status string

// The restriction-request states of document 1.
const (
	Pending   Status = "pending"
	Approved  Status = "approved"
	Rejected  Status = "rejected"
	Cancelled Status = "cancelled"
	Expired   Status = "expired"
)

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	switch s {
	case Pending, Approved, Rejected, Cancelled, Expired:
		return true
	}
	return false
}

// ActionCreate is the only request action: create the interval.
const ActionCreate = "create"

// Request asks for an interval of Kind to be created once approved.
// Upper and Lower are MW for power limits, MWh for energy limits.
type Request struct {
	ID                string
	OrganizationID    string
	AssetID           string
	Kind              Kind
	Action            string
	Status            Status
	Start             time.Time
	End               *time.Time
	Upper, Lower      *float64
	Reason            Reason
	ReasonDescription *string
	RequestedBy       string
	RequestedAt       time.Time
	DecidedBy         *string
	DecidedAt         *time.Time
	DecisionNote      *string
}

// Lapsed reports whether a pending request's window has passed by now: its
// end has passed, or, open-ended, its start has passed (approving it
// then would back-date a restriction).
func (r Request) Lapsed(now time.Time) bool {
	if r.End != nil {
		return !r.End.After(now)
	}
	return r.Start.Before(now.Add(-PastStartTolerance))
}

// AsOf returns r with the expiry applied: a pending request whose window
// has passed reads as expired.
func (r Request) AsOf(now time.Time) Request {
	if r.Status == Pending && r.Lapsed(now) {
		r.Status = Expired
	}
	return r
}

// Decision is a move out of pending.
type Decision struct {
	To   Status // Approved, Rejected or Cancelled
	By   string // subject of the decider
	Note *string
	// Admin marks a platform administrator: only the requester or
	// a platform administrator may cancel.
	Admin bool
}

// Validate checks the input of a decision: the note is free text of at
// most MaxDescription bytes.
func (d Decision) Validate() error {
	switch {
	case d.Note == nil:
	case len(*d.Note) > MaxDescription:
		return errs.Invalidf("body.note", len(*d.Note), "at most %d bytes", MaxDescription)
	case !textrule.Text(*d.Note):
		return errs.Invalidf("body.note", *d.Note, textrule.TextMessage)
	}
	return nil
}

// Validate refuses an asset id no asset can have because it holds control
// characters (which PostgreSQL text cannot even compare, for NUL); any
// other id merely matches nothing.
func (f RequestFilter) Validate() error {
	if !textrule.Name(f.AssetID) {
		return errs.Invalidf("query.asset_id", f.AssetID, textrule.NameMessage)
	}
	return nil
}

// errLapsed is returned by Decide for a request that expired while
// pending; the caller persists the expiry and reports it.
var errLapsed = errs.Conflictf(CodeRequestExpired, "the request's window passed while it was pending")

// Decide applies d to r at now, or says why it may not. An expired
// request comes back as Expired with a 409 request_expired, for the
// caller to persist the expiry. Approval's application of the interval is
// the caller's.
func Decide(r Request, d Decision, now time.Time) (Request, error) {
	if r.Status == Pending && r.Lapsed(now) {
		r.Status = Expired
		return r, errLapsed
	}
	if r.Status != Pending {
		return r, errs.Conflictf(CodeRequestNotPending, "the request is %s", r.Status)
	}
	if d.To == Cancelled && !d.Admin && d.By != r.RequestedBy {
		return r, errs.Forbiddenf(CodeNotRequester, "only the requester or a platform administrator may cancel a request")
	}
	r.Status, r.DecidedBy, r.DecisionNote = d.To, &d.By, d.Note
	at := now
	r.DecidedAt = &at
	return r, nil
}

// Draft returns the interval draft the request asks for; approval applies
// it from now when its start has passed.
func (r Request) Draft(now time.Time) Draft {
	start := r.Start
	if start.Before(now) {
		start = now
	}
	return Draft{Start: start, End: r.End, Upper: r.Upper, Lower: r.Lower, Reason: string(r.Reason), ReasonDescription: r.ReasonDescription}
}
