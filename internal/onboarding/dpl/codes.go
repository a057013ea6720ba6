package dpl

import "atcp/internal/errs"

// The codes of the data-point list.
const (
	// CodePointExists: a row names a point another row of the onboarding
	// has (409 on a single row; a field error of an import).
	CodePointExists errs.Code = "dpl_point_exists"
	// CodeAddressInUse: a row's protocol and address are another row's
	// (409 on a single row; a field error of an import).
	CodeAddressInUse errs.Code = "dpl_address_in_use"
	// CodeInvalidValue: a cell or member is missing, malformed or breaks
	// its rule (a field error; the problem is 422 validation_failed).
	CodeInvalidValue errs.Code = "invalid_value"
	// CodeUnknownColumn: a CSV header names a column that is not one of
	// the list's, or names one twice (422).
	CodeUnknownColumn errs.Code = "unknown_column"
	// CodeMissingColumn: a CSV header lacks a required column (422).
	CodeMissingColumn errs.Code = "missing_column"
)
