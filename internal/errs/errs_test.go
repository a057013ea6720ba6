package errs

import (
	"errors"
	"fmt"
	"testing"
)

var errOutage = errors.New("connection refused")

func init() {
	RegisterUnavailable(func(err error) bool { return errors.Is(err, errOutage) })
}

func TestIsUnavailable(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain error", errors.New("boom"), false},
		{"domain error of another kind", NotFoundf("no asset"), false},
		{"domain error of kind Unavailable", E(Unavailable, CodeStoreUnavailable, "down"), true},
		{"wrapped domain error", fmt.Errorf("read: %w", E(Unavailable, CodeStoreUnavailable, "down")), true},
		{"classified by a backend", errOutage, true},
		{"wrapped and classified", fmt.Errorf("query: %w", errOutage), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := IsUnavailable(c.err); got != c.want {
				t.Fatalf("IsUnavailable(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}
