package restrictions

import (
	"strings"
	"testing"
	"time"

	"atcp/internal/errs"
)

func TestDecide(t *testing.T) {
	pending := Request{Status: Pending, Start: at(time.Hour), End: end(2 * time.Hour), RequestedBy: "alice"}
	openEnded := Request{Status: Pending, Start: at(time.Hour), RequestedBy: "alice"}
	for _, c := range []struct {
		name string
		r    Request
		d    Decision
		now  time.Time
		want Status
		code errs.Code
	}{
		{"approve", pending, Decision{To: Approved, By: "bob"}, t0, Approved, ""},
		{"reject", pending, Decision{To: Rejected, By: "bob"}, t0, Rejected, ""},
		{"cancel by requester", pending, Decision{To: Cancelled, By: "alice"}, t0, Cancelled, ""},
		{"cancel by admin", pending, Decision{To: Cancelled, By: "root", Admin: true}, t0, Cancelled, ""},
		{"cancel by another", pending, Decision{To: Cancelled, By: "bob"}, t0, Pending, "not_requester"},
		{"approve decided", Request{Status: Rejected, Start: at(time.Hour)}, Decision{To: Approved}, t0, Rejected, "request_not_pending"},
		{"approve after the start", pending, Decision{To: Approved, By: "bob"}, at(90 * time.Minute), Approved, ""},
		{"approve at the end", pending, Decision{To: Approved, By: "bob"}, at(2 * time.Hour), Expired, "request_expired"},
		{"open-ended within tolerance", openEnded, Decision{To: Approved, By: "bob"}, at(time.Hour + PastStartTolerance), Approved, ""},
		{"open-ended after its start", openEnded, Decision{To: Approved, By: "bob"}, at(time.Hour + PastStartTolerance + time.Second), Expired, "request_expired"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Decide(c.r, c.d, c.now)
			if code(err) != c.code || got.Status != c.want {
				t.Fatalf("got %s, %v; want %s, %q", got.Status, err, c.want, c.code)
			}
			if err == nil && (got.DecidedBy == nil || *got.DecidedBy != c.d.By || !got.DecidedAt.Equal(c.now)) {
				t.Fatalf("decision not recorded: %+v", got)
			}
		})
	}
}

func TestAsOfAndDraft(t *testing.T) {
	r := Request{Status: Pending, Start: at(time.Hour), End: end(2 * time.Hour)}
	if r.AsOf(at(2*time.Hour-time.Microsecond)).Status != Pending || r.AsOf(at(2*time.Hour)).Status != Expired {
		t.Fatal("expiry at the end")
	}
	if d := r.Draft(at(90 * time.Minute)); !d.Start.Equal(at(90 * time.Minute)) {
		t.Fatalf("draft after the start begins at %s", d.Start)
	}
	if d := r.Draft(t0); !d.Start.Equal(at(time.Hour)) {
		t.Fatalf("draft before the start begins at %s", d.Start)
	}
}

func TestDecisionAndFilterValidate(t *testing.T) {
	long := strings.Repeat("n", MaxDescription+1)
	for _, c := range []struct {
		name string
		err  error
		loc  string // empty: valid
	}{
		{"no note", Decision{}.Validate(), ""},
		{"note with line breaks and tabs", Decision{Note: strp("ok,\r\n\tthanks")}.Validate(), ""},
		{"note too long", Decision{Note: &long}.Validate(), "body.note"},
		{"note with NUL", Decision{Note: strp("ok\x00")}.Validate(), "body.note"},
		{"note with escape", Decision{Note: strp("\x1b[1mok")}.Validate(), "body.note"},
		{"no asset filter", RequestFilter{}.Validate(), ""},
		{"asset filter", RequestFilter{AssetID: "bess-1"}.Validate(), ""},
		{"asset filter of no asset's shape", RequestFilter{AssetID: "no such asset"}.Validate(), ""},
		{"asset filter with NUL", RequestFilter{AssetID: "bess\x00"}.Validate(), "query.asset_id"},
		{"asset filter with a tab", RequestFilter{AssetID: "bess\t1"}.Validate(), "query.asset_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.loc == "" {
				if c.err != nil {
					t.Fatal(c.err)
				}
				return
			}
			var e *errs.Error
			if !asErr(c.err, &e) || e.Kind != errs.Invalid || len(e.Fields) != 1 || e.Fields[0].Location != c.loc {
				t.Fatalf("got %v, want a 422 at %s", c.err, c.loc)
			}
		})
	}
}
