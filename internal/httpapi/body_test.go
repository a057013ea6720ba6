package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"atcp/internal/errs"
)

func TestInstantInRange(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"2026-03-29", true},                // spring clock change
		{"2026-10-25T02:30:00+02:00", true}, // the repeated hour, first time
		{"2026-10-25T02:30:00+01:00", true}, // and second time
		{"2000-01-01", true},
		{"1999-12-31", false},
		{"2100-01-01", true},
		{"2100-01-02", false},
		{"2100-01-01T00:00:00Z", true},
		{"2100-01-01T00:00:00.000001Z", false},
		{"2100-01-01T00:30:00+01:00", true},
		{"0000-01-01T00:00:00Z", false},
		{"9999-12-31T23:59:59Z", false},
		{"2026-02-30", true},           // not a date: the operation's validation says so
		{"2026-02-01 07:00", true},     // not an RFC 3339 instant either
		{"0000-01-01Tgarbage", true},   // nor this
		{"1999-12-31t23:00:00z", true}, // time.Time does not take lower case either
	}
	for _, c := range cases {
		if got := instantInRange(c.in); got != c.want {
			t.Errorf("instantInRange(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestParseContentType(t *testing.T) {
	cases := []struct {
		in, mediaType string
		ok            bool
	}{
		{"", "", true},
		{"application/json", "application/json", true},
		{"Application/JSON; Charset=\"UTF-8\"", "application/json", true},
		{"application/merge-patch+json; charset=utf-8", "application/merge-patch+json", true},
		{"application/json; charset=utf-16", "application/json", false},
		{"application/json; charset=us-ascii", "application/json", false},
		{"application/json;;", "", false},
	}
	for _, c := range cases {
		mt, ok := parseContentType(c.in)
		if mt != c.mediaType || ok != c.ok {
			t.Errorf("parseContentType(%q) = %q, %v; want %q, %v", c.in, mt, ok, c.mediaType, c.ok)
		}
	}
}

// FuzzInspectJSON: inspectJSON never panics; what it lets through is
// UTF-8, and when it is valid JSON it has no member twice and no instant
// out of range (checked here with encoding/json, a different parser).
func FuzzInspectJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `{"a":1,"a":2}`, `[{"x":"2026-02-01"},{"x":"0000-01-01"}]`, `{"a":{"b":[1,{"c":"1999-01-01T00:00:00Z"}]}}`,
		`{"a":"\u0000"}`, `"2026-02-01"`, `{"a":`, "\xff", `{"a\u0062":1,"ab":2}`, `[[[[[]]]]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		err := inspectJSON(body)
		if err != nil {
			if k := errs.KindOf(err); k != errs.Malformed && k != errs.Invalid {
				t.Fatalf("kind %v: %v", k, err)
			}
			return
		}
		if !json.Valid(body) {
			return
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber() // 1e400 is valid JSON, not a float64
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		checkDecoded(t, v, body)
		if name, dup := duplicateMember(body); dup {
			t.Fatalf("member %q twice let through in %q", name, body)
		}
	})
}

// duplicateMember finds a member named twice in one object with
// encoding/json's tokenizer.
func duplicateMember(body []byte) (string, bool) {
	type level struct {
		object, wantName bool
		names            map[string]bool
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var stack []*level
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if name, ok := tok.(string); ok && top != nil && top.object && top.wantName {
			if top.names[name] {
				return name, true
			}
			top.names[name] = true
			top.wantName = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{object: true, wantName: true, names: map[string]bool{}})
			continue
		case json.Delim('['):
			stack = append(stack, &level{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantName = true // a value ended: a name comes next
		}
	}
}

// checkDecoded walks a decoded value for instants out of range.
func checkDecoded(t *testing.T, v any, body []byte) {
	switch x := v.(type) {
	case string:
		if len(x) >= 10 && isDateShape([]byte(x)) && !strings.Contains(string(body), `\`) && !instantInRange(x) {
			t.Fatalf("instant %q let through in %q", x, body)
		}
	case []any:
		for _, e := range x {
			checkDecoded(t, e, body)
		}
	case map[string]any:
		for _, e := range x {
			checkDecoded(t, e, body)
		}
	}
}

// BenchmarkInspectJSON measures the body pass on a delivery day of aFRR
// energy bids (96 quarter-hours, both directions: 192 bids, ~30 kB), the
// largest body of the hot path, reporting p50 and p99 per body.
func BenchmarkInspectJSON(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"bids":[`)
	for i := 0; i < 192; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		dir := "POSITIVE"
		if i%2 == 1 {
			dir = "NEGATIVE"
		}
		fmt.Fprintf(&sb, `{"idempotency_key":"day-2026-02-02-%03d","direction":"%s","start_time":"2026-02-01T%02d:%02d:00Z","end_time":"2026-02-01T%02d:%02d:00Z","energy_price_eur_per_mwh":"%d.25","offered_power_mw":5}`,
			i, dir, (i/8)%24, (i/2%4)*15, (i/8)%24, (i/2%4)*15+15-(i/2%4)/3*15, 100+i)
	}
	sb.WriteString(`]}`)
	body := []byte(sb.String())
	if err := inspectJSON(body); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	samples := make([]time.Duration, 0, 100_000)
	for b.Loop() {
		start := time.Now()
		if err := inspectJSON(body); err != nil {
			b.Fatal(err)
		}
		if len(samples) < cap(samples) {
			samples = append(samples, time.Since(start))
		}
	}
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(samples[len(samples)*99/100].Microseconds()), "p99-µs")
}
