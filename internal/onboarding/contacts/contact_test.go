package contacts_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/contacts"
)

func locations(err error) []string {
	var e *errs.Error
	if !errors.As(err, &e) {
		return nil
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Location)
	}
	return out
}

func TestContactValidate(t *testing.T) {
	valid := contacts.Contact{Name: "Erika Muster", Email: "erika@epc.example", Phone: "+4930123456", Roles: []onboarding.TaskRole{onboarding.RoleEPC},
		Language: "de"}
	for _, c := range []struct {
		name   string
		change func(*contacts.Contact)
		want   []string
	}{
		{"valid", func(*contacts.Contact) {}, nil},
		{"no phone, no language", func(c *contacts.Contact) { c.Phone, c.Language = "", "" }, nil},
		{"blank name", func(c *contacts.Contact) { c.Name = "  " }, []string{"body.name"}},
		{"long name", func(c *contacts.Contact) { c.Name = strings.Repeat("ä", contacts.MaxNameLength+1) }, []string{"body.name"}},
		{"name with a line break", func(c *contacts.Contact) { c.Name = "a\nb" }, []string{"body.name"}},
		{"company with a NUL", func(c *contacts.Contact) { c.Company = "a\x00" }, []string{"body.company"}},
		{"display name in the address", func(c *contacts.Contact) { c.Email = "Erika <erika@epc.example>" }, []string{"body.email"}},
		{"no address", func(c *contacts.Contact) { c.Email = "" }, []string{"body.email"}},
		{"long address", func(c *contacts.Contact) { c.Email = strings.Repeat("a", 250) + "@x.example" }, []string{"body.email"}},
		{"phone not E.164", func(c *contacts.Contact) { c.Phone = "030 123456" }, []string{"body.phone"}},
		{"phone with a leading zero", func(c *contacts.Contact) { c.Phone = "+0301234" }, []string{"body.phone"}},
		{"no roles", func(c *contacts.Contact) { c.Roles = nil }, []string{"body.roles"}},
		{"language", func(c *contacts.Contact) { c.Language = "fr" }, []string{"body.language"}},
		{"everything", func(c *contacts.Contact) { *c = contacts.Contact{Phone: "1", Language: "x"} },
			[]string{"body.name", "body.email", "body.phone", "body.roles", "body.language"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := valid
			c.change(&k)
			if got := locations(k.Validate()); !slices.Equal(got, c.want) {
				t.Fatalf("locations %v, want %v", got, c.want)
			}
		})
	}
}

func TestParseRoles(t *testing.T) {
	got, err := contacts.ParseRoles([]string{"tso", "asset_owner", "platform_onboarding"})
	if err != nil || !slices.Equal(got, []onboarding.TaskRole{onboarding.RoleAssetOwner, onboarding.RolePlatformOnboarding, onboarding.RoleTSO}) {
		t.Fatalf("roles %v, %v", got, err)
	}
	if got := locations(func() error { _, err := contacts.ParseRoles([]string{"epc", "boss", "epc"}); return err }()); !slices.Equal(got,
		[]string{"body.roles[1]", "body.roles[2]"}) {
		t.Fatalf("locations %v", got)
	}
	if got, err := contacts.ParseRoles(nil); err != nil || len(got) != 0 {
		t.Fatalf("no roles %v, %v", got, err)
	}
}
