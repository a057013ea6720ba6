// Package dplsvc runs the data-point list of an onboarding and its
// communication tests (docs/onboarding.md sections 5.E and 5.K): the
// stored rows and tests, their store interface, the changes through the
// onboarding's Mutate (gate lock, audit, gate touch) and the gate
// requirements "dpl" and "communication_test". The rules themselves are
// package dpl's (pure); dplhttp serves the endpoints.
package dplsvc
