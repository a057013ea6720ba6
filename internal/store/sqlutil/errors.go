package sqlutil

import (
	"errors"
	"fmt"

	"atcp/internal/errs"
)

// Wrapped is err prefixed with op, the operation that failed ("insert
// bids"), so that a logged internal error says where it arose; errors.Is
// and errors.As still see the driver's error. Nil and domain errors (not
// found, conflicts, a callback's refusal) are returned unchanged: their
// message is the client's.
func Wrapped(op string, err error) error {
	if err == nil {
		return nil
	}
	if de := (*errs.Error)(nil); errors.As(err, &de) {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Wrap is Wrapped for a store method's named error, deferred at its top
// with the method's operation ("bids: apply").
func Wrap(err *error, op string) { *err = Wrapped(op, *err) }
