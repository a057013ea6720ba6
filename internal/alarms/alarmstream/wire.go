package alarmstream

import (
	"encoding/json"
	"reflect"

	"atcp/internal/alarms"
	"atcp/internal/alarms/alarmshttp"
)

// message is an event encoded once for every subscriber.
type message struct {
	id   int64
	org  string
	data []byte
}

func encode(e alarms.Event) (message, error) {
	data, err := json.Marshal(alarmshttp.EventOf(e))
	return message{id: e.ID, org: e.OrganizationID, data: data}, err
}

var reflectEvent = reflect.TypeFor[alarmshttp.AlarmEvent]()
