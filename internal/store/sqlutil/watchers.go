package sqlutil

import "sync"

// Watchers delivers announcements of committed changes to the functions
// registered in this process. A backend announces its own instance's
// changes through it right after the commit, before the writing call
// returns, so that the instance never acts on what it has just changed.
// The zero value is ready to use.
type Watchers struct {
	mu   sync.RWMutex
	next int
	fns  map[int]func(string)
}

// Add registers fn until the returned function is called.
func (w *Watchers) Add(fn func(string)) (remove func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = map[int]func(string){}
	}
	id := w.next
	w.next++
	w.fns[id] = fn
	return func() {
		w.mu.Lock()
		delete(w.fns, id)
		w.mu.Unlock()
	}
}

// Announce calls every registered function with msg.
func (w *Watchers) Announce(msg string) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, fn := range w.fns {
		fn(msg)
	}
}
