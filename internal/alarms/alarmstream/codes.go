package alarmstream

import "atcp/internal/errs"

const (
	// CodeUpgradeRequired: GET /v1/alarms/stream was not a WebSocket
	// handshake (426).
	CodeUpgradeRequired errs.Code = "upgrade_required"
	// CodeTooManyStreams: the caller already holds the most streams one
	// caller may hold on this instance (429).
	CodeTooManyStreams errs.Code = "too_many_streams"
	// CodeOrganizationNotPermitted: the caller named an organisation it
	// does not belong to (403); the alarm lists' code.
	CodeOrganizationNotPermitted errs.Code = "organization_not_permitted"
)
