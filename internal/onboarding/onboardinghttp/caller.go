package onboardinghttp

import (
	"context"

	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
)

// Caller is the caller of an onboarding endpoint as an actor, previewRole
// the X-Onboarding-Preview-Role header ("" on manager endpoints); the
// returned ctx carries the request id for the audit trail.
func Caller(ctx context.Context, previewRole string) (context.Context, onboarding.Actor, error) {
	a, err := onboarding.ActorFrom(httpapi.Principal(ctx), previewRole)
	return onboarding.WithRequestID(ctx, httpapi.RequestID(ctx)), a, err
}

// Manager is the handler of a manager endpoint (under /v1/onboardings)
// that runs f with the caller as an actor (Caller without a preview role).
func Manager[I, O any](f func(ctx context.Context, a onboarding.Actor, in *I) (*O, error)) func(context.Context, *I) (*O, error) {
	return func(ctx context.Context, in *I) (*O, error) {
		ctx, a, err := Caller(ctx, "")
		if err != nil {
			return nil, err
		}
		return f(ctx, a, in)
	}
}

// Tasks resolves the task of an actor (*onboarding.Service).
type Tasks interface {
	ResolveTask(ctx context.Context, a onboarding.Actor, onboardingID, role string) (onboarding.Task, error)
}

// Task resolves the caller of a task endpoint on onboarding id as
// onboarding.Service.ResolveTask does (a magic-link session, a preview
// with the X-Onboarding-Preview-Role header, or a user holding the role
// through a contact); the returned ctx carries the request id.
func Task(ctx context.Context, svc Tasks, id, role, previewRole string) (context.Context, onboarding.Task, error) {
	ctx, a, err := Caller(ctx, previewRole)
	if err != nil {
		return ctx, onboarding.Task{}, err
	}
	t, err := svc.ResolveTask(ctx, a, id, role)
	return ctx, t, err
}

// Page is the limit/offset paging of the onboarding lists.
type Page struct {
	Limit  int `query:"limit" minimum:"1" maximum:"1000" default:"100"`
	Offset int `query:"offset" minimum:"0" default:"0"`
}

// Day parses an optional date member at loc; "" is absent.
func Day(v *errs.Validation, loc, s string) *calendar.Day {
	if s == "" {
		return nil
	}
	d, err := calendar.ParseDay(s)
	if err != nil {
		v.Add(loc, "must be a date YYYY-MM-DD", s)
		return nil
	}
	return &d
}
