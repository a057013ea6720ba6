package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters for passwords and client secrets: the OWASP minimum
// (19 MiB, 2 passes), so that a stolen table is slow to attack while a token
// request stays in the tens of milliseconds.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// HashSecret returns the argon2id hash of a password or client secret in the
// PHC string format. Request paths hash through a Hasher, which bounds how
// many run at once.
func HashSecret(secret string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(secret), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// VerifySecret reports whether secret matches the PHC-encoded hash, comparing
// in constant time. Request paths verify through a Hasher.
func VerifySecret(secret, encoded string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	var memory uint32
	var passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil {
		return false
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil {
		return false
	}
	// argon2 panics on zero threads or key length, and a stored hash with
	// absurd costs must not stall the server: such a hash matches nothing.
	if threads < 1 || passes < 1 || passes > 16 || memory < 8*uint32(threads) || memory > 1<<20 ||
		len(salt) < 8 || len(want) < 16 {
		return false
	}
	got := argon2.IDKey([]byte(secret), salt, passes, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is verified against when the claimed account does not exist, so
// that unknown and known accounts take the same time to reject.
var dummyHash, _ = HashSecret("atcp-timing-equaliser")

// RandomToken returns n random bytes, URL-safe base64 encoded.
func RandomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // the system's randomness source failing is not recoverable
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// LookupHash is the SHA-256 of a high-entropy token (authorization code,
// refresh token, set-password link), stored instead of the token itself.
// A fast hash is enough because such tokens cannot be guessed.
func LookupHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
