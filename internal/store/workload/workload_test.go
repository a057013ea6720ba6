package workload_test

import (
	"context"
	"runtime"
	"sync/atomic"
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

// yieldProbes is how many yields the woken goroutine may take to run: a
// yield puts the yielding goroutine on the global run queue, and one
// scheduling in 61 takes from that queue first (the runtime's fairness
// rule), so the work can win a yield back before the woken goroutine runs.
const yieldProbes = 3

// TestBackgroundWorkYields: on one processor, a goroutine woken while
// background work runs has run within a few yields, not when the work
// ends.
func TestBackgroundWorkYields(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ctx := workload.Background(context.Background())
	var woken atomic.Bool
	go woken.Store(true)
	for i := range yieldProbes * workload.YieldEvery {
		workload.Yield(ctx, i)
	}
	if !woken.Load() {
		t.Fatalf("after %d items of background work the woken goroutine had not run", yieldProbes*workload.YieldEvery)
	}
}
