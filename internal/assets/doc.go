// Package assets owns the asset registry: the Asset record with its
// defaults, validation and partial-update rules, and the organisation
// isolation of asset reads and writes. HTTP endpoints live in assetshttp.
package assets
