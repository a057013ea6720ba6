package alarms

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/errs"
)

func TestParseKey(t *testing.T) {
	good := map[string]Key{
		"demo-bess:TELEMETRY-001": {"demo-bess", "TELEMETRY-001"},
		"a.b_c:X":                 {"a.b_c", "X"},
	}
	for raw, want := range good {
		k, err := ParseKey(raw)
		if err != nil || k != want || k.String() != raw {
			t.Errorf("ParseKey(%q) = %+v, %v", raw, k, err)
		}
	}
	for _, raw := range []string{"", "demo-bess", ":TELEMETRY-001", "demo-bess:", "a:b:c", "-x:R", "a b:R", "a:" + strings.Repeat("R", 65)} {
		if _, err := ParseKey(raw); !errs.Is(err, errs.NotFound) {
			t.Errorf("ParseKey(%q): %v, want not found", raw, err)
		}
	}
}

func TestSeverityOrder(t *testing.T) {
	if !(Info.Rank() < Warning.Rank() && Warning.Rank() < Major.Rank() && Major.Rank() < Critical.Rank()) || Severity("LOW").Valid() {
		t.Fatal("severities out of order")
	}
	for _, et := range EventTypes {
		if !et.Valid() {
			t.Errorf("%s invalid", et)
		}
	}
	if EventType("alarm.closed").Valid() {
		t.Error("alarm.closed valid")
	}
}

func TestNewAlarmIDIsAUUIDv7OfThePlatformInstant(t *testing.T) {
	id := NewAlarmID(t0)
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
		t.Fatalf("%s: %v version %d", id, err, u.Version())
	}
	sec, nsec := u.Time().UnixTime()
	if got := time.Unix(sec, nsec).UTC(); !got.Equal(t0) {
		t.Fatalf("time %s, want %s", got, t0)
	}
	if NewAlarmID(t0) == id {
		t.Fatal("two ids alike")
	}
}

func mustDecide(t *testing.T, d Decide, cur *Lifecycle) (*Lifecycle, *Event) {
	t.Helper()
	next, ev, err := d(cur)
	if err != nil {
		t.Fatal(err)
	}
	return next, ev
}

func opened(t *testing.T, cur *Lifecycle, at time.Time) *Lifecycle {
	t.Helper()
	r, _ := RuleByID(RuleGrid)
	next, ev := mustDecide(t, DecideOpen(Opening{Rule: r, Key: Key{"b1", RuleGrid}, OrganizationID: "acme",
		Evidence: Evidence{Facts: []string{"grid_switch_status 0 (open)"}}, At: at, AlarmID: NewAlarmID(at)}), cur)
	if next == nil || ev == nil || ev.Type != Opened || !next.Open || ev.AlarmID != next.AlarmID {
		t.Fatalf("open: %+v %+v", next, ev)
	}
	if ev.Message != "Grid switch open on b1: grid_switch_status 0 (open)" || ev.Severity != Critical || ev.AlarmType != "grid" {
		t.Fatalf("opened event %+v", ev)
	}
	return next
}

