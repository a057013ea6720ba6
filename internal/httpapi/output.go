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
