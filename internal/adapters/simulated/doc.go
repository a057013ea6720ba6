// Package simulated is the simulator adapter: the simulated world behind
// the control loop's adapter boundary (control.Adapter, docs/adapters.md).
// It owns the battery simulator's instance of every asset routed to
// "simulator", the grid those batteries see (a 1 Hz frequency series
// shaped on the replayed day, FrequencySeries, and the DSO's curtailment
// signals, Curtailment) and the replayed day's aFRR activation of energy
// bids (Activations). Everything is deterministic for a seed, so every
// instance and every restart replays the same days. It also owns the
// faults injected into its batteries (Fault, FaultStore, FaultService;
// docs/telemetry.md, "Fault injection"), which Advance applies.
package simulated
