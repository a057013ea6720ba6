package telemetry

import (
	"context"
	"math"
	"time"

	"atcp/internal/errs"
	"atcp/internal/telemetry/chunk"
)

// ScanHistory calls fn with every stored row of the asset in [from, to),
// in time order: its instant (Unix milliseconds) and the values of the
// measurements names (canonical names or aliases, in that order; NaN
// where absent or not a finite number). values is reused between calls.
// Unlike HistoryReader.History it builds no point slices: a report
// folding 30 days of 1-second rows decodes only its columns and keeps
// nothing else, live edge (the tail) included.
func ScanHistory(ctx context.Context, store Store, assetID string, from, to time.Time, names []string,
	fn func(ms int64, values []float64)) error {
	cols := make([]int, len(names))
	for i, n := range names {
		c, ok := PointIndex(n)
		if !ok {
			return errs.Invalidf("point_names", n, "unknown measurement %s", n)
		}
		cols[i] = c
	}
	if !to.After(from) {
		return nil
	}
	// The tail before the chunks, as History does.
	var tail []byte
	switch latest, err := store.Latest(ctx, assetID); {
	case err == nil:
		tail = latest.Tail
	case !errs.Is(err, errs.NotFound):
		return err
	}
	chunks, err := store.Chunks(ctx, assetID, from, to)
	if err != nil {
		return err
	}
	lo, hi := msBounds(from, to)
	values := make([]float64, len(cols))
	return rows(chunks, tail, cols, lo, hi, func(b chunk.Block, i, j int) {
		columns := make([][]float64, len(cols))
		for c, col := range cols {
			columns[c] = b.Column(col)
		}
		for k := i; k < j; k++ {
			for c, column := range columns {
				values[c] = math.NaN()
				if column != nil && reported(column[k]) {
					values[c] = column[k]
				}
			}
			fn(b.Times[k], values)
		}
	})
}
