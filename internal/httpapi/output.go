package httpapi

// Output is the response of a handler that sends a body of type B and no
// headers.
type Output[B any] struct{ Body B }

// NonNil returns s, or an empty slice for nil, so that a JSON array is
// never written as null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Map is each item of list in its wire form; never nil, so that the JSON
// array is never written as null.
func Map[T, W any](list []T, wire func(T) W) []W {
	out := make([]W, len(list))
	for i, v := range list {
		out[i] = wire(v)
	}
	return out
}
