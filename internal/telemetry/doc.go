// Package telemetry owns asset state: the measurements an asset reports,
// their history and the planned state derived from the platform's own
// records. Its first piece is the adapter boundary (adapter.go): the
// platform sends a Command to an asset and reads Measurements back through
// an Adapter, so the battery simulator (package simulator) and a later
// EMS/IEC-104 adapter are interchangeable.
package telemetry
