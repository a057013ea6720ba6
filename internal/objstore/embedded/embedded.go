// Package embedded is the object store of a single-instance setup: objects
// are files under the data directory, and atcp serves the presigned URLs
// itself at PUT and GET /objects/{key} (not API operations; not in
// /openapi.json). A URL is signed with HMAC-SHA256 under a 256-bit key kept
// next to the objects (objstore.key), so every instance that can see the
// objects (the same data directory) also verifies their URLs; instances
// with separate data directories need the s3 backend. RotateKey replaces
// the key without a restart; the previous key verifies for a while.
package embedded

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"atcp/internal/clock"
	"atcp/internal/httpapi"
	"atcp/internal/objstore"
)

// RoutePrefix is where the presigned URLs point, under the base URL.
const RoutePrefix = "/objects/"

// KeyFile is the name of the signing keys' file in the data directory.
const KeyFile = "objstore.key"

// Store keeps objects in a directory; its Handler serves the presigned URLs.
type Store struct {
	root    *os.Root
	keys    *keyring
	baseURL string
	clock   clock.Clock // the security clock: URL expiry
}

var _ objstore.Store = (*Store)(nil)

// Option configures Open.
type Option func(*options)

type options struct{ log *slog.Logger }

// WithKeyLog sets the logger of the signing keys' reloads and of a key
// file that cannot be reloaded (discarded by default). Key material is
// never logged.
func WithKeyLog(l *slog.Logger) Option {
	return func(o *options) { o.log = l }
}

// Open opens (creating them if needed) the objects directory
// <dataDir>/objects and the signing keys <dataDir>/objstore.key (one key
// written on first use; RotateKey adds the next). A damaged key file is an
// error naming the file and the line. baseURL is the server's public URL;
// clk is the security clock.
func Open(dataDir, baseURL string, clk clock.Clock, opts ...Option) (*Store, error) {
	o := options{log: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	dir := filepath.Join(dataDir, "objects")
	if err := os.MkdirAll(filepath.Join(dir, tmpDir), 0o700); err != nil {
		return nil, fmt.Errorf("objstore: %w", err)
	}
	keys, err := openKeyring(filepath.Join(dataDir, KeyFile), clk, o.log)
	if err != nil {
		return nil, err
	}
	// os.Root refuses any path leaving the directory, even through a
	// symbolic link: a second guard behind objstore.ValidKey.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("objstore: %w", err)
	}
	return &Store{root: root, keys: keys, baseURL: baseURL, clock: clk}, nil
}

// Close releases the directory.
func (s *Store) Close() error { return s.root.Close() }

// tmpDir holds uploads in progress; its name is not a valid key segment
// start for generated keys, and a rename from it is atomic (same directory
// tree, same file system).
const tmpDir = ".tmp"

// signature is the HMAC over everything a URL is bound to; fields not used
// by the method are empty. The newlines keep the fields apart: a key holds
// none, and the other fields are numbers, a media type and a filename that
// the signer escapes.
func signature(sigKey []byte, method, key string, exp int64, contentType string, size int64, filename string) []byte {
	m := hmac.New(sha256.New, sigKey)
	fmt.Fprintf(m, "atcp-objstore-v1\n%s\n%s\n%d\n%q\n%d\n%q", method, key, exp, contentType, size, filename)
	return m.Sum(nil)
}

func (s *Store) presign(method, key string, ttl time.Duration, q url.Values, contentType string, size int64, filename string) objstore.Presigned {
	expires := s.clock.Now().Add(ttl).Truncate(time.Second)
	exp := expires.Unix()
	q.Set("exp", strconv.FormatInt(exp, 10))
	sigKey := s.keys.current()[0]
	q.Set("sig", base64.RawURLEncoding.EncodeToString(signature(sigKey, method, key, exp, contentType, size, filename)))
	return objstore.Presigned{
		URL: s.baseURL + RoutePrefix + key + "?" + q.Encode(), Method: method, Headers: http.Header{}, Expires: expires,
	}
}

func (s *Store) PresignPut(_ context.Context, key, contentType string, size int64, ttl time.Duration) (objstore.Presigned, error) {
	if err := objstore.CheckKey(key); err != nil {
		return objstore.Presigned{}, err
	}
	q := url.Values{"size": {strconv.FormatInt(size, 10)}}
	p := s.presign(http.MethodPut, key, ttl, q, contentType, size, "")
	p.Headers.Set("Content-Type", contentType)
	return p, nil
}

func (s *Store) PresignGet(_ context.Context, key, filename string, ttl time.Duration) (objstore.Presigned, error) {
	if err := objstore.CheckKey(key); err != nil {
		return objstore.Presigned{}, err
	}
	q := url.Values{}
	if filename != "" {
		q.Set("filename", filename)
	}
	return s.presign(http.MethodGet, key, ttl, q, "", 0, filename), nil
}

func (s *Store) Stat(_ context.Context, key string) (objstore.Info, error) {
	if err := objstore.CheckKey(key); err != nil {
		return objstore.Info{}, err
	}
	fi, err := s.root.Stat(filepath.FromSlash(key))
	if errors.Is(err, fs.ErrNotExist) || err == nil && !fi.Mode().IsRegular() {
		return objstore.Info{}, objstore.NotFound(key)
	}
	if err != nil {
		return objstore.Info{}, fmt.Errorf("objstore: stat: %w", err)
	}
	return objstore.Info{Size: fi.Size()}, nil
}

func (s *Store) Open(_ context.Context, key string, n int64) (io.ReadCloser, error) {
	f, err := s.open(key)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return f, nil
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(f, n), f}, nil
}

