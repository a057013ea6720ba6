package app

import (
	"time"

	"atcp/internal/events"
	"atcp/internal/events/mail"
	"atcp/internal/events/natsbus"
	"atcp/internal/events/webhook"
	"atcp/internal/worker"
)

// The event delivery job looks at the outbox every deliveryRealPeriod of
// real time, at any platform clock speed, and another instance takes it
// over within about deliveryLeaseReal when its holder dies.
const (
	deliveryRealPeriod = time.Second
	deliveryLeaseReal  = 10 * time.Second
)

// eventDelivery builds the outbox and its delivery job (docs/events.md).
// The outbox always exists; chat webhooks need no setting, e-mail needs
// ATCP_SMTP_URL and ATCP_MAIL_FROM, the bus ATCP_NATS_URL. An event of a
// channel without its setting is dead at its first attempt, its
// last_error naming the setting. Delivery timing (retries, claims) runs on
// the machine's clock, a.Security, like every other operational timeout.
func (a *App) eventDelivery() (worker.Job, error) {
	a.Outbox = events.NewOutbox(a.Store.Events(), a.Clock, a.Security)
	senders := map[string]events.Sender{events.ChannelChat: webhook.New(0)}
	if a.Config.SMTPURL != "" {
		m, err := mail.New(mail.Config{URL: a.Config.SMTPURL, From: a.Config.MailFrom, Objects: a.Objects})
		if err != nil {
			return worker.Job{}, err
		}
		senders[events.ChannelEmail] = m
	}
	o := events.DelivererOptions{Store: a.Store.Events(), Clock: a.Security, Senders: senders, Logger: a.Log}
	if a.Config.NATSURL != "" {
		// New does not wait for the server: events wait in the outbox
		// until it answers.
		p, err := natsbus.New(natsbus.Config{URL: a.Config.NATSURL, Logger: a.Log})
		if err != nil {
			return worker.Job{}, err
		}
		a.bus, o.Bus = p, p
	}
	d, err := events.NewDeliverer(o)
	if err != nil {
		return worker.Job{}, err
	}
	speed := a.Config.ClockSpeed
	every := max(time.Duration(float64(deliveryRealPeriod)*speed), time.Nanosecond)
	return d.Job(every, max(2*every, time.Duration(float64(deliveryLeaseReal)*speed))), nil
}
