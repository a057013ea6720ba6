package identity

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/errs"
)

func TestCheckIntegrationName(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		ok        bool
	}{
		{"SCADA gateway", "SCADA gateway", true},
		{"  trimmed\t", "trimmed", true},
		{"Überwachung – Netz", "Überwachung – Netz", true},
		{strings.Repeat("ä", MaxIntegrationNameLength), strings.Repeat("ä", MaxIntegrationNameLength), true},
		{strings.Repeat("a", MaxIntegrationNameLength+1), "", false},
		{"", "", false},
		{"   ", "", false},
		{"line\nbreak", "", false},
		{"bell\x07", "", false},
		{"bad \xff utf8", "", false},
	} {
		got, problem := checkIntegrationName(tc.raw)
		if (problem == "") != tc.ok || got != tc.want {
			t.Errorf("checkIntegrationName(%q) = %q, %q; want %q ok=%v", tc.raw, got, problem, tc.want, tc.ok)
		}
	}
}

func TestValidateNewIntegration(t *testing.T) {
	acme := &auth.Principal{OrganizationID: "acme"}
	platform := &auth.Principal{OrganizationID: auth.PlatformOrganization}
	for _, tc := range []struct {
		name      string
		caller    *auth.Principal // acme when nil
		req       NewIntegration
		locations []string // offending fields, empty when valid
		scopes    string
	}{
		{"valid", nil, NewIntegration{Name: "ems", Scopes: []string{"market.write", "asset.read", "asset.read"}}, nil, "asset.read market.write"},
		{"no scopes at all is allowed", nil, NewIntegration{Name: "ems", Scopes: []string{}}, nil, ""},
		{"scopes missing", nil, NewIntegration{Name: "ems"}, []string{"body.scopes"}, ""},
		{"not grantable to integrations", nil, NewIntegration{Name: "ems", Scopes: []string{"asset.read", "dispatch.write", "pool.read"}},
			[]string{"body.scopes[1]", "body.scopes[2]"}, ""},
		{"unknown scope", nil, NewIntegration{Name: "ems", Scopes: []string{"root"}}, []string{"body.scopes[0]"}, ""},
		{"every field wrong", platform, NewIntegration{Name: " ", Scopes: []string{"tso"}},
			[]string{"body.name", "body.scopes[0]", "body.organization_id"}, ""},
		{"platform callers name the organisation", platform, NewIntegration{Name: "ems", Scopes: []string{}}, []string{"body.organization_id"}, ""},
		{"platform callers may name their own", platform, NewIntegration{Name: "ems", Scopes: []string{}, OrganizationID: auth.PlatformOrganization}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			caller := tc.caller
			if caller == nil {
				caller = acme
			}
			_, scopes, err := validateNewIntegration(caller, tc.req)
			if len(tc.locations) == 0 {
				if err != nil || scopes.String() != tc.scopes {
					t.Fatalf("got %q, %v; want %q", scopes, err, tc.scopes)
				}
				return
			}
			var de *errs.Error
			if !errors.As(err, &de) || de.Kind != errs.Invalid || len(de.Fields) != len(tc.locations) {
				t.Fatalf("error %v, want fields %v", err, tc.locations)
			}
			for i, loc := range tc.locations {
				if de.Fields[i].Location != loc {
					t.Errorf("field %d at %s, want %s", i, de.Fields[i].Location, loc)
				}
			}
		})
	}
}

func TestNewSecretValuesAreUniqueAndNameTheirID(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := uuid.NewString()
		v := newSecretValue(id)
		if !strings.HasPrefix(v, secretPrefix) || len(v) != 85 || seen[v] {
			t.Fatalf("weak or repeated secret %q", v)
		}
		if got, ok := secretIDOf(v); !ok || got != id {
			t.Fatalf("secretIDOf(%q) = %q, %v; want %q", v, got, ok, id)
		}
		seen[v] = true
	}
}

func TestSecretIDOf(t *testing.T) {
	id := "0b6f1a52-8a53-4d0e-9a53-0f6c2d8e4b11"
	random := strings.Repeat("A", 43)
	for _, tc := range []struct {
		value, id string
	}{
		{"atcp_" + id + "_" + random, id},
		{"atcp_" + id + "_" + strings.Repeat("-", 43), id},
		{"atcp_" + random, ""},                      // generated before ids were embedded
		{"bench-secret-0123456789abcdef", ""},       // a bootstrap secret
		{"atcp_" + id + "-" + random, ""},           // wrong separator
		{"atcp_" + id + "_" + random + "A", ""},     // too long
		{"atcp_" + id + "_" + random[1:], ""},       // too short
		{"ATCP_" + id + "_" + random, ""},           // other prefix
		{"x" + "atcp_" + id + "_" + random[1:], ""}, // not at the start
		{"", ""},
	} {
		got, ok := secretIDOf(tc.value)
		if got != tc.id || ok != (tc.id != "") {
			t.Errorf("secretIDOf(%q) = %q, %v; want %q", tc.value, got, ok, tc.id)
		}
	}
}

func TestSecretRules(t *testing.T) {
	code := func(err error) errs.Code {
		var e *errs.Error
		if errors.As(err, &e) && e.Kind == errs.Conflict {
			return e.Code
		}
		if err != nil {
			t.Fatalf("not a conflict: %v", err)
		}
		return ""
	}
	for held, want := range map[int]errs.Code{0: "", MaxActiveSecrets - 1: "", MaxActiveSecrets: CodeSecretLimitReached, MaxActiveSecrets + 1: CodeSecretLimitReached} {
		if got := code(AllowAnotherSecret(held)); got != want {
			t.Errorf("adding to %d secrets: %q, want %q", held, got, want)
		}
	}
	for held, want := range map[int]errs.Code{1: CodeLastSecret, 2: ""} {
		if got := code(AllowSecretDeletion(held)); got != want {
			t.Errorf("deleting one of %d secrets: %q, want %q", held, got, want)
		}
	}
}
