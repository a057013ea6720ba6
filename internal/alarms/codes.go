package alarms

import "atcp/internal/errs"

// Error codes of the alarm area.
const (
	// CodeAlarmIDMismatch: the alarm_id sent is not the key's current
	// lifecycle; the caller reviewed an older alarm (409).
	CodeAlarmIDMismatch errs.Code = "alarm_id_mismatch"
	// CodeAlarmNotOpen: the key has no open alarm to act on (409).
	CodeAlarmNotOpen errs.Code = "alarm_not_open"
	// CodeAlarmNeverOpened: the key never had an alarm, so there is
	// nothing to mute (409).
	CodeAlarmNeverOpened errs.Code = "alarm_never_opened"
	// CodeAlarmNotMuted: unmute of a key that is not muted (409).
	CodeAlarmNotMuted errs.Code = "alarm_not_muted"
	// CodeOrganizationNotPermitted: a caller of one organisation asked
	// for another organisation's alarms (403).
	CodeOrganizationNotPermitted errs.Code = "organization_not_permitted"
)
