package narrator

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"atcp/internal/markets/calendar"
)

// UnverifiedNumbers lists the numbers written in text that nothing in the
// evidence supports: each as written, once, in the order of the text. The
// evidence is the texts the draft was made from (facts, names, figures)
// and the instants it may quote (the deadline), which count in UTC and in
// German local time. The check is advisory (document 2): it flags what an
// operator should compare with the evidence before sending, it proves
// nothing.
//
// A number is supported when one of its readings is one of the evidence's:
// "1,5" reads 1.5 (German decimal comma), "1.500" reads 1.5 and 1500, "1.234,5"
// 1234.5, "17:30" and "17.30" a time, "15.03.2026", "15.03." and "2026-03-15"
// a date, and the parts of a date or time (day, year, hour) support the
// same numbers written alone ("15 March 2026", "17 Uhr"). A number is
// also supported when it is an evidence number rounded to the decimals it
// shows and keeps at least two significant digits (48.7 % written 49 %,
// 1.4837 MW written 1.48 or 1.5, never 1). Signs are ignored, so are list
// markers ("1. " at the start of a line).
func UnverifiedNumbers(text string, evidence []string, instants []time.Time) []string {
	known := supportOf(evidence, instants)
	var out []string
	seen := map[string]bool{}
	for _, n := range scanNumbers(text, true) {
		if seen[n.text] || known.supports(n) {
			continue
		}
		seen[n.text] = true
		out = append(out, n.text)
	}
	return out
}

// number is a number as written and every reading of it.
type number struct {
	text     string
	readings []string // "n:1.5", "t:17:30", "d:2026-03-15", "dm:03-15"
	values   []value  // the numeric readings, for the rounding rule
	// parts are the readings the number's parts support on the evidence
	// side: the day, year and hour of a date or time, a time without seconds.
	parts []string
}

// value is a numeric reading: its value, its decimals as written and its
// significant digits.
type value struct {
	v        float64
	decimals int
	digits   int
}

// support is what the evidence supports: readings and numeric values.
type support struct {
	readings map[string]bool
	values   []value
}

func supportOf(evidence []string, instants []time.Time) support {
	s := support{readings: map[string]bool{}}
	add := func(n number) {
		for _, r := range n.readings {
			s.readings[r] = true
		}
		for _, r := range n.parts {
			s.readings[r] = true
		}
		s.values = append(s.values, n.values...)
	}
	for _, text := range evidence {
		for _, n := range scanNumbers(text, false) {
			add(n)
		}
		for _, m := range timestampRE.FindAllString(text, -1) {
			if t, err := time.Parse(time.RFC3339Nano, strings.Replace(m, " ", "T", 1)); err == nil {
				instants = append(instants, t)
			}
		}
	}
	for _, t := range instants {
		for _, at := range []time.Time{t.UTC(), t.In(calendar.Berlin)} {
			for _, n := range scanNumbers(at.Format("2006-01-02 15:04:05"), false) {
				add(n)
			}
		}
	}
	return s
}

