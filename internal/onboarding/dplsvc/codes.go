package dplsvc

import "atcp/internal/errs"

// Error codes of the data-point list service.
const (
	// CodeRowNotFound: the onboarding has no DPL row with that id (404).
	CodeRowNotFound errs.Code = "dpl_row_not_found"
	// CodeTestNotFound: the onboarding has no communication test with that id (404).
	CodeTestNotFound errs.Code = "communication_test_not_found"
	// CodeAssetNotAttached: no configured adapter steers the onboarding's asset (409).
	CodeAssetNotAttached errs.Code = "asset_not_attached"
	// CodeDPLEmpty: a communication test needs at least one DPL row (409).
	CodeDPLEmpty errs.Code = "dpl_empty"
	// CodeTestRunning: another communication test of the onboarding is running (409).
	CodeTestRunning errs.Code = "test_running"
	// CodeTestTooSoon: a communication test started less than a minute ago (429).
	CodeTestTooSoon errs.Code = "test_rate_limited"
)
