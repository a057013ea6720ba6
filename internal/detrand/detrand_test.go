package detrand

import "testing"

func TestKnownValues(t *testing.T) {
	// splitmix64 seeded with 0: its first outputs (Vigna's reference).
	if got := Mix(0, 1); got != 0xe220a8397b1dcdaf {
		t.Errorf("Mix(0, 1) = %#x", got)
	}
	if got := Mix(0, 2); got != 0x6e789e6aa1b965f4 {
		t.Errorf("Mix(0, 2) = %#x", got)
	}
	// FNV-1a test vectors.
	for s, want := range map[string]uint64{"": 0xcbf29ce484222325, "a": 0xaf63dc4c8601ec8c, "foobar": 0x85944171f73967e8} {
		if got := Hash(s); got != want {
			t.Errorf("Hash(%q) = %#x, want %#x", s, got, want)
		}
	}
}

func TestUniformInUnitInterval(t *testing.T) {
	for n := range uint64(10000) {
		if u := Uniform(42, n); u < 0 || u >= 1 {
			t.Fatalf("Uniform(42, %d) = %v", n, u)
		}
	}
}