// timestampRE finds RFC 3339 instants in evidence texts, so that a fact
// in UTC also supports the German local time a draft quotes.
var timestampRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})`)

func (s support) supports(n number) bool {
	for _, r := range n.readings {
		if s.readings[r] {
			return true
		}
	}
	for _, w := range n.values {
		if w.digits < 2 || w.decimals > 15 || math.IsInf(w.v, 0) {
			continue
		}
		scale := math.Pow10(w.decimals)
		for _, e := range s.values {
			if e.decimals > w.decimals && math.Round(e.v*scale) == math.Round(w.v*scale) {
				return true
			}
		}
	}
	return false
}

// scanNumbers finds the numbers of text: runs of digits joined by single
// separators (. , : / -) between digits. skipMarkers leaves out list
// markers.
func scanNumbers(text string, skipMarkers bool) []number {
	var out []number
	lineStart := 0
	for i := 0; i < len(text); {
		if !isDigit(text[i]) {
			if text[i] == '\n' {
				lineStart = i + 1
			}
			i++
			continue
		}
		j := i + 1
		for j < len(text) {
			if isDigit(text[j]) {
				j++
			} else if strings.IndexByte(".,:/-", text[j]) >= 0 && j+1 < len(text) && isDigit(text[j+1]) {
				j += 2
			} else {
				break
			}
		}
		token, after := text[i:j], text[j:]
		if !(skipMarkers && isListMarker(text[lineStart:i], token, after)) {
			out = append(out, read(token, after)...)
		}
		i = j
	}
	return out
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// isListMarker: "1. " or "2) " alone at the start of a line (line is the
// text before it on its line).
func isListMarker(line, token, after string) bool {
	return strings.TrimSpace(line) == "" && len(token) <= 2 && (strings.HasPrefix(after, ". ") || strings.HasPrefix(after, ") "))
}

// read gives a token's readings; a token that reads as nothing whole
// (a range "10-12", "1.2.3") is read as its parts.
func read(token, after string) []number {
	n := number{text: token}
	switch {
	case strings.ContainsAny(token, ":"):
		n.addTime(token)
	case strings.ContainsAny(token, "-/"):
		n.addDate(token)
	default:
		n.addDecimal(token, after)
	}
	if len(n.readings) > 0 {
		return []number{n}
	}
	var parts []number
	for _, p := range strings.FieldsFunc(token, func(r rune) bool { return strings.ContainsRune(".,:/-", r) }) {
		parts = append(parts, plain(p))
	}
	return parts
}

// plain is a run of digits.
func plain(digits string) number {
	n := number{text: digits}
	n.addValue(digits, "")
	return n
}

// addValue adds the numeric reading of integer and fraction digits.
func (n *number) addValue(whole, fraction string) {
	whole = strings.TrimLeft(whole, "0")
	fraction = strings.TrimRight(fraction, "0")
	canon := whole
	if canon == "" {
		canon = "0"
	}
	if fraction != "" {
		canon += "." + fraction
	}
	n.readings = append(n.readings, "n:"+canon)
	if v, err := strconv.ParseFloat(canon, 64); err == nil {
		digits := strings.TrimLeft(whole+fraction, "0")
		n.values = append(n.values, value{v: v, decimals: len(fraction), digits: len(digits)})
	}
}

// addDecimal reads digits with dots and commas: a decimal separator, a
// thousands separator, a time written "17.30", a German date.
func (n *number) addDecimal(token, after string) {
	dots, commas := strings.Count(token, "."), strings.Count(token, ",")
	switch {
	case dots == 0 && commas == 0:
		n.addValue(token, "")
	case dots+commas == 1:
		whole, fraction, _ := strings.Cut(strings.Replace(token, ",", ".", 1), ".")
		n.addValue(whole, fraction)
		if len(fraction) == 3 && len(whole) <= 3 {
			n.addValue(whole+fraction, "")
		}
		if dots == 1 {
			if len(whole) <= 2 && len(fraction) == 2 {
				n.addClock(whole, fraction, "")
			}
			if strings.HasPrefix(after, ".") {
				n.addDayMonth(whole, fraction)
			}
		}
	case dots > 0 && commas > 0:
		// The last separator is the decimal one, the other groups thousands.
		last := strings.LastIndexAny(token, ".,")
		thousands := string(",."[strings.IndexByte(".,", token[last])])
		if whole, ok := thousandsGroups(token[:last], thousands); ok && !strings.ContainsAny(token[last+1:], ".,") {
			n.addValue(whole, token[last+1:])
		}
	default:
		sep := "."
		if commas > 0 {
			sep = ","
		}
		if whole, ok := thousandsGroups(token, sep); ok {
			n.addValue(whole, "")
		}
		if parts := strings.Split(token, "."); dots == 2 && commas == 0 {
			n.addDate3(parts[0], parts[1], parts[2], false)
		}
	}
}

// thousandsGroups joins "1.234.567" to "1234567" when every group after
// the first has three digits and the first one to three.
func thousandsGroups(s, sep string) (string, bool) {
	groups := strings.Split(s, sep)
	if len(groups[0]) == 0 || len(groups[0]) > 3 || strings.ContainsAny(groups[0], ".,") {
		return "", false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 || strings.ContainsAny(g, ".,") {
			return "", false
		}
	}
	return strings.Join(groups, ""), true
}

// addTime reads "17:30" and "17:30:05".
func (n *number) addTime(token string) {
	parts := strings.Split(token, ":")
	if strings.ContainsAny(token, ".,/-") || len(parts) > 3 {
		return
	}
	if len(parts) == 2 {
		n.addClock(parts[0], parts[1], "")
	} else {
		n.addClock(parts[0], parts[1], parts[2])
	}
}

func (n *number) addClock(h, m, s string) {
	hour, minute, second, ok := atoi(h, 2), atoi(m, 2), 0, len(m) == 2
	if s != "" {
		second, ok = atoi(s, 2), ok && len(s) == 2
	}
	if !ok || hour < 0 || hour > 24 || minute < 0 || minute > 59 || second < 0 || second > 59 {
		return
	}
	hm := fmt.Sprintf("t:%02d:%02d", hour, minute)
	if s == "" || second == 0 {
		n.readings = append(n.readings, hm)
	} else {
		n.readings = append(n.readings, fmt.Sprintf("%s:%02d", hm, second))
		n.parts = append(n.parts, hm)
	}
	n.parts = append(n.parts, "n:"+strconv.Itoa(hour))
}

// addDate reads "2026-03-15" and "15/03/2026" (day first or month first).
func (n *number) addDate(token string) {
	if p := strings.Split(token, "-"); len(p) == 3 && len(p[0]) == 4 && len(p[1]) == 2 && len(p[2]) == 2 {
		n.addDate3(p[2], p[1], p[0], false)
	} else if p := strings.Split(token, "/"); len(p) == 3 && !strings.Contains(token, "-") {
		n.addDate3(p[0], p[1], p[2], true)
	}
}

// addDate3 reads day, month and year (two or four digits); monthFirst also
// tries the American order.
func (n *number) addDate3(d, m, y string, monthFirst bool) {
	if len(y) != 2 && len(y) != 4 {
		return
	}
	year := atoi(y, 4)
	if len(y) == 2 {
		year += 2000
	}
	n.addDayMonthYear(atoi(d, 2), atoi(m, 2), year)
	if monthFirst {
		n.addDayMonthYear(atoi(m, 2), atoi(d, 2), year)
	}
}

func (n *number) addDayMonthYear(day, month, year int) {
	t := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if day < 1 || month < 1 || year < 0 || t.Day() != day || int(t.Month()) != month {
		return
	}
	n.readings = append(n.readings, fmt.Sprintf("d:%04d-%02d-%02d", year, month, day))
	n.parts = append(n.parts, fmt.Sprintf("dm:%02d-%02d", month, day), "n:"+strconv.Itoa(day), "n:"+strconv.Itoa(year))
}

// addDayMonth reads "15.03." (a date without its year).
func (n *number) addDayMonth(d, m string) {
	day, month := atoi(d, 2), atoi(m, 2)
	if day >= 1 && day <= 31 && month >= 1 && month <= 12 && len(d) <= 2 && len(m) <= 2 {
		n.readings = append(n.readings, fmt.Sprintf("dm:%02d-%02d", month, day))
	}
}

// atoi parses at most width digits, -1 otherwise.
func atoi(s string, width int) int {
	if s == "" || len(s) > width {
		return -1
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return v
}
