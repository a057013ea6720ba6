package nomination

import "atcp/internal/errs"

// Error codes of the nominations.
const (
	// CodeDeliveryDayNotCompleted: delivery_day is today or a future Berlin
	// day; schedules exist only for completed days (400).
	CodeDeliveryDayNotCompleted errs.Code = "delivery_day_not_completed"
	// CodeInvalidEIC: a configuration names a value that is not an EIC of
	// 16 characters with a valid check character (422).
	CodeInvalidEIC errs.Code = "invalid_eic"
)
