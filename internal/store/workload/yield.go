package workload

import (
	"context"
	"runtime"
)

// YieldEvery is how many items background work handles between yields of
// its processor.
const YieldEvery = 64

// Yield gives the processor to waiting goroutines after every
// YieldEvery-th item i (counted from 0) of background work; for a
// request it does nothing. A goroutine woken while background work runs
// (a request whose connection answered) waits in that processor's run
// queue until the work blocks or is preempted, after 10 ms: the other
// processors serve their own queues before they steal. The control
// loop's per-second write of every asset's state, the recorder's chunks
// and the alarm engine's reads of every latest state run tens of
// milliseconds without blocking; yielding every few dozen items bounds
// that wait to a fraction of a millisecond (docs/performance.md,
// issue 10).
func Yield(ctx context.Context, i int) {
	if i%YieldEvery == YieldEvery-1 {
		YieldNow(ctx)
	}
}

// YieldNow gives the processor to waiting goroutines when ctx is
// background work: between batches that each take about a millisecond.
func YieldNow(ctx context.Context) {
	if IsBackground(ctx) {
		runtime.Gosched()
	}
}
