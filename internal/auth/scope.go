package auth

import (
	"slices"
	"sort"
	"strings"
)

// Scope is the name of a permission carried on a token.
type Scope string

// The scopes of document 1's table.
const (
	AssetRead               Scope = "asset.read"
	AssetWrite              Scope = "asset.write"
	DispatchRead            Scope = "dispatch.read"
	DispatchWrite           Scope = "dispatch.write"
	MarketRead              Scope = "market.read"
	MarketWrite             Scope = "market.write"
	RestrictionsReview      Scope = "restrictions.review"
	RestrictionsApprove     Scope = "restrictions.approve"
	RestrictionsWriteDirect Scope = "restrictions.write_direct"
	AlarmRead               Scope = "alarm.read"
	AlarmWrite              Scope = "alarm.write"
	OnboardingRead          Scope = "onboarding.read"
	OnboardingWrite         Scope = "onboarding.write"
	ReportRead              Scope = "report.read"
	InvoiceRead             Scope = "invoice.read"
	UsersRead               Scope = "users.read"
	UsersWrite              Scope = "users.write"
	ClientsRead             Scope = "clients.read"
	ClientsWrite            Scope = "clients.write"
	PoolRead                Scope = "pool.read"
	PoolWrite               Scope = "pool.write"
)

// AllScopes lists every scope, in the order of document 1's table.
var AllScopes = []Scope{
	AssetRead, AssetWrite, DispatchRead, DispatchWrite, MarketRead, MarketWrite,
	RestrictionsReview, RestrictionsApprove, RestrictionsWriteDirect,
	AlarmRead, AlarmWrite, OnboardingRead, OnboardingWrite, ReportRead, InvoiceRead,
	UsersRead, UsersWrite, ClientsRead, ClientsWrite, PoolRead, PoolWrite,
}

// IntegrationGrantable lists the scopes an integration may be granted
// (document 1, Authentication rule 8).
var IntegrationGrantable = []Scope{
	AssetRead, AssetWrite, AlarmRead, AlarmWrite, MarketRead, MarketWrite,
	ReportRead, UsersRead, UsersWrite, ClientsRead, ClientsWrite,
}

// Known reports whether s names a scope.
func Known(s Scope) bool { return slices.Contains(AllScopes, s) }

// ScopeSet is a set of scopes.
type ScopeSet map[Scope]struct{}

// NewScopeSet builds a set from a list.
func NewScopeSet(scopes ...Scope) ScopeSet {
	s := make(ScopeSet, len(scopes))
	for _, sc := range scopes {
		s[sc] = struct{}{}
	}
	return s
}

// ParseScopeString parses a space-separated scope list as carried on tokens.
func ParseScopeString(s string) ScopeSet {
	set := ScopeSet{}
	for _, f := range strings.Fields(s) {
		set[Scope(f)] = struct{}{}
	}
	return set
}

// Has reports whether the set holds every scope given.
func (s ScopeSet) Has(scopes ...Scope) bool {
	for _, sc := range scopes {
		if _, ok := s[sc]; !ok {
			return false
		}
	}
	return true
}

// List returns the scopes sorted by name.
func (s ScopeSet) List() []Scope {
	out := make([]Scope, 0, len(s))
	for sc := range s {
		out = append(out, sc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Strings returns the sorted scope names.
func (s ScopeSet) Strings() []string {
	out := make([]string, 0, len(s))
	for _, sc := range s.List() {
		out = append(out, string(sc))
	}
	return out
}

// String returns the space-separated form carried on tokens.
func (s ScopeSet) String() string { return strings.Join(s.Strings(), " ") }

// ScopeNames converts scopes to their names, sorted.
func ScopeNames(scopes []Scope) []string { return NewScopeSet(scopes...).Strings() }
