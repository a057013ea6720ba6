package fault

import "atcp/internal/errs"

// The codes of the fault declaration.
const (
	// CodeStaleDraft (422): the notification's unavailability_end is not
	// more than 30 minutes and at most 8 hours 5 minutes ahead: draft again.
	CodeStaleDraft errs.Code = "stale_draft"
	// CodeOpenEndedHold (422): the active fault unavailability has no end
	// for a draft to quote: shorten it first.
	CodeOpenEndedHold errs.Code = "open_ended_hold"
	// CodeNotificationNotPermitted (403): a machine integration (the
	// agent) sent a notification; it may declare only with notification null.
	CodeNotificationNotPermitted errs.Code = "notification_not_permitted"
)
