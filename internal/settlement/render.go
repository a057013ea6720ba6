package settlement

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/calendar"
)

// The settlement envelope of a month of 100 assets is some 60 MB of JSON
// (180,000 blocks): reading it as figure rows and encoding it by
// reflection takes seconds. The settlement store therefore keeps each
// asset-day's blocks pre-rendered as JSON (Day, table settlement_days),
// re-rendered by Save whenever a block of the day changes, and the read
// only copies them into the body (docs/settlement.md, "Storage").

// Mark stands in a rendered day for the members that depend on the
// clock when read: a block's status and final_at, uniform over its
// delivery day. NUL cannot occur in JSON text (strings escape it).
const Mark = 0x00

// Cents are amounts of every product key in integer cents of EUR, indexed
// like ProductKeys: revenue, backup fee and penalty.
type Cents [productCount][3]int64

// Add adds o.
func (c *Cents) Add(o *Cents) {
	for i := range c {
		c[i][0] += o[i][0]
		c[i][1] += o[i][1]
		c[i][2] += o[i][2]
	}
}

// String is the 30 amounts separated by spaces (how the stores keep them).
func (c Cents) String() string {
	b := make([]byte, 0, 8*3*productCount)
	for i := range c {
		for j := range c[i] {
			if i+j > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, c[i][j], 10)
		}
	}
	return string(b)
}

// ParseCents reads Cents.String.
func ParseCents(s string) (Cents, error) {
	var c Cents
	f := strings.Fields(s)
	if len(f) != 3*productCount {
		return c, &strconv.NumError{Func: "ParseCents", Num: s, Err: strconv.ErrSyntax}
	}
	for n, x := range f {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return c, err
		}
		c[n/3][n%3] = v
	}
	return c, nil
}

// centsOf is an amount with two decimals as integer cents.
func centsOf(d decimal.Decimal) int64 { return d.Shift(2).Round(0).IntPart() }

// Day is an asset's blocks of one delivery day (Europe/Berlin), rendered:
// JSON holds the block objects of the envelope, comma-separated, each
// with Mark where its status and final_at go (AppendDay); Totals are
// their sums.
type Day struct {
	OrganizationID, AssetID string
	Day                     calendar.Day
	Blocks                  int
	Totals                  Cents
	JSON                    []byte
}

// RenderDays renders blocks ordered by organisation, asset and start into
// one Day per organisation, asset and delivery day, in that order.
func RenderDays(blocks []Block) []Day {
	var out []Day
	for _, b := range blocks {
		d := calendar.DayOf(b.Start)
		n := len(out)
		if n == 0 || out[n-1].AssetID != b.AssetID || out[n-1].OrganizationID != b.OrganizationID || out[n-1].Day != d {
			out = append(out, Day{OrganizationID: b.OrganizationID, AssetID: b.AssetID, Day: d,
				JSON: make([]byte, 0, 400*int(d.Span().Duration()/calendar.PeriodLength))})
			n++
		} else {
			out[n-1].JSON = append(out[n-1].JSON, ',')
		}
		day := &out[n-1]
		day.Blocks++
		day.JSON = appendBlock(day.JSON, b, []byte{Mark}, &day.Totals)
	}
	return out
}

// appendBlock appends the block's object with mid (its status and final_at
// members, or Mark) after processed_at, the members in the order of the
// endpoint's schema, and adds its figures to sum.
func appendBlock(dst []byte, b Block, mid []byte, sum *Cents) []byte {
	dst = append(dst, `{"block_start":"`...)
	dst = b.Start.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","block_end":"`...)
	dst = b.Start.Add(calendar.PeriodLength).AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","delivery_day":"`...)
	dst = appendDate(dst, calendar.DayOf(b.Start))
	dst = append(dst, `","processed_at":"`...)
	dst = b.ProcessedAt.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, '"')
	dst = append(dst, mid...)
	for i, k := range ProductKeys {
		f, ok := b.Products[k]
		if !ok {
			continue
		}
		c := [3]int64{centsOf(f.Revenue), centsOf(f.BackupFee), centsOf(f.Penalty)}
		sum[i][0] += c[0]
		sum[i][1] += c[1]
		sum[i][2] += c[2]
		dst = append(dst, ',', '"')
		dst = append(dst, k...)
		dst = append(dst, `":`...)
		dst = appendProduct(dst, k, c)
	}
	return append(dst, '}')
}

// appendProduct appends a product object: revenue_total, backup_fee_total
// (not for the backup products) and penalty_total.
func appendProduct(dst []byte, k ProductKey, c [3]int64) []byte {
	dst = append(dst, `{"revenue_total":"`...)
	dst = appendCents(dst, c[0])
	if !k.Backup() {
		dst = append(dst, `","backup_fee_total":"`...)
		dst = appendCents(dst, c[1])
	}
	dst = append(dst, `","penalty_total":"`...)
	dst = appendCents(dst, c[2])
	return append(dst, `"}`...)
}

// appendCents appends n cents as a decimal with two decimals, as
// decimal.StringFixed(2) writes it.
func appendCents(dst []byte, n int64) []byte {
	u := uint64(n)
	if n < 0 {
		dst = append(dst, '-')
		u = uint64(-n)
	}
	dst = strconv.AppendUint(dst, u/100, 10)
	return append(dst, '.', byte('0'+u%100/10), byte('0'+u%10))
}

// appendDate appends d as YYYY-MM-DD.
func appendDate(dst []byte, d calendar.Day) []byte {
	return append(dst, byte('0'+d.Year/1000%10), byte('0'+d.Year/100%10), byte('0'+d.Year/10%10), byte('0'+d.Year%10), '-',
		byte('0'+int(d.Month)/10), byte('0'+int(d.Month)%10), '-', byte('0'+d.Day/10), byte('0'+d.Day%10))
}

// appendString appends s as encoding/json writes it with HTML escaping
// off, as the server's JSON format does.
func appendString(dst []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
}
