package afrrreport

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/auth"
	"atcp/internal/markets/bids"
	"atcp/internal/reporting"
)

type memStore struct {
	mu     sync.Mutex
	fail   int // the next fail inserts fail
	stored []Event
}

func (m *memStore) Insert(_ context.Context, events []Event) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail > 0 {
		m.fail--
		return 0, errors.New("store down")
	}
	m.stored = append(m.stored, events...)
	return len(events), nil
}

func (m *memStore) List(context.Context, auth.Visibility, string, reporting.Window, reporting.Page) ([]Event, int, error) {
	return nil, 0, nil
}

func (m *memStore) Totals(context.Context, auth.Visibility, string, reporting.Window, Bucket) ([]SlotTotal, error) {
	return nil, nil
}

type fixedPrices struct{ calls int }

func (p *fixedPrices) MarginalPrice(_ context.Context, _ time.Time, d bids.Product) (*decimal.Decimal, error) {
	p.calls++
	if d == bids.Pos {
		return nil, nil
	}
	v := decimal.RequireFromString("-12.4")
	return &v, nil
}

// TestWriter: handed events are stored with their energy price (one
// look-up per quarter-hour and direction); a failed write keeps them for
// the next.
func TestWriter(t *testing.T) {
	store, prices := &memStore{fail: 1}, &fixedPrices{}
	w := NewWriter(store, prices, nil)
	slot := utc("2026-02-02T09:00:00Z")
	w.Hand([]Event{{AssetID: "a", Slot: slot, Direction: bids.Neg}, {AssetID: "b", Slot: slot, Direction: bids.Neg},
		{AssetID: "a", Slot: slot, Direction: bids.Pos}})
	ctx := context.Background()
	if err := w.Flush(ctx); err == nil {
		t.Fatal("a failed write reported none")
	}
	if err := w.Flush(ctx); err != nil || len(store.stored) != 3 {
		t.Fatalf("retry: %v, %d stored", err, len(store.stored))
	}
	if e := store.stored[1]; e.EnergyPrice == nil || e.EnergyPrice.StringFixed(2) != "-12.40" || store.stored[2].EnergyPrice != nil {
		t.Fatalf("prices: %+v", store.stored)
	}
	// Two look-ups a flush; only the unknown pos price is asked again.
	if prices.calls != 3 {
		t.Fatalf("%d price look-ups", prices.calls)
	}
	// Run writes what is handed and, when its context ends, what is left.
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { w.Run(runCtx); close(done) }()
	w.Hand([]Event{{AssetID: "c", Slot: slot, Direction: bids.Neg}})
	stop()
	<-done
	if len(store.stored) != 4 {
		t.Fatalf("%d stored after Run", len(store.stored))
	}
}