func TestLifecycleDecisions(t *testing.T) {
	key := Key{"b1", RuleGrid}
	person := Actor{UserID: "u1", Email: new("op@acme.example")}
	l := opened(t, nil, t0)

	// An open lifecycle is not opened again (another engine did).
	if next, ev := mustDecide(t, DecideOpen(Opening{Rule: catalog[2], Key: key, At: t0, AlarmID: "x"}), l); next != nil || ev != nil {
		t.Fatal("opened twice")
	}

	// Acknowledge: recorded once; again, nothing changes.
	notes := "on it"
	acked, ev := mustDecide(t, DecideAcknowledge(key, person, &notes, nil, t0.Add(time.Minute)), l)
	if !acked.Acknowledged || *acked.AcknowledgedBy != "op@acme.example" || ev.Type != Acknowledged || *ev.UserID != "u1" ||
		*ev.Notes != notes || !ev.Acknowledged {
		t.Fatalf("acknowledge: %+v %+v", acked, ev)
	}
	if next, ev := mustDecide(t, DecideAcknowledge(key, person, nil, nil, t0.Add(2*time.Minute)), acked); next != nil || ev != nil {
		t.Fatal("acknowledged twice")
	}
	other := "0190aaaa-0000-7000-8000-000000000000"
	if _, _, err := DecideAcknowledge(key, person, nil, &other, t0)(l); !isConflict(err, "alarm_id_mismatch") {
		t.Fatalf("stale alarm_id: %v", err)
	}
	if _, _, err := DecideAcknowledge(key, person, nil, nil, t0)(nil); !isConflict(err, "alarm_not_open") {
		t.Fatalf("nothing open: %v", err)
	}

	// Mute: on the key, surviving resolution and a new lifecycle.
	muted, ev := mustDecide(t, DecideMute(key, Actor{UserID: "agent"}, "noisy", t0.Add(2*time.Hour), &acked.AlarmID, t0.Add(time.Minute)), acked)
	if !muted.Muted || *muted.MutedBy != "agent" || ev.Type != Muted || !ev.Muted || *ev.MuteReason != "noisy" || ev.UserEmail != nil {
		t.Fatalf("mute: %+v %+v", muted, ev)
	}
	resolved, ev := mustDecide(t, DecideResolve(muted.AlarmID, "cleared", Evidence{}, t0.Add(10*time.Minute)), muted)
	if resolved.Open || !ev.Muted || ev.Type != Resolved || !resolved.ResolvedAt.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("resolve: %+v %+v", resolved, ev)
	}
	if next, ev := mustDecide(t, DecideResolve(muted.AlarmID, "cleared", Evidence{}, t0), resolved); next != nil || ev != nil {
		t.Fatal("resolved twice")
	}
	again := opened(t, resolved, t0.Add(20*time.Minute))
	if !again.Muted || again.Acknowledged || again.AlarmID == l.AlarmID || *again.MuteReason != "noisy" {
		t.Fatalf("reopened: %+v", again)
	}
	// After the expiry the new lifecycle starts unmuted, and the engine
	// lifts the mute with an event.
	late := opened(t, resolved, t0.Add(3*time.Hour))
	if late.Muted {
		t.Fatalf("reopened after the mute expired: %+v", late)
	}
	if next, ev := mustDecide(t, DecideMuteExpiry(t0.Add(time.Hour)), again); next != nil || ev != nil {
		t.Fatal("unmuted before the expiry")
	}
	unmuted, ev := mustDecide(t, DecideMuteExpiry(t0.Add(2*time.Hour)), again)
	if unmuted.Muted || ev.Type != Unmuted || ev.UserID != nil || *ev.Notes != "mute expired" || ev.Muted {
		t.Fatalf("expiry: %+v %+v", unmuted, ev)
	}
	if v := again.At(t0.Add(2 * time.Hour)); v.Muted || v.MuteReason != nil {
		t.Fatalf("read after the expiry: %+v", v)
	}

	// Unmute by a caller; not muted is 409.
	un, ev := mustDecide(t, DecideUnmute(key, person, &notes, nil, t0.Add(30*time.Minute)), again)
	if un.Muted || ev.Type != Unmuted || *ev.UserEmail != "op@acme.example" {
		t.Fatalf("unmute: %+v %+v", un, ev)
	}
	if _, _, err := DecideUnmute(key, person, nil, nil, t0)(un); !isConflict(err, "alarm_not_muted") {
		t.Fatalf("unmute unmuted: %v", err)
	}
	if _, _, err := DecideMute(key, person, "x", t0.Add(time.Hour), nil, t0)(nil); !isConflict(err, "alarm_never_opened") {
		t.Fatalf("mute never opened: %v", err)
	}
}

func isConflict(err error, code string) bool {
	var e *errs.Error
	return errs.Is(err, errs.Conflict) && asError(err, &e) && e.Code == code
}

func asError(err error, target **errs.Error) bool { return errors.As(err, target) }

