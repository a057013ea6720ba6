package auth

import (
	"context"
	"errors"
	"testing"

	"atcp/internal/errs"
)

func TestActingFor(t *testing.T) {
	acme := &Principal{OrganizationID: "acme"}
	admin := &Principal{OrganizationID: PlatformOrganization}
	registered := func(_ context.Context, id string) error {
		switch id {
		case "acme", "beta":
			return nil
		case "down":
			return errors.New("store down")
		}
		return errs.NotFoundf("no organisation %q", id)
	}
	cases := []struct {
		name     string
		p        *Principal
		named    string
		required bool
		want     string
		code     errs.Code // "" when resolved; errs.CodeValidationFailed or CodeOrganizationNotAccessible
		internal bool
	}{
		{"own by default", acme, "", false, "acme", "", false},
		{"own by name", acme, "acme", true, "acme", "", false},
		{"another: refused", acme, "beta", false, "", CodeOrganizationNotAccessible, false},
		{"an unknown one: the same answer", acme, "nobody", false, "", CodeOrganizationNotAccessible, false},
		{"an administrator names a registered one", admin, "beta", true, "beta", "", false},
		{"an administrator names an unknown one", admin, "nobody", false, "", CodeOrganizationNotAccessible, false},
		{"an administrator without a name: its own", admin, "", false, PlatformOrganization, "", false},
		{"an administrator without a name where one is required", admin, "", true, "", errs.CodeValidationFailed, false},
		{"the lookup fails", admin, "down", false, "", "", true},
		{"no caller", nil, "acme", false, "", CodeOrganizationNotAccessible, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ActingFor(context.Background(), c.p,
				OrganizationTarget{Named: c.named, Location: "query.organization_id", Required: c.required}, registered)
			var e *errs.Error
			switch {
			case c.internal:
				if err == nil || errors.As(err, &e) {
					t.Fatalf("want the lookup's error, got %v", err)
				}
			case c.code == "":
				if err != nil || got != c.want {
					t.Fatalf("got %q, %v; want %q", got, err, c.want)
				}
			default:
				if !errors.As(err, &e) || e.Code != c.code || e.Kind != errs.Invalid || e.Fields[0].Location != "query.organization_id" {
					t.Fatalf("got %q, %v; want code %s", got, err, c.code)
				}
			}
		})
	}
}
