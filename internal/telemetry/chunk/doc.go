// Package chunk is the columnar codec of stored telemetry history: one
// chunk holds one asset's timestamps and, for each measurement (column, in
// telemetry.PointNames order), one value per timestamp.
//
// Layout (all integers are unsigned LEB128 varints unless said):
//
//	version byte (1)
//	points n, columns c
//	time stream, then c value streams, each as: header (length<<1 | deflated), bytes
//
// Timestamps are kept to the millisecond and values quantised to Resolution
// (1e-6 of the unit: MW, MWh, Hz, %, codes), which is lossless in practice
// for what assets report. Each stream is a sequence of tokens over the
// integer series (the times, or the quantised values): the delta of the
// delta against the previous two values, zigzag-coded, with runs of zero
// delta-of-delta (constant or linear stretches) and runs of NaN (absent
// values) folded into one token, and values that cannot be quantised (±Inf,
// |v| > MaxQuantised) kept as raw float64 bits. A stream longer than a few
// bytes is deflated (compress/flate) on its own when that makes it
// smaller.
//
// Why per-stream compression rather than one deflate over the chunk: a
// reader asking for three measurements inflates three streams and skips the
// rest by their lengths, and most streams of a battery's day (limits,
// setpoints, statuses) are a handful of bytes that deflate could not shrink
// anyway. The column count travels in the chunk, so a point added later
// leaves older chunks readable (their missing columns decode as absent).
//
// Encoder builds a chunk incrementally: appending a row tokenises it at
// once, so re-encoding a growing chunk (the recorder writes open chunks
// every few seconds) only deflates the token streams, never re-reads the
// values.
package chunk