func TestMuteRequestExpiry(t *testing.T) {
	d := func(s int64) *int64 { return &s }
	at := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	cases := []struct {
		name string
		r    MuteRequest
		want time.Time
		bad  string // the offending field
	}{
		{"two hours", MuteRequest{Reason: "noisy", DurationSeconds: d(7200)}, t0.Add(2 * time.Hour), ""},
		{"until", MuteRequest{Reason: "noisy", ExpiresAt: at(time.Hour)}, t0.Add(time.Hour), ""},
		{"seven days", MuteRequest{Reason: "noisy", DurationSeconds: d(604800)}, t0.Add(MaxMute), ""},
		{"no reason", MuteRequest{Reason: "  ", DurationSeconds: d(60)}, time.Time{}, "body.reason"},
		{"control characters", MuteRequest{Reason: "a\x00", DurationSeconds: d(60)}, time.Time{}, "body.reason"},
		{"long reason", MuteRequest{Reason: strings.Repeat("x", 501), DurationSeconds: d(60)}, time.Time{}, "body.reason"},
		{"neither", MuteRequest{Reason: "noisy"}, time.Time{}, "body.duration_seconds"},
		{"both", MuteRequest{Reason: "noisy", DurationSeconds: d(60), ExpiresAt: at(time.Hour)}, time.Time{}, "body.duration_seconds"},
		{"beyond seven days", MuteRequest{Reason: "noisy", DurationSeconds: d(604801)}, time.Time{}, "body.duration_seconds"},
		{"zero", MuteRequest{Reason: "noisy", DurationSeconds: d(0)}, time.Time{}, "body.duration_seconds"},
		{"past", MuteRequest{Reason: "noisy", ExpiresAt: at(-time.Second)}, time.Time{}, "body.expires_at"},
		{"too far", MuteRequest{Reason: "noisy", ExpiresAt: at(MaxMute + time.Second)}, time.Time{}, "body.expires_at"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.r.Expiry(t0)
			if c.bad == "" {
				if err != nil || !got.Equal(c.want) {
					t.Fatalf("%v, %v; want %v", got, err, c.want)
				}
				return
			}
			var e *errs.Error
			if !asError(err, &e) || e.Kind != errs.Invalid || e.Fields[0].Location != c.bad {
				t.Fatalf("%v, want 422 at %s", err, c.bad)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	ids := 0
	newID := func(time.Time) string { ids++; return fmt.Sprintf("id-%d", ids) }
	stale := healthy()
	stale.Age = 20 * time.Second
	ok := healthy()
	ok.Asset.ID = "b2"

	// First run: the stale battery's TELEMETRY-001 track starts; nothing opens.
	b := Plan(t0, []Input{stale, ok}, EngineState{}, newID)
	if len(b.Tracks) != 1 || b.Tracks[0].Key != (Key{"b1", RuleTelemetry}) || !b.Tracks[0].Since.Equal(t0) || len(b.Updates) != 0 {
		t.Fatalf("first run: %+v", b)
	}
	// Ten seconds on it opens, the track unchanged.
	st := EngineState{Tracks: b.Tracks}
	b = Plan(t0.Add(10*time.Second), []Input{stale, ok}, st, newID)
	if len(b.Tracks) != 0 || len(b.DropTracks) != 0 || len(b.Updates) != 1 || b.Updates[0].Key != (Key{"b1", RuleTelemetry}) {
		t.Fatalf("after the sustain: %+v", b)
	}
	next, ev := mustDecide(t, b.Updates[0].Decide, nil)
	if ev.Evidence.SustainedSeconds != 10 || ev.Evidence.MeasuredAt == nil || !strings.Contains(ev.Message, "Stale telemetry on b1") {
		t.Fatalf("opened: %+v", ev)
	}
	// Steady: nothing to write.
	st.Lifecycles = []Lifecycle{*next}
	if b = Plan(t0.Add(20*time.Second), []Input{stale, ok}, st, newID); !b.Empty() {
		t.Fatalf("steady: %+v", b)
	}
	// Fresh again: the track turns clear, and 10 s later it resolves.
	fresh := healthy()
	b = Plan(t0.Add(30*time.Second), []Input{fresh, ok}, st, newID)
	if len(b.Tracks) != 1 || b.Tracks[0].Holding || len(b.Updates) != 0 {
		t.Fatalf("clearing: %+v", b)
	}
	st.Tracks = b.Tracks
	b = Plan(t0.Add(40*time.Second), []Input{fresh, ok}, st, newID)
	if len(b.DropTracks) != 1 || len(b.Updates) != 1 {
		t.Fatalf("resolving: %+v", b)
	}
	if _, ev := mustDecide(t, b.Updates[0].Decide, next); ev.Type != Resolved || ev.Evidence.SustainedSeconds != 10 {
		t.Fatalf("resolved: %+v", ev)
	}

	// The asset is gone: its open lifecycle resolves, its track goes; an
	// expired mute of another key is lifted.
	mutedKey := Key{"b2", RuleGrid}
	exp := t0.Add(time.Minute)
	st = EngineState{Tracks: []Track{{Key: Key{"b1", RuleTelemetry}, Holding: true, Since: t0}},
		Lifecycles: []Lifecycle{*next, {Key: mutedKey, AlarmID: "m", Muted: true, MuteExpiresAt: &exp}}}
	b = Plan(t0.Add(time.Hour), []Input{ok}, st, newID)
	if len(b.DropTracks) != 1 || len(b.Updates) != 2 || b.Updates[0].Key != (Key{"b1", RuleTelemetry}) || b.Updates[1].Key != mutedKey {
		t.Fatalf("gone: %+v", b)
	}
	if _, ev := mustDecide(t, b.Updates[0].Decide, next); ev.Type != Resolved || !strings.Contains(ev.Message, "deleted or offboarded") {
		t.Fatalf("orphan: %+v", ev)
	}
	if _, ev := mustDecide(t, b.Updates[1].Decide, &st.Lifecycles[1]); ev.Type != Unmuted {
		t.Fatalf("expiry: %+v", ev)
	}
}

func TestShards(t *testing.T) {
	count := map[int]int{}
	for i := range 1000 {
		id := fmt.Sprintf("asset-%d", i)
		in := 0
		for s := range 4 {
			if (Shard{Index: s, Count: 4}).Has(id) {
				count[s]++
				in++
			}
		}
		if in != 1 || ShardHash(id) < 0 {
			t.Fatalf("%s in %d shards", id, in)
		}
	}
	for s := range 4 {
		if count[s] < 150 {
			t.Fatalf("shards unbalanced: %v", count)
		}
	}
}
