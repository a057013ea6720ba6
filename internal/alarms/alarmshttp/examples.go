package alarmshttp

import (
	"encoding/json"
	"time"

	"atcp/internal/alarms"
)

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

// exampleCatalog is the catalogue itself, generated at a fixed instant.
var exampleCatalog = func() string {
	c := AlarmRuleCatalog{CatalogVersion: alarms.CatalogVersion, GeneratedAt: time.Date(2026, 2, 1, 9, 30, 0, 0, time.UTC)}
	for _, r := range alarms.Rules() {
		c.Rules = append(c.Rules, AlarmRule{RuleID: r.ID, Name: r.Name, AlarmType: r.AlarmType, Severity: string(r.Severity),
			Description: r.Description, SustainSeconds: int64(r.Sustain / time.Second), ClearSeconds: int64(r.ClearAfter / time.Second),
			ClearingCondition: r.ClearingCondition, Pages: r.Pages})
	}
	c.RuleCount = len(c.Rules)
	b, err := json.Marshal(c)
	if err != nil {
		panic(err)
	}
	return string(b)
}()

const (
	exampleAlarmID = "019c1874-8f40-7a3e-9b21-5c0d6f1e2a47"

	exampleEvidence = `{"facts":["latest measurements at 2026-02-01T09:14:50Z, 15 s old","staleness bound 5 s"],
		"measured_at":"2026-02-01T09:14:50Z","sustained_seconds":10}`

	exampleEventList = `{"alarms":[
		{"event_id":1042,"event_type":"alarm.acknowledged","alarm_id":"` + exampleAlarmID + `","alarm_key":"demo-bess:TELEMETRY-001",
		 "asset_id":"demo-bess","organization_id":"demo","rule_id":"TELEMETRY-001","alarm_type":"communication","severity":"MAJOR",
		 "message":"Stale telemetry on demo-bess: latest measurements at 2026-02-01T09:14:50Z, 15 s old","evidence":` + exampleEvidence + `,
		 "timestamp":"2026-02-01T09:16:12Z","opened_at":"2026-02-01T09:15:05Z","resolved_at":null,"date_partition":"2026-02-01",
		 "muted":false,"acknowledged":true,"acknowledged_by":"operator@demo.example","acknowledged_at":"2026-02-01T09:16:12Z",
		 "user_id":"53aa1f7f-442f-46ab-badc-e05932c115e5","user_email":"operator@demo.example","notes":"Gateway restarting",
		 "mute_reason":null,"mute_expires_at":null},
		{"event_id":1037,"event_type":"alarm.opened","alarm_id":"` + exampleAlarmID + `","alarm_key":"demo-bess:TELEMETRY-001",
		 "asset_id":"demo-bess","organization_id":"demo","rule_id":"TELEMETRY-001","alarm_type":"communication","severity":"MAJOR",
		 "message":"Stale telemetry on demo-bess: latest measurements at 2026-02-01T09:14:50Z, 15 s old","evidence":` + exampleEvidence + `,
		 "timestamp":"2026-02-01T09:15:05Z","opened_at":"2026-02-01T09:15:05Z","resolved_at":null,"date_partition":"2026-02-01",
		 "muted":false,"acknowledged":false,"acknowledged_by":null,"acknowledged_at":null,"user_id":null,"user_email":null,
		 "notes":null,"mute_reason":null,"mute_expires_at":null}],
		"total":2,"limit":100,"offset":0}`

	exampleActiveList = `{"alarms":[
		{"alarm_id":"` + exampleAlarmID + `","alarm_key":"demo-bess:TELEMETRY-001","asset_id":"demo-bess","organization_id":"demo",
		 "rule_id":"TELEMETRY-001","rule_name":"Stale telemetry","alarm_type":"communication","severity":"MAJOR",
		 "message":"Stale telemetry on demo-bess: latest measurements at 2026-02-01T09:14:50Z, 15 s old","evidence":` + exampleEvidence + `,
		 "opened_at":"2026-02-01T09:15:05Z","acknowledged":true,"acknowledged_by":"operator@demo.example",
		 "acknowledged_at":"2026-02-01T09:16:12Z","notes":"Gateway restarting","muted":true,"mute_reason":"Gateway swap until noon",
		 "mute_expires_at":"2026-02-01T11:16:30Z","muted_by":"operator@demo.example","muted_at":"2026-02-01T09:16:30Z"}],
		"total":1,"limit":100,"offset":0}`

	exampleAcknowledge  = `{"notes":"Gateway restarting"}`
	exampleAcknowledged = `{"event_id":1042,"alarm_key":"demo-bess:TELEMETRY-001","alarm_id":"` + exampleAlarmID + `",
		"acknowledged":true,"acknowledged_by":"operator@demo.example","acknowledged_at":"2026-02-01T09:16:12Z"}`

	exampleMute  = `{"reason":"Gateway swap until noon","duration_seconds":7200,"alarm_id":"` + exampleAlarmID + `"}`
	exampleMuted = `{"event_id":1043,"alarm_key":"demo-bess:TELEMETRY-001","alarm_id":"` + exampleAlarmID + `","muted":true,
		"mute_reason":"Gateway swap until noon","mute_expires_at":"2026-02-01T11:16:30Z","muted_by":"operator@demo.example",
		"muted_at":"2026-02-01T09:16:30Z"}`

	exampleUnmute  = `{"notes":"Gateway back"}`
	exampleUnmuted = `{"event_id":1051,"alarm_key":"demo-bess:TELEMETRY-001","alarm_id":"` + exampleAlarmID + `","muted":false,
		"unmuted_by":"operator@demo.example","unmuted_at":"2026-02-01T10:02:00Z"}`
)
