package dispatch

import "atcp/internal/errs"

// The codes of dispatch. Steering a virtual asset is assets.CodeVirtualAsset.
const (
	// CodeWindowTooShort: an immediate dispatch's window is shorter than
	// the configured minimum (400).
	CodeWindowTooShort errs.Code = "window_too_short"
	// CodeStrictValidation: an immediate dispatch exceeds the usable power
	// capacity of an asset with strict_validation (409).
	CodeStrictValidation errs.Code = "strict_validation"
	// CodeControlDisabled: dispatching an asset whose battery control is
	// off (409).
	CodeControlDisabled errs.Code = "control_disabled"
	// CodeGateClosed: a dispatch schedule's target lies in a block starting
	// less than GateLead from now (409). The schedule's gate is dispatch's
	// own; the markets' gates share the wire value (bids.CodeGateClosed).
	CodeGateClosed errs.Code = "gate_closed"
)
