// Package events is atcp's event bus: a transactional outbox in the store
// and the worker that delivers it. A producer (the fault declaration)
// hands Outbox.Enqueue the events of one action; they are stored in one
// transaction, all or none, and the delivery worker (a worker.Job under
// a lease) sends each due event through the sender of its channel (e-mail
// through SMTP, chat through a Slack-compatible webhook) and, when an
// event bus is configured, publishes every event to NATS JetStream. A
// failed attempt is retried with capped exponential backoff and
// deterministic jitter (Schedule) until it succeeds or the attempts run
// out ("dead"). Delivery is at least once; every event carries an
// idempotency key that travels to the receiver (Idempotency-Key header,
// the e-mail's Message-ID, Nats-Msg-Id) so that a repeated delivery can
// be recognised there. Retry timing runs on the machine's clock, like
// every operational timeout (docs/events.md).
//
// The senders live in subpackages (mail, webhook, natsbus), so that this
// package stays plain Go without network code.
package events
