// Package alarms is the alarm area: severities, the versioned rule
// catalogue, the pure evaluation of each rule over an asset's latest
// measurements, the sustain/clear hysteresis of a rule's condition, alarm
// lifecycles (one per alarm key asset_id:rule_id at a time, each with its
// alarm_id) and their events, the store interface, the service behind the
// endpoints (alarmshttp) and the engine: a background job per rule shard
// that evaluates every asset of its shard each platform second under a
// lease.
//
// Evaluation and hysteresis are plain functions: Rule.Evaluate says
// whether a condition holds now (or cannot be told: Unknown), Step moves a
// key's condition track on and says when a lifecycle opens or resolves.
// The engine reads, evaluates and writes; the store writes each
// transition together with its event in one transaction, deciding on the
// locked current row, so that two engines never open one key twice.
//
// What a muted alarm still does and does not do, and the other design
// decisions, are in docs/alarms.md.
package alarms
