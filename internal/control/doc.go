// Package control is the control loop: once per second of platform-clock
// time it steers every physical asset through the adapter its
// registration names and records what the assets measure. It is
// orchestration only and depends on interfaces it owns: Adapter (attach,
// send a complete command, advance, read, connectivity), Fleet (which
// assets exist), Activations (the TSO's aFRR activation) and Covers (the
// pool covers in force); the simulated world (battery physics, grid
// frequency, DSO curtailment, the replayed activation) lives behind them
// in internal/adapters/simulated.
//
// Each second it gathers the inputs of every asset (active immediate
// dispatches, active restrictions, capacity awards with the pool covers in
// force moved to the batteries covering them, the aFRR activation),
// moves each asset's wholesale schedule target on (block-start resets,
// new events), builds one complete telemetry.Command per asset with the
// pure function Decide, sends it when the asset's battery control is
// enabled and its adapter reaches it, advances every adapter, reads the
// measurements (keeping the DSO curtailment records in line with them)
// and hands the snapshots to a Recorder. The outcome of every schedule
// target (full, clipped, rejected, failed) goes back to dispatch for the
// schedule dispatch report, and each quarter-hour's aFRR dispatch events
// (what each battery was asked, sent and delivered) to DispatchEvents for
// the aFRR reports. See docs/control.md and docs/adapters.md.
package control
