// Package control is the control loop: once per second of platform-clock
// time it steers every physical asset through the telemetry adapter (the
// battery simulator today) and records what the assets measure.
//
// Each second it gathers the inputs of every asset (active immediate
// dispatches, active restrictions, capacity awards, the aFRR activation of
// the replayed day, grid frequency and DSO curtailment), moves each
// asset's wholesale schedule target on (block-start resets, new events),
// builds one complete telemetry.Command per asset with the pure function
// Decide, sends it when the asset's battery control is enabled, advances
// the simulator and hands the snapshots to a Recorder. The outcome of
// every schedule target (full, clipped, rejected, failed, unknown) goes
// back to dispatch for the schedule dispatch report. See docs/control.md.
package control
