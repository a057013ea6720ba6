package sqlutil

import (
	"context"
	"errors"
	"testing"

	"atcp/internal/errs"
)

func TestWrap(t *testing.T) {
	var err error
	Wrap(&err, "bids: apply")
	if err != nil {
		t.Fatalf("nil became %v", err)
	}

	err = context.DeadlineExceeded
	Wrap(&err, "bids: apply")
	if err.Error() != "bids: apply: context deadline exceeded" || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("driver error: %v", err)
	}

	domain := errs.NotFoundf("bid not found")
	err = domain
	Wrap(&err, "bids: get")
	if err != error(domain) {
		t.Errorf("domain error changed: %v", err)
	}
}
