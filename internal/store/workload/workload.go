// Package workload tells the stores which work a statement serves: a
// request someone waits for, or background work (the control loop, the
// alarm engine, clearing, outbox delivery). The stores give background
// work connections of its own, so that a request never queues for a
// connection behind the alarm engine's read of every asset's latest state
// (docs/performance.md, issue 10), and background work yields its
// processor every few dozen items (Yield), so that a request does not wait
// for a processor behind it either. It has no dependencies, so that every
// area and both backends can use it.
package workload

import "context"

type backgroundKey struct{}

// Background marks ctx, and every context derived from it, as background
// work.
func Background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

// IsBackground reports whether ctx was marked by Background.
func IsBackground(ctx context.Context) bool {
	b, _ := ctx.Value(backgroundKey{}).(bool)
	return b
}
