package errs

// Code is the stable machine-readable cause of an error, the code member of
// its problem body: lower_snake, or a named code of the specification
// (FCR_PREQUALIFIED_CAPACITY_EXCEEDED). Each area declares its codes once,
// in its codes.go; the value is wire format and never changes.
type Code string

// The generic codes, which any area may return.
const (
	// CodeValidationFailed: the request is understood but fields fail
	// validation (422, each named in errors).
	CodeValidationFailed Code = "validation_failed"
	// CodeNotFound: the resource is unknown or not visible to the caller (404).
	CodeNotFound Code = "not_found"
	// CodeMalformedRequest: the request cannot be understood (400).
	CodeMalformedRequest Code = "malformed_request"
	// CodeStoreUnavailable: the database could not be reached; retrying
	// later may succeed (503).
	CodeStoreUnavailable Code = "store_unavailable"
)
