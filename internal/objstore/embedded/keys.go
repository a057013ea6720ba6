package embedded

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"atcp/internal/clock"
)

// The key file holds one 256-bit key in hex per line: the first signs the
// URLs, every one verifies them. RotateKey puts a new key first and keeps
// the current one second, so that the URLs in flight (at most 15 minutes)
// keep working; the key before is dropped and its URLs stop verifying.
const (
	// maxKeys is how many keys the file may hold: the signing key and the
	// previous one.
	maxKeys = 2
	// KeyCheckEvery is how often a store looks at the key file (one stat;
	// a read only when it changed): instances sharing the data directory
	// sign and verify with the same keys within that long of a rotation,
	// and no request reads the file.
	KeyCheckEvery = time.Second
	keyBytes      = 32
	// maxKeyFileSize is far above maxKeys lines: a larger file is not a key
	// file and is not read whole.
	maxKeyFileSize = 4 << 10
)

// keyring holds the keys of a key file and follows its changes.
type keyring struct {
	file  string
	clock clock.Clock // the security clock: when to look again
	log   *slog.Logger
	state atomic.Pointer[keyState]
	// mu lets one request at a time look at the file; problem (under mu)
	// is the last failure logged, so that a lasting one is logged once.
	mu      sync.Mutex
	problem string
}

// keyState is what a check found: the keys in force, the file they were
// read from (or the damaged file seen last) and when it looked.
type keyState struct {
	keys    [][]byte
	file    fs.FileInfo
	checked time.Time
}

// openKeyring reads the key file, creating it with one key on first use.
func openKeyring(file string, clk clock.Clock, log *slog.Logger) (*keyring, error) {
	keys, fi, err := readKeys(file)
	if errors.Is(err, fs.ErrNotExist) {
		if err = createKeyFile(file); err != nil {
			return nil, err
		}
		keys, fi, err = readKeys(file)
	}
	if err != nil {
		return nil, err
	}
	r := &keyring{file: file, clock: clk, log: log}
	r.state.Store(&keyState{keys: keys, file: fi, checked: clk.Now()})
	return r, nil
}

// current returns the keys in force, the signing key first. At most once
// per KeyCheckEvery one caller looks at the file; the others meanwhile go
// on with the keys they have rather than wait.
func (r *keyring) current() [][]byte {
	st := r.state.Load()
	if fresh(st, r.clock.Now()) || !r.mu.TryLock() {
		return st.keys
	}
	defer r.mu.Unlock()
	st = r.state.Load()
	now := r.clock.Now()
	if fresh(st, now) {
		return st.keys
	}
	next := r.check(st, now)
	r.state.Store(next)
	return next.keys
}

// fresh reports whether st was checked less than KeyCheckEvery before now
// (a clock that went back counts as stale).
func fresh(st *keyState, now time.Time) bool {
	since := now.Sub(st.checked)
	return since >= 0 && since < KeyCheckEvery
}

// check reloads the keys when the file changed. A file that cannot be
// read or holds no valid keys leaves the keys in force: the URLs keep
// working, and the log says why (never with key material).
func (r *keyring) check(st *keyState, now time.Time) *keyState {
	next := &keyState{keys: st.keys, file: st.file, checked: now}
	fi, err := os.Stat(r.file)
	if err == nil && unchanged(fi, st.file) {
		return next
	}
	if err == nil {
		var keys [][]byte
		keys, fi, err = readKeys(r.file)
		if err == nil {
			next.keys, next.file, r.problem = keys, fi, ""
			r.log.Info("object store URL signing keys reloaded", "file", r.file, "keys", len(keys))
			return next
		}
		if fi != nil {
			next.file = fi // not read again until it changes
		}
	}
	if msg := err.Error(); msg != r.problem {
		r.problem = msg
		r.log.Error("cannot reload the object store URL signing keys; the current ones stay in force", "error", err)
	}
	return next
}

