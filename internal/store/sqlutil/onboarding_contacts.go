package sqlutil

import (
	"fmt"
	"strings"

	"atcp/internal/onboarding"
	"atcp/internal/onboarding/contacts"
)

// ContactRoles is the stored form of a contact's roles: comma-separated.
func ContactRoles(c contacts.Contact) string { return strings.Join(c.RoleNames(), ",") }

// ParseContactRoles reads the stored roles back.
func ParseContactRoles(s string) ([]onboarding.TaskRole, error) {
	out := []onboarding.TaskRole{}
	for _, n := range strings.Split(s, ",") {
		r, err := onboarding.ParseTaskRole(n)
		if err != nil {
			return nil, fmt.Errorf("stored contact role: %w", err)
		}
		out = append(out, r)
	}
	return out, nil
}
