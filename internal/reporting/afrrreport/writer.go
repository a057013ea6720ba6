package afrrreport

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/bids"
)

// Prices gives the marginal price of a quarter-hour and direction
// (EUR/MWh): the replayed clearing's in the simulated world
// (simulated.Activations). nil when it is not known.
type Prices interface {
	MarginalPrice(ctx context.Context, slot time.Time, direction bids.Product) (*decimal.Decimal, error)
}

// maxPending bounds the events a Writer keeps while the store refuses
// them (about a day of 1,000 activated assets); beyond it the oldest are
// dropped.
const maxPending = 100_000

// retryAfter is how long the Writer waits (real time) after a failed write.
const retryAfter = 5 * time.Second

// Writer stores the events the control loop hands it, on its own
// goroutine (Run), so that the loop never waits for the store. It fills
// in the energy price. A write that fails is retried; events already
// stored (another instance's) are left as they are (Store.Insert).
type Writer struct {
	store  Store
	prices Prices
	log    *slog.Logger

	mu      sync.Mutex
	pending []Event
	wake    chan struct{}
}

// NewWriter writes to store; prices may be nil (energy prices unknown).
func NewWriter(store Store, prices Prices, log *slog.Logger) *Writer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Writer{store: store, prices: prices, log: log, wake: make(chan struct{}, 1)}
}

// Hand queues a finished quarter-hour's events; it never blocks.
func (w *Writer) Hand(events []Event) {
	if len(events) == 0 {
		return
	}
	w.mu.Lock()
	w.pending = append(w.pending, events...)
	if drop := len(w.pending) - maxPending; drop > 0 {
		w.log.Error("afrr dispatch events dropped", "count", drop)
		w.pending = w.pending[drop:]
	}
	w.mu.Unlock()
	w.signal()
}

func (w *Writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run writes what is handed until ctx ends, then what is left (within
// 10 seconds).
func (w *Writer) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := w.Flush(final); err != nil {
				w.log.Error("afrr dispatch events not written at shutdown", "error", err)
			}
			return
		case <-w.wake:
		}
		if err := w.Flush(ctx); err != nil {
			w.log.Warn("afrr dispatch events not written; retrying", "error", err)
			select {
			case <-ctx.Done():
			case <-time.After(retryAfter):
				w.signal()
			}
		}
	}
}

// Flush writes the pending events now; on failure they stay pending.
func (w *Writer) Flush(ctx context.Context) error {
	w.mu.Lock()
	batch := w.pending
	w.pending = nil
	w.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	w.price(ctx, batch)
	if _, err := w.store.Insert(ctx, batch); err != nil {
		w.mu.Lock()
		w.pending = append(batch, w.pending...)
		w.mu.Unlock()
		return err
	}
	return nil
}

// price fills in the energy prices still missing, one look-up per
// quarter-hour and direction.
func (w *Writer) price(ctx context.Context, batch []Event) {
	if w.prices == nil {
		return
	}
	type key struct {
		slot time.Time
		dir  bids.Product
	}
	known := map[key]*decimal.Decimal{}
	for i := range batch {
		e := &batch[i]
		if e.EnergyPrice != nil {
			continue
		}
		k := key{e.Slot, e.Direction}
		p, ok := known[k]
		if !ok {
			var err error
			if p, err = w.prices.MarginalPrice(ctx, e.Slot, e.Direction); err != nil {
				w.log.Warn("afrr dispatch events: no marginal price", "slot", e.Slot, "direction", e.Direction, "error", err)
			}
			known[k] = p
		}
		e.EnergyPrice = p
	}
}
