// Package detrand gives deterministic pseudo-random draws: the same
// inputs give the same values on every instance and every run, so that a
// simulated world (grid frequency, clouds, signal noise) replays
// identically, and keys spread evenly (flush slots).
package detrand

import "hash/fnv"

// Mix is splitmix64's output for the state key + n·γ: a well-mixed 64-bit
// value for the nth draw of stream key.
func Mix(key, n uint64) uint64 {
	z := key + n*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uniform is the nth draw of stream key in [0, 1).
func Uniform(key, n uint64) float64 { return float64(Mix(key, n)>>11) / (1 << 53) }

// Hash is the 64-bit FNV-1a hash of s: a stream key per name.
func Hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
