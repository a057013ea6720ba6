// Package dispatch steers assets: immediate dispatch (an unrestricted
// override of one asset's power), scheduled dispatch (per-second targets
// in 15-minute UTC delivery blocks), the anticipated-dispatch forecast and
// the schedule dispatch report. The rules are plain functions of this
// package; Service applies them to a Store under the asset's row lock, and
// implements Plan, what the control loop reads and reports back to.
// docs/dispatch.md records the decisions the specification leaves open.
package dispatch
