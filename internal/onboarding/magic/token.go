package magic

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"

	"atcp/internal/errs"
)

// The prefixes of link tokens (in the e-mail) and refresh tokens (of a
// session); they let secret scanners recognise a leaked one.
const (
	LinkTokenPrefix    = "aml_"
	RefreshTokenPrefix = "amr_"
)

// tokenChars is the length of 32 random bytes in unpadded base64url.
const tokenChars = 43

// TokenHash is the SHA-256 of a raw token: what the store keeps and looks
// up by. 256 random bits need no slow hash (docs/onboarding.md section 7).
type TokenHash [sha256.Size]byte

// Equal compares in constant time.
func (h TokenHash) Equal(other []byte) bool { return subtle.ConstantTimeCompare(h[:], other) == 1 }

// newToken returns a raw token with prefix and its hash.
func newToken(prefix string) (string, TokenHash) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // the system's randomness source failing is not recoverable
	}
	raw := prefix + base64.RawURLEncoding.EncodeToString(b[:])
	return raw, sha256.Sum256([]byte(raw))
}

// parseToken returns the hash of raw when it has the form prefix + 43
// base64url characters encoding 32 bytes.
func parseToken(prefix, raw string) (TokenHash, bool) {
	body, ok := strings.CutPrefix(raw, prefix)
	if !ok || len(body) != tokenChars {
		return TokenHash{}, false
	}
	if b, err := base64.RawURLEncoding.Strict().DecodeString(body); err != nil || len(b) != 32 {
		return TokenHash{}, false
	}
	return sha256.Sum256([]byte(raw)), true
}

// NewLinkToken returns a new raw link token and its hash.
func NewLinkToken() (string, TokenHash) { return newToken(LinkTokenPrefix) }

// ParseLinkToken checks the form of a presented link token, without any
// lookup: 400 malformed_token when it is not one.
func ParseLinkToken(raw string) (TokenHash, error) {
	h, ok := parseToken(LinkTokenPrefix, raw)
	if !ok {
		return TokenHash{}, errs.E(errs.Malformed, CodeMalformedToken,
			"the link token is malformed: want %s followed by %d base64url characters", LinkTokenPrefix, tokenChars)
	}
	return h, nil
}
