package workload_test

import (
	"context"
	"testing"
	"time"

	"atcp/internal/store/workload"
)

func TestBackgroundIsInherited(t *testing.T) {
	if workload.IsBackground(context.Background()) {
		t.Fatal("an unmarked context is background")
	}
	ctx := workload.Background(context.Background())
	derived, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if !workload.IsBackground(ctx) || !workload.IsBackground(derived) {
		t.Fatal("a marked context or one derived from it is not background")
	}
	// Shutdown work runs on a context without the parent's cancellation.
	if !workload.IsBackground(context.WithoutCancel(ctx)) {
		t.Fatal("a marked context without its cancellation is not background")
	}
}
