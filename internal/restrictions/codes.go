package restrictions

import "atcp/internal/errs"

// The codes of restrictions, curtailments and restriction requests.
const (
	// CodeOverlappingInterval: a new interval overlaps a stored one of the
	// same kind, named in overlapping_start_time (409).
	CodeOverlappingInterval errs.Code = "overlapping_interval"
	// CodeBadShortening: a PATCH sends neither or both of new_end_time and
	// end_now=true (400).
	CodeBadShortening errs.Code = "bad_shortening"
	// CodeIntervalNotStarted: end_now on an interval that has not started
	// (409; delete it instead).
	CodeIntervalNotStarted errs.Code = "interval_not_started"
	// CodeIntervalEnded: new_end_time on an interval that has ended (409).
	CodeIntervalEnded errs.Code = "interval_ended"
	// CodeIntervalStarted: deleting an interval that has started (409;
	// shorten it instead).
	CodeIntervalStarted errs.Code = "interval_started"
	// CodeCurtailmentOngoing: opening a curtailment of an asset that has an
	// ongoing one (409).
	CodeCurtailmentOngoing errs.Code = "curtailment_ongoing"
	// CodeRequestExpired: deciding a restriction request whose window
	// passed while it was pending; it is stored as expired (409).
	CodeRequestExpired errs.Code = "request_expired"
	// CodeRequestNotPending: deciding a restriction request that is decided
	// already (409).
	CodeRequestNotPending errs.Code = "request_not_pending"
	// CodeNotRequester: cancelling another's restriction request without
	// being a platform administrator (403).
	CodeNotRequester errs.Code = "not_requester"
	// CodeApprovalValidationFailed: approving a restriction request that no
	// longer passes validation against the asset's live data (the kind and
	// fields of that failure, usually 422).
	CodeApprovalValidationFailed errs.Code = "approval_validation_failed"
)
