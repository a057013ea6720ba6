package bids

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Price is an amount of EUR in cents: exact, with the two decimals the
// markets allow. It is written to JSON as a number with at most two
// decimals (12.5, 15000, -0.01).
type Price int64

// maxPriceDigits bounds the integer part accepted before the bounds check,
// so no input can overflow int64 cents.
const maxPriceDigits = 15

// ParsePrice reads a decimal amount such as "12", "12.5", "-0.25" or
// "1.5e2" (the JSON number grammar), with at most two decimals.
func ParsePrice(s string) (Price, error) {
	if s == "" {
		return 0, fmt.Errorf("not a number")
	}
	neg := false
	i := 0
	if s[0] == '-' {
		neg, i = true, 1
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[intStart:i]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = s[fs:i]
		if frac == "" {
			return 0, fmt.Errorf("%q is not a decimal number", s)
		}
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		es := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ds := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if ds == i || i-ds > 4 {
			return 0, fmt.Errorf("%q is not a decimal number", s)
		}
		exp, _ = strconv.Atoi(s[es:i])
	}
	if i != len(s) {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	// digits with the decimal point after point digits.
	digits := strings.TrimLeft(intPart+frac, "0")
	point := len(intPart) + exp - (len(intPart+frac) - len(digits))
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return 0, nil
	}
	if len(digits)-point > 2 {
		return 0, fmt.Errorf("%q has more than 2 decimals", s)
	}
	if point > maxPriceDigits {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	cents := digits + strings.Repeat("0", point+2-len(digits))
	v, err := strconv.ParseInt(cents, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	if neg {
		v = -v
	}
	return Price(v), nil
}

// EUR returns a price of whole euros.
func EUR(euros int64) Price { return Price(euros * 100) }

// Payment is price x mw x units (the hours of an aFRR block, 1 for FCR's
// price per MW and block) to the cent, half away from zero. It computes
// in decimal: the float product of an awarded power such as 1.005 MW and
// a price in cents can land a hair below a half cent and round the wrong
// way. mw is read as its shortest decimal form.
func Payment(price Price, mw float64, units int64) Price {
	v := decimal.New(int64(price), 0).Mul(decimal.NewFromFloat(mw)).Mul(decimal.New(units, 0))
	return Price(v.Round(0).IntPart())
}

// String writes the price with at most two decimals.
func (p Price) String() string {
	v := int64(p)
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	whole, cents := v/100, v%100
	switch {
	case cents == 0:
		return fmt.Sprintf("%s%d", sign, whole)
	case cents%10 == 0:
		return fmt.Sprintf("%s%d.%d", sign, whole, cents/10)
	}
	return fmt.Sprintf("%s%d.%02d", sign, whole, cents)
}

// MarshalJSON writes the price as a JSON number.
func (p Price) MarshalJSON() ([]byte, error) { return []byte(p.String()), nil }

// PriceInput is a price field of a request: a JSON number or a string
// holding one. Raw keeps what was sent, for error bodies.
type PriceInput struct {
	Raw json.RawMessage
}

// UnmarshalJSON keeps the raw value; Parse checks it.
func (p *PriceInput) UnmarshalJSON(b []byte) error {
	p.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// Given reports whether a non-null value was sent.
func (p PriceInput) Given() bool { return len(p.Raw) > 0 && !bytes.Equal(p.Raw, []byte("null")) }

// Sent is the value as sent, for error bodies.
func (p PriceInput) Sent() any {
	var v any
	if json.Unmarshal(p.Raw, &v) != nil {
		return string(p.Raw)
	}
	return v
}

// Parse reads the price: a number, or a string holding one.
func (p PriceInput) Parse() (Price, error) {
	raw := bytes.TrimSpace(p.Raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("not a number or a string holding one")
		}
		return ParsePrice(s)
	}
	if len(raw) == 0 || raw[0] == '{' || raw[0] == '[' || raw[0] == 't' || raw[0] == 'f' || raw[0] == 'n' {
		return 0, fmt.Errorf("must be a number or a string holding one")
	}
	return ParsePrice(string(raw))
}

// PriceBounds are the inclusive bounds of a market's price.
type PriceBounds struct {
	Min, Max Price
}

// Check parses in and checks it against the bounds. outOfRange tells
// whether a failure is a bound (PRICE_OUT_OF_RANGE) rather than the form.
func (b PriceBounds) Check(in PriceInput) (p Price, outOfRange bool, err error) {
	p, err = in.Parse()
	if err != nil {
		return 0, false, err
	}
	if p < b.Min || p > b.Max {
		return 0, true, fmt.Errorf("must be between %s and %s", b.Min, b.Max)
	}
	return p, false, nil
}
