package rfi

import "atcp/internal/errs"

// CodeFieldNotEditable: a save names a field whose editable_by does not
// hold the caller's task role (422 at body.fields.<key>; the problem's
// code when every failure of the save is of this kind).
const CodeFieldNotEditable errs.Code = "field_not_editable"

// The codes of single field errors (FieldError.Code); a save failing for
// any of them is 422 validation_failed.
const (
	// CodeUnknownField: the key is not a field of the gate.
	CodeUnknownField errs.Code = "unknown_field"
	// CodeWrongType: the JSON value is not of the field's type (a string
	// for a number, a fraction for an integer, a malformed date, ...).
	CodeWrongType errs.Code = "wrong_type"
	// CodeConstraint: the value has the type but breaks a constraint
	// (length, pattern, range, decimals, option, item count).
	CodeConstraint errs.Code = "constraint_violated"
)