func (s *Store) open(key string) (*os.File, error) {
	if err := objstore.CheckKey(key); err != nil {
		return nil, err
	}
	f, err := s.root.Open(filepath.FromSlash(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, objstore.NotFound(key)
	}
	if err != nil {
		return nil, fmt.Errorf("objstore: open: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, objstore.NotFound(key)
	}
	return f, nil
}

func (s *Store) Put(_ context.Context, key string, r io.Reader, size int64, _ string) error {
	if err := objstore.CheckKey(key); err != nil {
		return err
	}
	_, err := s.write(key, r, size, true)
	if errors.Is(err, errTooLarge) {
		return objstore.ErrSizeMismatch
	}
	return err
}

// errTooLarge: an upload went past its limit; nothing was stored.
var errTooLarge = errors.New("objstore: the upload exceeds its size")

// write streams at most limit bytes of r to a temporary file, syncs it and
// renames it to key; more than limit bytes is errTooLarge, fewer with
// exact objstore.ErrSizeMismatch, and either stores nothing. It returns the
// number of bytes stored.
func (s *Store) write(key string, r io.Reader, limit int64, exact bool) (n int64, err error) {
	var name [16]byte
	rand.Read(name[:])
	tmp := path.Join(tmpDir, hex.EncodeToString(name[:]))
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fmt.Errorf("objstore: create a temporary file: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			s.root.Remove(tmp)
		}
	}()
	if n, err = io.Copy(f, io.LimitReader(r, limit+1)); err != nil {
		return n, fmt.Errorf("objstore: write: %w", err)
	}
	if n > limit {
		return n, errTooLarge
	}
	if exact && n != limit {
		return n, objstore.ErrSizeMismatch
	}
	if err = f.Sync(); err != nil {
		return n, fmt.Errorf("objstore: sync: %w", err)
	}
	if err = f.Close(); err != nil {
		return n, fmt.Errorf("objstore: close: %w", err)
	}
	if dir := path.Dir(key); dir != "." {
		if err = s.root.MkdirAll(filepath.FromSlash(dir), 0o700); err != nil {
			return n, fmt.Errorf("objstore: create the directory: %w", err)
		}
	}
	if err = s.root.Rename(tmp, filepath.FromSlash(key)); err != nil {
		return n, fmt.Errorf("objstore: rename: %w", err)
	}
	return n, nil
}

func (s *Store) Delete(_ context.Context, key string) error {
	if err := objstore.CheckKey(key); err != nil {
		return err
	}
	if err := s.root.Remove(filepath.FromSlash(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("objstore: delete: %w", err)
	}
	return nil
}

// Handler serves the presigned URLs at PUT and GET RoutePrefix{key}.
func (s *Store) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("PUT "+RoutePrefix+"{key...}", s.servePut)
	mux.HandleFunc("GET "+RoutePrefix+"{key...}", s.serveGet)
	return mux
}

// verify checks the URL of r against its signature and expiry.
func (s *Store) verify(r *http.Request, key, contentType string, size int64, filename string) bool {
	q := r.URL.Query()
	exp, err := strconv.ParseInt(q.Get("exp"), 10, 64)
	if err != nil || !objstore.ValidKey(key) {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(q.Get("sig"))
	if err != nil {
		return false
	}
	// Constant time: the comparison must not tell a forger how many bytes
	// of a guessed signature are right. Every key is tried, the previous
	// one too: its URLs verify until they expire.
	valid := false
	for _, k := range s.keys.current() {
		if hmac.Equal(sig, signature(k, r.Method, key, exp, contentType, size, filename)) {
			valid = true
		}
	}
	return valid && s.clock.Now().Before(time.Unix(exp, 0))
}

func refuse(w http.ResponseWriter, r *http.Request) {
	p := httpapi.NewProblem(http.StatusForbidden, "the URL is not valid for this request or has expired")
	p.Code = objstore.CodeURLRefused
	httpapi.WriteProblem(w, r, p)
}

func (s *Store) servePut(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	size, err := strconv.ParseInt(r.URL.Query().Get("size"), 10, 64)
	if err != nil || size < 0 || !s.verify(r, key, r.Header.Get("Content-Type"), size, "") {
		refuse(w, r)
		return
	}
	if r.ContentLength > size {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusRequestEntityTooLarge,
			fmt.Sprintf("the upload may hold at most %d bytes", size)))
		return
	}
	extendDeadlines(w, size)
	if _, err := s.write(key, r.Body, size, false); errors.Is(err, errTooLarge) {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusRequestEntityTooLarge,
			fmt.Sprintf("the upload may hold at most %d bytes", size)))
		return
	} else if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// MinUploadRate is the slowest upload (bytes a second) the PUT route
// waits for: 50 MB at 32 KiB/s take about 25 minutes.
const MinUploadRate = 32 << 10

// extendDeadlines gives an upload of size bytes the time it needs on a slow
// link: the server's read and write timeouts (30 and 60 seconds, set for
// API requests) run from the start of each request and would cut a large
// upload off. The deadlines are network time, the machine's clock. A
// connection that cannot move its deadlines keeps the server's.
func extendDeadlines(w http.ResponseWriter, size int64) {
	rc := http.NewResponseController(w)
	d := 30*time.Second + time.Duration(size/MinUploadRate)*time.Second
	rc.SetReadDeadline(time.Now().Add(d))
	rc.SetWriteDeadline(time.Now().Add(d + time.Minute))
}

func (s *Store) serveGet(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	filename := r.URL.Query().Get("filename")
	if !s.verify(r, key, "", 0, filename) {
		refuse(w, r)
		return
	}
	f, err := s.open(key)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	h := w.Header()
	// The bytes are whatever a client uploaded: never let a browser run
	// or render them as a page of this origin.
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", objstore.ContentDisposition(filename))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("Cache-Control", "private, no-store")
	h.Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
	io.Copy(w, f)
}
