package app

import (
	"time"

	"atcp/internal/alarms/fault"
	"atcp/internal/alarms/incident"
	"atcp/internal/alarms/narrator"
	"atcp/internal/config"
)

// incidentOpenTimeout bounds one call to the incident tool when an alarm
// opens, so that a slow tool delays only the openings queued behind it.
const incidentOpenTimeout = 5 * time.Second

// faultHandling builds the fault evidence, draft, declaration and
// incident service on the narrator and incident tool of cfg (each
// optional: docs/fault-messages.md, docs/incidents.md), and has every
// unmuted opening of a paging rule heard by the incident opener.
func (a *App) faultHandling(cfg config.Config) {
	incidents := incident.New(incident.Config{URL: cfg.IncidentURL, Token: cfg.IncidentToken, Logger: a.Log})
	a.Faults = fault.NewService(fault.Deps{
		Alarms: a.Alarms, Assets: a.Assets, Directory: a.Contacts, Holds: a.Restrictions,
		Narrator: narrator.New(narrator.Config{BaseURL: cfg.NarratorURL, Model: cfg.NarratorModel,
			APIKey: cfg.NarratorAPIKey, Logger: a.Log}),
		Incidents: incidents, Outbox: a.Outbox, Store: a.Store.Faults(), Clock: a.Clock, BaseURL: a.baseURL,
	})
	a.incidents = fault.NewOpener(a.Assets, incidents, a.Log, incidentOpenTimeout)
	a.Alarms.OnOpened(a.incidents.Heard)
}
