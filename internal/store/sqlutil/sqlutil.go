// Package sqlutil holds the row-mapping helpers both store backends share.
// Only helpers live here: each backend writes its own SQL.
package sqlutil

import (
	"strings"
	"time"
)

// Micros encodes an instant for SQLite, which keeps times as integer
// microseconds since the Unix epoch (UTC), so that ordering and range
// filters are integer comparisons.
func Micros(t time.Time) int64 { return t.UTC().UnixMicro() }

// FromMicros decodes an instant stored by Micros.
func FromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// NullMicros encodes an optional instant; nil stays NULL.
func NullMicros(t *time.Time) any {
	if t == nil {
		return nil
	}
	return Micros(*t)
}

// FromNullMicros decodes an optional instant.
func FromNullMicros(us *int64) *time.Time {
	if us == nil {
		return nil
	}
	t := FromMicros(*us)
	return &t
}

// UTC normalises an instant read from PostgreSQL.
func UTC(t time.Time) time.Time { return t.UTC() }

// UTCPtr normalises an optional instant read from PostgreSQL.
func UTCPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// JoinList stores a list of names as one space-separated column.
func JoinList(items []string) string { return strings.Join(items, " ") }

// SplitList reads a list stored by JoinList.
func SplitList(s string) []string { return strings.Fields(s) }

// NullIfEmpty stores an optional string whose absence is "": NULL.
func NullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
