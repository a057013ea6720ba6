package fields

import (
	"encoding/json"
	"testing"
	"time"
)

func TestETag(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	later := at.Add(time.Microsecond)
	base := Values{Fields: map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`"x"`)}, UpdatedAt: &at, UpdatedBy: "anna"}
	same := Values{Fields: map[string]json.RawMessage{"b": json.RawMessage(`"x"`), "a": json.RawMessage(`1`)}, UpdatedAt: &at, UpdatedBy: "anna"}
	for _, c := range []struct {
		name  string
		v     Values
		equal bool
	}{
		{"same values in another order", same, true},
		{"another value", Values{Fields: map[string]json.RawMessage{"a": json.RawMessage(`2`), "b": json.RawMessage(`"x"`)}, UpdatedAt: &at, UpdatedBy: "anna"}, false},
		{"another time", Values{Fields: base.Fields, UpdatedAt: &later, UpdatedBy: "anna"}, false},
		{"another editor", Values{Fields: base.Fields, UpdatedAt: &at, UpdatedBy: "bert"}, false},
		{"never saved", Values{}, false},
	} {
		if got := c.v.ETag() == base.ETag(); got != c.equal {
			t.Errorf("%s: equal %v, want %v", c.name, got, c.equal)
		}
	}
	if (Values{}).ETag() != (Values{Fields: map[string]json.RawMessage{}}).ETag() {
		t.Error("nil and empty values differ")
	}
}

func TestMatches(t *testing.T) {
	for _, c := range []struct {
		ifMatch string
		want    bool
	}{
		{`"abc"`, true}, {`abc`, true}, {`W/"abc"`, true}, {`"x", "abc"`, true}, {`*`, true},
		{`"abd"`, false}, {`""`, false}, {`"ab"`, false},
	} {
		if got := matches(c.ifMatch, `"abc"`); got != c.want {
			t.Errorf("matches(%q) = %v, want %v", c.ifMatch, got, c.want)
		}
	}
}
