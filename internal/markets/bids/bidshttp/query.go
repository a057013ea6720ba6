package bidshttp

import "time"

// Bounds turns the optional start_time and end_time of a query (zero when
// absent) into the overlap bounds the engine takes, in UTC.
func Bounds(startTime, endTime time.Time) (start, end *time.Time) {
	if !startTime.IsZero() {
		s := startTime.UTC()
		start = &s
	}
	if !endTime.IsZero() {
		e := endTime.UTC()
		end = &e
	}
	return start, end
}
