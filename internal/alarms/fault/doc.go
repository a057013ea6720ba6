// Package fault declares an asset faulty from one of its alarms: the
// evidence an operator reviews, the drafted message, the declaration
// (a fault-notification record and the fault unavailability committed
// together, then the partner events through the outbox, then the
// record's final status) and the alarm's incident (docs/fault-declaration.md).
// The rules here are plain Go; the Service ties them to the stores.
package fault
