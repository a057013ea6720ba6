package assets

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/danielgtaylor/huma/v2"
)

// Optional is a field of a partial update that may be left out but, when
// sent, must carry a value: an explicit null is recorded (Null) and
// rejected with 422 when the update is applied. Its schema is the value's,
// not nullable.
type Optional[T any] struct {
	Present bool // the field was in the body
	Null    bool // it was sent as null
	Value   T
}

// Some returns a present Optional carrying v.
func Some[T any](v T) Optional[T] { return Optional[T]{Present: true, Value: v} }

// UnmarshalJSON records presence; encoding/json calls it for a null too.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	*o = Optional[T]{Present: true, Null: bytes.Equal(b, []byte("null"))}
	if o.Null {
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

func (o Optional[T]) given() bool { return o.Present && !o.Null }

// sent is the value as the client sent it, for error bodies.
func (o Optional[T]) sent() any {
	if o.Null {
		return nil
	}
	return o.Value
}

// Schema is the schema of T: the field's own tags (ranges, lengths) are
// applied on top by huma.
func (o Optional[T]) Schema(r huma.Registry) *huma.Schema {
	return r.Schema(reflect.TypeFor[T](), true, "")
}

// Nullable is a field of a partial update that may be left out, set, or
// cleared with an explicit null.
type Nullable[T any] struct {
	Present bool // the field was in the body
	Null    bool // it was sent as null: clear the value
	Value   T
}

// Set returns a present Nullable carrying v.
func Set[T any](v T) Nullable[T] { return Nullable[T]{Present: true, Value: v} }

// Null returns a present Nullable that clears the field.
func Null[T any]() Nullable[T] { return Nullable[T]{Present: true, Null: true} }

// UnmarshalJSON records presence and null; encoding/json calls it for a
// null too.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	*n = Nullable[T]{Present: true, Null: bytes.Equal(b, []byte("null"))}
	if n.Null {
		return nil
	}
	return json.Unmarshal(b, &n.Value)
}

// Schema is the schema of T that also admits null.
func (n Nullable[T]) Schema(r huma.Registry) *huma.Schema {
	return NullableSchema(r.Schema(reflect.TypeFor[T](), true, ""))
}

// NullableSchema makes s admit null. An enumeration lists null among its
// values as well, so that strict JSON Schema validators accept it.
func NullableSchema(s *huma.Schema) *huma.Schema {
	s.Nullable = true
	if len(s.Enum) > 0 && s.Enum[len(s.Enum)-1] != nil {
		s.Enum = append(s.Enum, nil)
	}
	return s
}

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
