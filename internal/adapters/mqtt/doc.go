// Package mqtt steers physical assets that sit behind an edge gateway on
// an MQTT v5 broker, and runs simulated batteries as such gateways.
//
// It owns the topic and JSON payload contract of docs/adapters.md
// ("MQTT"): the command a platform publishes to P/command (the full
// telemetry.Command with a sequence number and a validity deadline), the
// measurements a gateway publishes to P/measurements and the retained
// gateway status on P/status with its last will. Adapter is the platform
// side: it publishes commands through a bounded queue (the newest unsent
// command per asset), keeps only the latest valid measurement per asset,
// refuses and counts invalid ones, and reports an asset unavailable when
// its gateway is offline or silent. Edge is the gateway side `atcp edge`
// runs: the battery simulator's physics (package simulator) executing only
// fresh commands. Connections are managed by autopaho (reconnect with
// backoff); real time (deadlines, staleness) comes from an injected clock.
package mqtt
