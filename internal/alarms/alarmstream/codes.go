package alarmstream

import "atcp/internal/errs"

const (
	// CodeUpgradeRequired: GET /v1/alarms/stream was not a WebSocket
	// handshake (426).
	CodeUpgradeRequired errs.Code = "upgrade_required"
	// CodeTooManyStreams: the caller already holds the most streams one
	// caller may hold on this instance (429).
	CodeTooManyStreams errs.Code = "too_many_streams"
)
