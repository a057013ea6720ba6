package onboardinghttp

import (
	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/httpapi"
	"atcp/internal/onboarding/rfi"
)

// FieldDefinition is an RfI field of a gate (docs/onboarding.md, group D).
type FieldDefinition struct {
	Key         string           `json:"key" doc:"lower_snake, unique per gate."`
	Label       Text             `json:"label"`
	Help        *Text            `json:"help"`
	Type        string           `json:"type" enum:"string,text,integer,number,boolean,date,enum,multi_enum,email,phone,url,coordinates"`
	Required    bool             `json:"required" doc:"Checked on submit, not on save."`
	EditableBy  []string         `json:"editable_by" nullable:"false" doc:"The task roles that may set the field."`
	AssetField  *string          `json:"asset_field" doc:"The asset member a pass writes the value to (latitude,longitude for coordinates); null for none."`
	Constraints FieldConstraints `json:"constraints"`
}

// TransformSchema lets help be null.
func (FieldDefinition) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullableRefs(s, "help")
}

// FieldConstraints restrict a field's value; each applies to the types named.
type FieldConstraints struct {
	MaxLength *int          `json:"max_length,omitempty" required:"false" doc:"string, text."`
	Pattern   *string       `json:"pattern,omitempty" required:"false" doc:"string: a regular expression the whole value matches."`
	Min       *float64      `json:"min,omitempty" required:"false" doc:"integer, number (inclusive)."`
	Max       *float64      `json:"max,omitempty" required:"false" doc:"integer, number (inclusive)."`
	Decimals  *int          `json:"decimals,omitempty" required:"false" doc:"number: at most this many decimals."`
	Unit      *string       `json:"unit,omitempty" required:"false" doc:"number: MW, MWh, kV, ..."`
	MinDate   *string       `json:"min_date,omitempty" format:"date" required:"false" doc:"date (inclusive)."`
	MaxDate   *string       `json:"max_date,omitempty" format:"date" required:"false" doc:"date (inclusive)."`
	Options   []FieldOption `json:"options,omitempty" required:"false" doc:"enum, multi_enum."`
	MinItems  *int          `json:"min_items,omitempty" required:"false" doc:"multi_enum."`
	MaxItems  *int          `json:"max_items,omitempty" required:"false" doc:"multi_enum."`
}

// FieldOption is one value of an enum or multi_enum field.
type FieldOption struct {
	Value string `json:"value"`
	Label Text   `json:"label"`
}

func optInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// FieldDefinitions is the wire form of RfI field definitions.
func FieldDefinitions(fs []rfi.Field) []FieldDefinition {
	out := make([]FieldDefinition, len(fs))
	for i, f := range fs {
		c := f.Constraints
		d := FieldDefinition{Key: f.Key, Label: Text{DE: f.Label.De, EN: f.Label.En}, Type: string(f.Type), Required: f.Required,
			EditableBy: append([]string{}, f.EditableBy...), AssetField: opt(f.AssetField),
			Constraints: FieldConstraints{MaxLength: optInt(c.MaxLength), Pattern: opt(c.Pattern), Min: c.Min, Max: c.Max, Decimals: c.Decimals,
				Unit: opt(c.Unit), MinDate: opt(c.MinDate), MaxDate: opt(c.MaxDate), MinItems: optInt(c.MinItems), MaxItems: optInt(c.MaxItems)}}
		if f.Help != nil {
			d.Help = &Text{DE: f.Help.De, EN: f.Help.En}
		}
		for _, o := range c.Options {
			d.Constraints.Options = append(d.Constraints.Options, FieldOption{Value: o.Value, Label: Text{DE: o.Label.De, EN: o.Label.En}})
		}
		out[i] = d
	}
	return out
}
