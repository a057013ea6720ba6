// Package restrictions holds what narrows what an asset may do: power
// limits, energy limits and unavailability (one interval engine, three
// kinds), DSO curtailments, and restriction requests that apply one of the
// three kinds after approval. FullyRestricted answers whether an asset may
// not trade or be dispatched at an instant. docs/constraints.md records the
// decisions the specification leaves open.
package restrictions
