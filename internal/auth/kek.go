package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// A private signing key at rest is either PKCS #8 PEM or, with a
// key-encryption key configured, this envelope:
//
//	atcp-kek-v1:<kek id>:<base64(nonce || AES-256-GCM ciphertext of the PEM || tag)>
//
// The kek id names the key-encryption key that sealed it (so a wrong key is
// told apart from a damaged envelope, and keys under a previous
// key-encryption key are found and re-sealed), and the additional data
// binds the envelope to its header and to the signing key's id: an envelope
// copied onto another key's row does not open.
const sealedPrefix = "atcp-kek-v1:"

// KeyEncryptionKeySetting names the setting the key-encryption keys come
// from, for error messages that tell an operator what to fix.
const KeyEncryptionKeySetting = "ATCP_KEY_ENCRYPTION_KEY"

// keyEncryptionKey is one 32-byte AES-256-GCM key that seals signing keys.
type keyEncryptionKey struct {
	id   string
	aead cipher.AEAD
}

func newKeyEncryptionKey(raw []byte) (keyEncryptionKey, error) {
	if len(raw) != 32 {
		return keyEncryptionKey{}, errors.New("a key-encryption key must be 32 bytes")
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return keyEncryptionKey{}, err
	}
	// A random 96-bit nonce per seal: a deployment seals a handful of keys,
	// far below GCM's 2^32 messages per key.
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return keyEncryptionKey{}, err
	}
	return keyEncryptionKey{id: kekFingerprint(raw), aead: aead}, nil
}

// kekFingerprint is the public id of a key-encryption key: the first 8
// bytes of a domain-separated SHA-256, which reveals nothing of a random
// 32-byte key.
func kekFingerprint(raw []byte) string {
	h := sha256.New()
	h.Write([]byte("atcp key-encryption key id\x00"))
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func (k keyEncryptionKey) seal(keyID, plain string) string {
	header := sealedPrefix + k.id + ":"
	ct := k.aead.Seal(nil, nil, []byte(plain), []byte(header+keyID))
	return header + base64.RawStdEncoding.EncodeToString(ct)
}

// sealedBy returns the id of the key-encryption key that sealed stored;
// sealed is false for a plain key.
func sealedBy(stored string) (kekID string, sealed bool) {
	rest, ok := strings.CutPrefix(stored, sealedPrefix)
	if !ok {
		return "", false
	}
	id, _, _ := strings.Cut(rest, ":")
	return id, true
}

// openPrivateKey returns the PEM of the stored private key of keyID,
// opening the envelope with the key-encryption key that sealed it. The
// errors name the setting and the key ids, never key material.
func openPrivateKey(keks []keyEncryptionKey, keyID, stored string) (string, error) {
	kekID, sealed := sealedBy(stored)
	if !sealed {
		if !strings.HasPrefix(stored, "-----BEGIN") {
			return "", fmt.Errorf("signing key %s: stored in an unknown format", keyID)
		}
		return stored, nil
	}
	if len(keks) == 0 {
		return "", fmt.Errorf("signing key %s is encrypted at rest (key-encryption key %s): set %s to that key",
			keyID, kekID, KeyEncryptionKeySetting)
	}
	var kek *keyEncryptionKey
	for i := range keks {
		if keks[i].id == kekID {
			kek = &keks[i]
		}
	}
	if kek == nil {
		return "", fmt.Errorf("signing key %s is encrypted with key-encryption key %s, which %s does not hold (it holds %s)",
			keyID, kekID, KeyEncryptionKeySetting, kekIDs(keks))
	}
	header := sealedPrefix + kekID + ":"
	ct, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(stored, header))
	if err != nil {
		return "", fmt.Errorf("signing key %s: damaged envelope", keyID)
	}
	plain, err := kek.aead.Open(nil, nil, ct, []byte(header+keyID))
	if err != nil {
		return "", fmt.Errorf("signing key %s does not decrypt with key-encryption key %s: the stored key is damaged or was tampered with", keyID, kekID)
	}
	return string(plain), nil
}

func kekIDs(keks []keyEncryptionKey) string {
	ids := make([]string, len(keks))
	for i, k := range keks {
		ids[i] = k.id
	}
	return strings.Join(ids, ", ")
}
