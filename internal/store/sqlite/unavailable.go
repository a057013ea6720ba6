package sqlite

import (
	"errors"

	"atcp/internal/errs"
)

func init() { errs.RegisterUnavailable(isUnavailable) }

// The primary result codes (the low byte of an extended code) that mean
// the database file cannot be used now, whatever the statement, and may be
// usable again without a change to the request: another process has held
// the file locked past the busy timeout, the disk failed or is full, the
// file cannot be opened (its directory removed, a full file table). A
// corrupt file (SQLITE_CORRUPT, SQLITE_NOTADB) is not among them: waiting
// does not mend it, so it stays an internal error. Constraint, type and
// SQL errors concern the statement, not the store.
const (
	codeBusy     = 5  // SQLITE_BUSY, after the busy timeout has run out
	codeIOErr    = 10 // SQLITE_IOERR and its extended codes
	codeFull     = 13 // SQLITE_FULL
	codeCantOpen = 14 // SQLITE_CANTOPEN
)

// isUnavailable recognises the driver's errors that mean the store cannot
// be used now; the HTTP layer answers them with 503 store_unavailable.
func isUnavailable(err error) bool {
	var se interface{ Code() int } // *sqlite.Error, as in isUniqueViolation
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case codeBusy, codeIOErr, codeFull, codeCantOpen:
		return true
	}
	return false
}
