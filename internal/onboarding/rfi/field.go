package rfi

import (
	"regexp"
	"slices"
	"sync"
)

// Type is the type of a field's value (docs/onboarding.md, 5.D).
type Type string

// The field types.
const (
	String      Type = "string"      // JSON string, one line
	Text        Type = "text"        // JSON string, line breaks allowed
	Integer     Type = "integer"     // JSON number without fraction or exponent
	Number      Type = "number"      // JSON number
	Boolean     Type = "boolean"     // JSON true or false
	Date        Type = "date"        // JSON string YYYY-MM-DD
	Enum        Type = "enum"        // JSON string, one of the options
	MultiEnum   Type = "multi_enum"  // JSON array of distinct option strings
	Email       Type = "email"       // JSON string, a bare addr-spec
	Phone       Type = "phone"       // JSON string, E.164
	URL         Type = "url"         // JSON string, an https URL
	Coordinates Type = "coordinates" // JSON object {latitude, longitude}, WGS84
)

// Types lists every field type.
var Types = []Type{String, Text, Integer, Number, Boolean, Date, Enum, MultiEnum, Email, Phone, URL, Coordinates}

// The task roles of document 1, as editable_by names them.
const (
	AssetOwner         = "asset_owner"
	EPC                = "epc"
	EMSProvider        = "ems_provider"
	PlatformOnboarding = "platform_onboarding"
	Platform           = "platform"
	TSO                = "tso"
)

// Roles lists every task role.
var Roles = []string{AssetOwner, EPC, EMSProvider, PlatformOnboarding, Platform, TSO}

// Default lengths of strings and texts, in characters.
const (
	DefaultStringLength = 200
	DefaultTextLength   = 4000
)

// Label is a bilingual text.
type Label struct {
	De string `json:"de"`
	En string `json:"en"`
}

// In is the text in lang ("de" or "en"); English for any other.
func (l Label) In(lang string) string {
	if lang == "de" {
		return l.De
	}
	return l.En
}

// Option is one value of an enum or multi_enum field. AssetValue, when
// set, is what the asset member takes for it (the asset's TSO codes differ
// from the RfI's readable values).
type Option struct {
	Value      string `json:"value"`
	Label      Label  `json:"label"`
	AssetValue string `json:"-"`
}

// Constraints restrict a field's value; each applies to the types named.
// Dates bound by MinDate and MaxDate (inclusive, YYYY-MM-DD), numbers and
// integers by Min and Max (inclusive).
type Constraints struct {
	MaxLength int      `json:"max_length,omitempty"` // string, text; 0: the type's default
	Pattern   string   `json:"pattern,omitempty"`    // string: a Go regexp the whole value matches
	Min       *float64 `json:"min,omitempty"`        // integer, number
	Max       *float64 `json:"max,omitempty"`        // integer, number
	Decimals  *int     `json:"decimals,omitempty"`   // number: at most this many decimals
	Unit      string   `json:"unit,omitempty"`       // number: MW, MWh, kV, ... (informative)
	MinDate   string   `json:"min_date,omitempty"`   // date
	MaxDate   string   `json:"max_date,omitempty"`   // date
	Options   []Option `json:"options,omitempty"`    // enum, multi_enum
	MinItems  int      `json:"min_items,omitempty"`  // multi_enum
	MaxItems  int      `json:"max_items,omitempty"`  // multi_enum; 0: the number of options
}

// Field is the definition of one RfI field of a gate.
type Field struct {
	Key        string   `json:"key"` // lower_snake, unique per gate
	Label      Label    `json:"label"`
	Help       *Label   `json:"help,omitempty"`
	Type       Type     `json:"type"`
	Required   bool     `json:"required"` // checked on submit, not on save
	EditableBy []string `json:"editable_by"`
	// AssetField names the asset member a pass writes the value to
	// (docs/assets.md); a coordinates field writes two, "latitude,longitude".
	AssetField  string      `json:"asset_field,omitempty"`
	Constraints Constraints `json:"constraints"`
}

// Editable reports whether role may set the field.
func (f Field) Editable(role string) bool { return slices.Contains(f.EditableBy, role) }

// maxLength is the field's length bound in characters.
func (f Field) maxLength() int {
	switch {
	case f.Constraints.MaxLength > 0:
		return f.Constraints.MaxLength
	case f.Type == Text:
		return DefaultTextLength
	}
	return DefaultStringLength
}

// option returns the option of value v.
func (f Field) option(v string) (Option, bool) {
	for _, o := range f.Constraints.Options {
		if o.Value == v {
			return o, true
		}
	}
	return Option{}, false
}

// patterns caches compiled patterns: definitions are code, so the set is
// small and fixed.
var patterns sync.Map

func compiled(p string) *regexp.Regexp {
	if r, ok := patterns.Load(p); ok {
		return r.(*regexp.Regexp)
	}
	r := regexp.MustCompile(`^(?:` + p + `)$`)
	patterns.Store(p, r)
	return r
}

// Find returns the field of key in defs.
func Find(defs []Field, key string) (Field, bool) {
	for _, f := range defs {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}
