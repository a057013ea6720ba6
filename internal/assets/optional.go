package assets

// Optional is a field of a partial update that may be left out but, when
// sent, must carry a value: an explicit null is recorded (Null) and
// refused (422) when the update is applied. The edge that decodes a
// request fills it (assetshttp).
type Optional[T any] struct {
	Present bool // the field was sent
	Null    bool // it was sent as null
	Value   T
}

// Some returns a present Optional carrying v.
func Some[T any](v T) Optional[T] { return Optional[T]{Present: true, Value: v} }

func (o Optional[T]) given() bool { return o.Present && !o.Null }

// sent is the value as the client sent it, for error bodies.
func (o Optional[T]) sent() any {
	if o.Null {
		return nil
	}
	return o.Value
}

// Nullable is a field of a partial update that may be left out, set, or
// cleared with an explicit null.
type Nullable[T any] struct {
	Present bool // the field was sent
	Null    bool // it was sent as null: clear the value
	Value   T
}

// Set returns a present Nullable carrying v.
func Set[T any](v T) Nullable[T] { return Nullable[T]{Present: true, Value: v} }

// Null returns a present Nullable that clears the field.
func Null[T any]() Nullable[T] { return Nullable[T]{Present: true, Null: true} }

// sent is the value as the client sent it, for error bodies.
func (n Nullable[T]) sent() any {
	if n.Null {
		return nil
	}
	return n.Value
}

// value returns the pointer a nullable field is stored as.
func (n Nullable[T]) value() *T {
	if n.Null {
		return nil
	}
	v := n.Value
	return &v
}
