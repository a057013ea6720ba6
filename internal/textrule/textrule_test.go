package textrule

import (
	"testing"

	"atcp/internal/errs"
)

func TestRules(t *testing.T) {
	cases := []struct {
		name           string
		s              string
		isName, isText bool
	}{
		{"empty", "", true, true},
		{"plain", "Battery Leipzig 2", true, true},
		{"letters of other scripts", "Speicher Görlitz – Süd, 蓄電池", true, true},
		{"space", "a b", true, true},
		{"NUL", "a\x00b", false, false},
		{"NUL alone", "\x00", false, false},
		{"bell", "a\x07", false, false},
		{"escape", "\x1b[31mred", false, false},
		{"DEL", "a\x7fb", false, false},
		{"C1 control (NEL)", "a\u0085b", false, false},
		{"C1 control (CSI)", "a\u009bb", false, false},
		{"line feed", "line one\nline two", false, true},
		{"carriage return", "line one\r\nline two", false, true},
		{"tab", "a\tb", false, true},
		{"tab and NUL", "a\t\x00", false, false},
		{"invalid UTF-8", "a\xffb", false, false},
		{"format character (not Cc)", "a\u200bb", true, true},
		{"line separator (not Cc)", "a\u2028b", true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Name(c.s); got != c.isName {
				t.Errorf("Name(%q) = %v, want %v", c.s, got, c.isName)
			}
			if got := Text(c.s); got != c.isText {
				t.Errorf("Text(%q) = %v, want %v", c.s, got, c.isText)
			}
			var v errs.Validation
			if CheckName(&v, "body.name", c.s) != c.isName || (v.Err() == nil) != c.isName {
				t.Errorf("CheckName(%q): %v", c.s, v.Err())
			}
			var w errs.Validation
			if CheckText(&w, "body.note", c.s) != c.isText || (w.Err() == nil) != c.isText {
				t.Errorf("CheckText(%q): %v", c.s, w.Err())
			}
		})
	}
}

func TestCheckNamesTheField(t *testing.T) {
	var v errs.Validation
	CheckName(&v, "body.bids[0].idempotency_key", "k\x00")
	e, ok := v.Err().(*errs.Error)
	if !ok || e.Kind != errs.Invalid || e.Code != "validation_failed" || len(e.Fields) != 1 ||
		e.Fields[0].Location != "body.bids[0].idempotency_key" || e.Fields[0].Message != NameMessage {
		t.Fatalf("error %#v", v.Err())
	}
}
