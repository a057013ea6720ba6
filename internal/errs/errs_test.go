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

func TestWithin(t *testing.T) {
	var v Validation
	v.Add("asset_name", "must not be empty", "")
	v.Add("segments[1].share", "must be positive", -1)
	orig := v.Err()
	got := Within("body.", fmt.Errorf("apply: %w", orig))
	var e *Error
	if !errors.As(got, &e) || e.Kind != Invalid || e.Code != "validation_failed" || len(e.Fields) != 2 ||
		e.Fields[0].Location != "body.asset_name" || e.Fields[1].Location != "body.segments[1].share" || e.Fields[1].Value != -1 {
		t.Fatalf("Within: %#v", got)
	}
	if orig.(*Error).Fields[0].Location != "asset_name" {
		t.Fatal("Within changed the error it was given")
	}
	for _, err := range []error{nil, errOutage, NotFoundf("no asset")} {
		if got := Within("body.", err); got != err {
			t.Fatalf("Within(%v) = %v", err, got)
		}
	}
}
