package nomination

// EICLength is the length of an Energy Identification Code.
const EICLength = 16

// eicValue is the value of an EIC character: digits 0-9, letters A-Z
// 10-35, '-' 36; -1 for any other.
func eicValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	case c == '-':
		return 36
	}
	return -1
}

// EICCheck is the check character of the first 15 characters of an EIC
// (ENTSO-E's algorithm: weights 16 down to 2, 36 - (sum - 1) mod 37), and
// false when they hold a character an EIC cannot.
func EICCheck(code15 string) (byte, bool) {
	if len(code15) != EICLength-1 {
		return 0, false
	}
	sum := 0
	for i := range EICLength - 1 {
		v := eicValue(code15[i])
		if v < 0 {
			return 0, false
		}
		sum += v * (EICLength - i)
	}
	v := 36 - (sum-1)%37
	switch {
	case v < 10:
		return byte('0' + v), true
	case v < 36:
		return byte('A' + v - 10), true
	}
	// 36 would be '-', which ENTSO-E excludes as a check character:
	// such a code cannot be completed.
	return 0, false
}

// ValidEIC reports whether s is an EIC: 16 characters of 0-9, A-Z and
// '-' whose last is the check character of the others.
func ValidEIC(s string) bool {
	if len(s) != EICLength {
		return false
	}
	c, ok := EICCheck(s[:EICLength-1])
	return ok && c == s[EICLength-1]
}