// unchanged reports whether fi is the file seen before: the same file (a
// rotation renames a new one in place), modification time and size.
func unchanged(fi, before fs.FileInfo) bool {
	return before != nil && os.SameFile(fi, before) && fi.ModTime().Equal(before.ModTime()) && fi.Size() == before.Size()
}

// readKeys reads and parses the key file; fi describes the file read.
func readKeys(file string) (keys [][]byte, fi fs.FileInfo, err error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, fmt.Errorf("objstore: read the signing keys: %w", err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, nil, fmt.Errorf("objstore: read the signing keys: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, fi, fmt.Errorf("objstore: read the signing keys: %w", err)
	}
	if len(raw) > maxKeyFileSize {
		return nil, fi, fmt.Errorf("objstore: %s is larger than a key file (%d bytes at most)", file, maxKeyFileSize)
	}
	keys, err = parseKeys(file, raw)
	return keys, fi, err
}

// parseKeys reads one hex key per line, blank lines ignored. The errors
// name the file and the line, never what it holds: it is a secret.
func parseKeys(file string, raw []byte) ([][]byte, error) {
	var keys [][]byte
	for i, line := range bytes.Split(raw, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		key, ok := decodeKey(line)
		if !ok {
			return nil, fmt.Errorf("objstore: %s line %d is not a 256-bit key in hex (64 hex digits)", file, i+1)
		}
		keys = append(keys, key)
	}
	switch {
	case len(keys) == 0:
		return nil, fmt.Errorf("objstore: %s holds no key (delete it to have a new one created at start)", file)
	case len(keys) > maxKeys:
		return nil, fmt.Errorf("objstore: %s holds %d keys; at most %d (the signing key, then the previous one)", file, len(keys), maxKeys)
	}
	return keys, nil
}

func decodeKey(line []byte) ([]byte, bool) {
	if len(line) != hex.EncodedLen(keyBytes) {
		return nil, false
	}
	key := make([]byte, keyBytes)
	_, err := hex.Decode(key, line)
	return key, err == nil
}

func formatKeys(keys [][]byte) []byte {
	var b bytes.Buffer
	for _, k := range keys {
		b.WriteString(hex.EncodeToString(k))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func newKey() []byte {
	key := make([]byte, keyBytes)
	rand.Read(key)
	return key
}

// createKeyFile writes a first key, mode 0600, unless another instance
// created the file first.
func createKeyFile(file string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("objstore: create the signing key: %w", err)
	}
	_, err = f.Write(formatKeys([][]byte{newKey()}))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("objstore: write the signing key: %w", err)
	}
	return nil
}

// RotateKey puts a new signing key first in the key file of dataDir and
// keeps the current signing key second; any older key is dropped. The
// file is replaced at once (a synced temporary file renamed over it, mode
// 0600), so a store reading it sees either version whole. Running stores
// sign with the new key within KeyCheckEvery. Run one rotation at a time:
// two at once may lose one of the new keys.
func RotateKey(dataDir string) error {
	file := filepath.Join(dataDir, KeyFile)
	keys, _, err := readKeys(file)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("objstore: %s does not exist: the server creates it on its first start; is the data directory the servers' one?", file)
	}
	if err != nil {
		return err
	}
	return replaceKeyFile(file, append([][]byte{newKey()}, keys[:maxKeys-1]...))
}

// replaceKeyFile writes keys to a temporary file next to file, syncs it,
// renames it over file and syncs the directory, so that the rotation
// survives a crash.
func replaceKeyFile(file string, keys [][]byte) error {
	dir := filepath.Dir(file)
	f, err := os.CreateTemp(dir, KeyFile+".tmp-*") // mode 0600
	if err != nil {
		return fmt.Errorf("objstore: write the signing keys: %w", err)
	}
	_, err = f.Write(formatKeys(keys))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("objstore: write the signing keys: %w", err)
	}
	d, err := os.Open(dir)
	if err == nil {
		err = d.Sync()
		d.Close()
	}
	if err != nil {
		return fmt.Errorf("objstore: sync the data directory after writing the signing keys: %w", err)
	}
	return nil
}
