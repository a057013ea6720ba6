// Package assets owns the asset registry: the Asset record with its
// defaults, validation and partial-update rules, the organisation
// isolation of asset reads and writes, and the names of the adapters
// assets are steered through. It is plain Go: errors name fields, not
// request paths; decoding, schemas and HTTP endpoints live in assetshttp.
package assets
