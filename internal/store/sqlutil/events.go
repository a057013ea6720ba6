package sqlutil

import (
	"encoding/json"

	"atcp/internal/events"
)

// MailParts is the stored form of an event's mail parts: JSON, nil
// without.
func MailParts(m *events.Mail) (any, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// ParseMailParts reads the stored mail parts back.
func ParseMailParts(s *string) (*events.Mail, error) {
	if s == nil {
		return nil, nil
	}
	var m events.Mail
	if err := json.Unmarshal([]byte(*s), &m); err != nil {
		return nil, err
	}
	return &m, nil
}
