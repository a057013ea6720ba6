package app

import "runtime/debug"

// ServerGCPercent is the collector's target of a serving process unless
// GOGC says otherwise: the heap may grow to five times its live data
// between two collections instead of twice. A server's live heap is small
// (a few MB at 1,000 assets) while it allocates 15-20 MB a second (the
// control loop, reads of state, bid submissions), so at Go's default of
// 100 it collects six times a second, and each cycle's pauses and mark
// assists land on the requests running then: the latency tail of issue 10
// (docs/performance.md). At 400 it collects about once a second for
// about 60 MB more heap at 1,000 assets.
const ServerGCPercent = 400

// TuneGC sets the collector's target for serving, unless the operator set
// GOGC (lookup reads the environment). A GOMEMLIMIT the operator sets
// still caps the heap: the collector then runs as often as needed to keep
// under it.
func TuneGC(lookup func(string) (string, bool)) {
	if _, set := lookup("GOGC"); !set {
		debug.SetGCPercent(ServerGCPercent)
	}
}
