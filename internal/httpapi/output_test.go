package httpapi

import (
	"encoding/json"
	"testing"
)

func TestNonNil(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, `[]`},
		{[]string{}, `[]`},
		{[]string{"a", "b"}, `["a","b"]`},
	} {
		b, err := json.Marshal(NonNil(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("NonNil(%#v) = %s, want %s", tc.in, b, tc.want)
		}
	}
	s := []int{1}
	if got := NonNil(s); &got[0] != &s[0] {
		t.Error("NonNil copied a non-nil slice")
	}
}

func TestMap(t *testing.T) {
	double := func(n int) int { return 2 * n }
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, `[]`},
		{[]int{}, `[]`},
		{[]int{1, 2}, `[2,4]`},
	} {
		b, err := json.Marshal(Map(tc.in, double))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("Map(%#v) = %s, want %s", tc.in, b, tc.want)
		}
	}
}
