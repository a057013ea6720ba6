// Package assetstate is the read side of telemetry: an asset's live state,
// its state history and its planned state, each for a caller and with
// virtual asset ids resolved and disaggregated. It sits outside package
// telemetry because planned state reads dispatch, which imports telemetry.
// HTTP endpoints live in telemetryhttp; docs/telemetry.md explains the
// decisions.
package assetstate
