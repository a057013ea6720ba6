package auth

import (
	"context"

	"atcp/internal/errs"
)

// CodeOrganizationNotAccessible: organization_id names an organisation
// the caller may not act for, or none that is registered (422; the same
// answer for both, so that nothing is learnt about other organisations).
const CodeOrganizationNotAccessible errs.Code = "organization_not_accessible"

// OrganizationTarget is how a request names the organisation it acts on:
// the organization_id it sent ("" for none) and where it sent it.
type OrganizationTarget struct {
	Named    string
	Location string // e.g. query.organization_id
	// Required: a caller who may act for several organisations (a platform
	// administrator) must name one; without it, its own is taken.
	Required bool
}

// ActingFor resolves the organisation a request acts on for caller p: by
// default the caller's own; another only for a platform administrator and
// only a registered one (registered returns an errs.NotFound error for an
// unknown organisation). Anything else is 422 organization_not_accessible.
func ActingFor(ctx context.Context, p *Principal, t OrganizationTarget, registered func(ctx context.Context, id string) error) (string, error) {
	refuse := func(msg string) (string, error) {
		return "", &errs.Error{Kind: errs.Invalid, Code: CodeOrganizationNotAccessible, Message: msg,
			Fields: []errs.FieldError{{Location: t.Location, Message: msg, Value: t.Named}}}
	}
	switch {
	case p == nil:
		return refuse("no organisation is accessible without a caller")
	case t.Required && t.Named == "" && p.IsPlatformAdmin():
		return "", errs.Invalidf(t.Location, t.Named, "required for a caller who may act for several organisations")
	case t.Named == "" || t.Named == p.OrganizationID:
		return p.OrganizationID, nil
	case !p.IsPlatformAdmin():
		return refuse("you may act only for your own organisation; leave organization_id out or name it")
	}
	if err := registered(ctx, t.Named); errs.Is(err, errs.NotFound) {
		return refuse("is not a registered organisation")
	} else if err != nil {
		return "", err
	}
	return t.Named, nil
}
