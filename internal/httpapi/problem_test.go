package httpapi

import (
	"net/http"
	"testing"

	"atcp/internal/errs"
)

func TestFromDomainStatusOfEveryKind(t *testing.T) {
	want := map[errs.Kind]int{
		errs.Internal:        http.StatusInternalServerError,
		errs.Malformed:       http.StatusBadRequest,
		errs.Unauthenticated: http.StatusUnauthorized,
		errs.Forbidden:       http.StatusForbidden,
		errs.NotFound:        http.StatusNotFound,
		errs.Conflict:        http.StatusConflict,
		errs.Invalid:         http.StatusUnprocessableEntity,
		errs.Unavailable:     http.StatusServiceUnavailable,
		errs.BadGateway:      http.StatusBadGateway,
	}
	// Every kind up to the last one declared has a status.
	for kind := errs.Internal; kind <= errs.BadGateway; kind++ {
		status, ok := want[kind]
		if !ok {
			t.Fatalf("kind %d has no expected status in this test", kind)
		}
		p := FromDomain(errs.E(kind, "some_code", "went wrong"))
		if p.Status != status || p.Code != "some_code" || p.Detail != "went wrong" {
			t.Errorf("kind %d: status %d code %q detail %q, want %d", kind, p.Status, p.Code, p.Detail, status)
		}
	}
	if p := FromDomain(errs.E(errs.BadGateway, "narrator_failed", "the narrator did not answer")); p.Title != "Bad Gateway" {
		t.Errorf("title %q", p.Title)
	}
}
