// Package telemetry owns asset state: the measurements an asset reports,
// their history and the planned state derived from the platform's own
// records. adapter.go holds what crosses the adapter boundary: the
// complete Command the platform sends an asset and the Measurements it
// reads back. The boundary itself is control.Adapter (docs/adapters.md),
// behind which the battery simulator (package simulator) and device
// adapters are interchangeable.
package telemetry
