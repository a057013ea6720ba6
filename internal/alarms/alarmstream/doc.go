// Package alarmstream serves GET /v1/alarms/stream: the alarm events of
// the caller's organisations over a WebSocket, live and resumable from an
// event id (docs/alarms-stream.md).
//
// Events are committed to the store with ids in commit order, so every
// instance runs one Hub: a poller reading "events after the highest id
// seen" and fanning each new event out to its local subscribers through
// bounded buffers. An event written through any instance reaches every
// instance's subscribers; a resuming subscriber's replay ends at the id
// the hub had fanned out when it subscribed, and live events start after
// it, so nothing is missed or sent twice.
package alarmstream
