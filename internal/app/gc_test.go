package app_test

import (
	"runtime/debug"
	"testing"

	"atcp/internal/app"
)

func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })
	for _, c := range []struct {
		name string
		env  map[string]string
		want int
	}{
		{"unset", nil, app.ServerGCPercent},
		{"set by the operator", map[string]string{"GOGC": "150"}, 100},
		{"off by the operator", map[string]string{"GOGC": "off"}, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			app.TuneGC(func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
			if got := debug.SetGCPercent(100); got != c.want {
				t.Errorf("GC percent %d, want %d", got, c.want)
			}
		})
	}
}
