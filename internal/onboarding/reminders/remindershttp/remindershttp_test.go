package remindershttp_test

import (
	"context"
	"testing"
	"time"

	"atcp/internal/onboarding"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/onboarding/reminders"
	"atcp/internal/onboarding/reminders/remindershttp"
	"atcp/internal/testkit"
)

// owners finds a contact of the owner role, except for the DPL gate.
type owners struct{}

func (owners) ForGate(_ context.Context, _ onboarding.Onboarding, g onboarding.Gate, roles []onboarding.TaskRole) ([]reminders.Recipient, error) {
	if d, _ := g.Definition(); d.Kind == onboarding.KindDPL {
		return nil, nil
	}
	return []reminders.Recipient{{Role: roles[0], ContactID: "c-1", Name: "Erika"}}, nil
}

type mail struct {
	onboardingtest.Recorder[reminders.ReminderMail]
}

func (m *mail) Reminder(_ context.Context, _ onboarding.Onboarding, r reminders.ReminderMail) error {
	return m.Record(r)
}

func TestReminders(t *testing.T) {
	ctx := context.Background()
	k := onboardingtest.New(t, testkit.OpenSQLite(t), onboardingtest.Config{})
	h, core := k.Harness, k.Core
	m := &mail{}
	svc := reminders.NewService(reminders.Deps{Core: core, Store: k.Backend.OnboardingReminders(), Recipients: owners{}, Sender: m, Clock: h.Clock,
		Security: h.Security})
	remindershttp.Register(h.Server, svc)
	ob := k.Start("bess-1", map[string]onboarding.GateOverride{"fc_installation": {Waived: true, Note: "done"}})
	var platform, acme, acmeRO, beta, none string
	// mint mints the callers' tokens, again after the security clock moved
	// past their hour.
	mint := func() {
		k.Mint()
		platform, acme, acmeRO, beta, none = k.Platform, k.Acme, k.AcmeRO, k.Beta, k.None
	}
	mint()
	base := "/v1/onboardings/" + ob.ID
	rfi, dpl, installation := ob.Gates[0].ID, ob.Gates[1].ID, ob.Gates[2].ID

	// The job's reminder shows in the list.
	if err := svc.Run(ctx, ob.Gates[0].Deadline.AddDays(-1).Local(10, 0)); err != nil {
		t.Fatal(err)
	}
	var l struct {
		Policy    remindershttp.ReminderPolicy `json:"policy"`
		Reminders []map[string]any             `json:"reminders"`
		Total     int                          `json:"total"`
	}
	h.Do("GET", base+"/reminders", acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
	if l.Total != 1 || l.Policy.OverdueEveryDays != 3 || len(l.Policy.DaysBefore) != 2 || l.Reminders[0]["kind"] != "before_deadline" ||
		l.Reminders[0]["gate_id"] != rfi || l.Reminders[0]["delivery_status"] != "enqueued" || len(m.Sent()) != 1 {
		t.Fatalf("list %+v, mails %+v", l, m.Sent())
	}

	// Manual.
	r := h.Do("POST", base+"/gates/"+rfi+"/remind", acme, map[string]any{"message": "Friday!"}).Expect(t, 202, "").Map(t)
	if r["kind"] != "manual" || r["message"] != "Friday!" || r["created_by_name"] != "acme@example.com" ||
		r["recipients"].([]any)[0].(map[string]any)["role"] != "asset_owner" || len(m.Sent()) != 2 || m.Sent()[1].Message != "Friday!" {
		t.Fatalf("manual %v", r)
	}
	limited := h.Do("POST", base+"/gates/"+rfi+"/remind", platform, nil).Expect(t, 429, "reminder_rate_limited")
	if limited.Header.Get("Retry-After") != "3600" {
		t.Fatalf("Retry-After %q", limited.Header.Get("Retry-After"))
	}
	// The hour is real time: a platform hour (six real seconds on a demo
	// clock at 600x) does not lift the limit, the security clock's does.
	h.Clock.Advance(time.Hour)
	h.Do("POST", base+"/gates/"+rfi+"/remind", platform, nil).Expect(t, 429, "reminder_rate_limited")
	h.Security.Advance(20 * time.Minute)
	limited = h.Do("POST", base+"/gates/"+rfi+"/remind", platform, nil).Expect(t, 429, "reminder_rate_limited")
	if limited.Header.Get("Retry-After") != "2400" {
		t.Fatalf("Retry-After %q after 20 minutes", limited.Header.Get("Retry-After"))
	}
	h.Security.Advance(40 * time.Minute)
	mint()
	h.Do("POST", base+"/gates/"+rfi+"/remind", platform, nil).Expect(t, 202, "")
	h.Do("POST", base+"/gates/"+dpl+"/remind", platform, nil).Expect(t, 422, "no_recipients")
	h.Do("POST", base+"/gates/"+installation+"/remind", platform, nil).Expect(t, 409, "gate_done")
	h.Do("POST", base+"/gates/00000000-0000-4000-8000-000000000000/remind", platform, nil).Expect(t, 404, "gate_not_found")
	h.Do("POST", base+"/gates/"+rfi+"/remind", acme, map[string]any{"message": string(make([]byte, 2001))}).Expect(t, 422, "")
	h.Do("POST", base+"/gates/"+rfi+"/remind", acme, map[string]any{"message": "esc\x1b[2J"}).Expect(t, 422, "")
	h.Do("POST", base+"/gates/"+rfi+"/remind", acmeRO, nil).Expect(t, 403, "insufficient_scope")
	h.Do("POST", base+"/gates/"+rfi+"/remind", beta, nil).Expect(t, 404, "onboarding_not_found")
	h.Do("GET", base+"/reminders?gate_id="+rfi+"&limit=1", acme, nil).Expect(t, 200, "").JSON(t, &l)
	if l.Total != 3 || len(l.Reminders) != 1 {
		t.Fatalf("rfi reminders %+v", l)
	}

	// Policy.
	p := h.Do("PUT", base+"/reminder-policy", acme, map[string]any{"days_before": []int{3, 0}, "overdue_every_days": 1,
		"max_overdue_reminders": 2, "enabled": true}).Expect(t, 200, "").Map(t)
	if p["overdue_every_days"] != 1.0 || len(p["days_before"].([]any)) != 2 {
		t.Fatalf("policy %v", p)
	}
	for _, bad := range []map[string]any{
		{"days_before": []int{61}, "overdue_every_days": 1, "max_overdue_reminders": 0, "enabled": true},
		{"days_before": []int{1, 1}, "overdue_every_days": 1, "max_overdue_reminders": 0, "enabled": true},
		{"days_before": []int{1, 2, 3, 4, 5, 6}, "overdue_every_days": 1, "max_overdue_reminders": 0, "enabled": true},
		{"days_before": []int{1}, "overdue_every_days": 0, "max_overdue_reminders": 0, "enabled": true},
		{"days_before": []int{1}, "overdue_every_days": 1, "max_overdue_reminders": 21, "enabled": true},
	} {
		h.Do("PUT", base+"/reminder-policy", acme, bad).Expect(t, 422, "validation_failed")
	}
	h.Do("GET", base+"/reminders", acme, nil).Expect(t, 200, "").JSON(t, &l)
	if l.Policy.MaxOverdueReminders != 2 {
		t.Fatalf("a refused policy changed it: %+v", l.Policy)
	}
	h.Do("PUT", base+"/reminder-policy", acmeRO, map[string]any{"days_before": []int{}, "overdue_every_days": 1, "max_overdue_reminders": 0, "enabled": false}).
		Expect(t, 403, "insufficient_scope")
	h.Do("PUT", base+"/reminder-policy", beta, map[string]any{"days_before": []int{}, "overdue_every_days": 1, "max_overdue_reminders": 0, "enabled": false}).
		Expect(t, 404, "onboarding_not_found")

	// Reads.
	h.Do("GET", base+"/reminders", none, nil).Expect(t, 403, "insufficient_scope")
	h.Do("GET", base+"/reminders", beta, nil).Expect(t, 404, "onboarding_not_found")
	h.Do("GET", base+"/reminders?gate_id=00000000-0000-4000-8000-000000000000", acme, nil).Expect(t, 422, "validation_failed")

	if _, err := core.Cancel(ctx, onboardingtest.PlatformActor, ob.ID, "sold"); err != nil {
		t.Fatal(err)
	}
	h.Security.Advance(time.Hour)
	mint()
	h.Do("POST", base+"/gates/"+rfi+"/remind", platform, nil).Expect(t, 409, "onboarding_closed")
	h.Do("PUT", base+"/reminder-policy", acme, map[string]any{"days_before": []int{}, "overdue_every_days": 1, "max_overdue_reminders": 0, "enabled": false}).
		Expect(t, 409, "onboarding_closed")
	// A cancelled workflow is reminded of nothing.
	if err := svc.Run(ctx, ob.Gates[1].Deadline.AddDays(-1).Local(10, 0)); err != nil {
		t.Fatal(err)
	}
	h.Do("GET", base+"/reminders", acme, nil).Expect(t, 200, "").JSON(t, &l)
	if l.Total != 3 {
		t.Fatalf("after cancel %d", l.Total)
	}
}
