// Package s3 is the object store on an S3-compatible service (AWS S3,
// MinIO, Ceph, ...) through minio-go: presigned URLs are the service's own
// (signature version 4), so clients upload and download without passing
// through atcp. The bucket stays private.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"atcp/internal/clock"
	"atcp/internal/objstore"
)

// Config names the service and the bucket.
type Config struct {
	// Endpoint is the service's base URL: https://host[:port], or http://
	// for a service on a trusted network (tests, a local MinIO).
	Endpoint  string
	Bucket    string
	Region    string
	AccessKey string
	SecretKey string
	// PathStyle addresses the bucket as host/bucket rather than
	// bucket.host (MinIO and most self-hosted services need it).
	PathStyle bool
}

// Check reports a missing bucket or an endpoint that is not
// http(s)://host[:port]; it never quotes the endpoint.
func (cfg Config) Check() error {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
		u.User != nil || u.RawQuery != "" {
		return errors.New("s3-endpoint must be http(s)://host[:port]")
	}
	if cfg.Bucket == "" {
		return errors.New("s3-bucket must be set with object-store s3")
	}
	return nil
}

// Store keeps objects in one bucket.
type Store struct {
	client *minio.Client
	bucket string
	clock  clock.Clock // the security clock: the expiry reported
}

var _ objstore.Store = (*Store)(nil)

// New connects lazily: no request is made until the first operation.
// minio-go signs presigned URLs with the machine's clock, which is the
// security clock outside tests; clk only dates the expiry returned.
func New(cfg Config, clk clock.Clock) (*Store, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	u, _ := url.Parse(cfg.Endpoint)
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	c, err := minio.New(u.Host, &minio.Options{
		Creds: credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""), Secure: u.Scheme == "https",
		Region: cfg.Region, BucketLookup: lookup,
	})
	if err != nil {
		return nil, fmt.Errorf("objstore: %w", err)
	}
	return &Store{client: c, bucket: cfg.Bucket, clock: clk}, nil
}

// notFound maps the service's missing-object answers to errs.NotFound.
func notFound(key string, err error) error {
	switch minio.ToErrorResponse(err).Code {
	case "NoSuchKey", "NotFound":
		return objstore.NotFound(key)
	}
	if minio.ToErrorResponse(err).StatusCode == http.StatusNotFound {
		return objstore.NotFound(key)
	}
	return fmt.Errorf("objstore: %w", err)
}

func (s *Store) PresignPut(ctx context.Context, key, contentType string, size int64, ttl time.Duration) (objstore.Presigned, error) {
	if err := objstore.CheckKey(key); err != nil {
		return objstore.Presigned{}, err
	}
	// The content type is a signed header: the client must send it as
	// stated. The size cannot be bound by a presigned PUT; the server
	// checks it when the upload is finalised.
	h := http.Header{"Content-Type": {contentType}}
	expires := s.clock.Now().Add(ttl)
	u, err := s.client.PresignHeader(ctx, http.MethodPut, s.bucket, key, ttl, nil, h)
	if err != nil {
		return objstore.Presigned{}, fmt.Errorf("objstore: presign: %w", err)
	}
	return objstore.Presigned{URL: u.String(), Method: http.MethodPut, Headers: h, Expires: expires}, nil
}

func (s *Store) PresignGet(ctx context.Context, key, filename string, ttl time.Duration) (objstore.Presigned, error) {
	if err := objstore.CheckKey(key); err != nil {
		return objstore.Presigned{}, err
	}
	params := url.Values{
		"response-content-disposition": {objstore.ContentDisposition(filename)},
		"response-content-type":        {"application/octet-stream"},
	}
	expires := s.clock.Now().Add(ttl)
	u, err := s.client.PresignedGetObject(ctx, s.bucket, key, ttl, params)
	if err != nil {
		return objstore.Presigned{}, fmt.Errorf("objstore: presign: %w", err)
	}
	return objstore.Presigned{URL: u.String(), Method: http.MethodGet, Headers: http.Header{}, Expires: expires}, nil
}

func (s *Store) Stat(ctx context.Context, key string) (objstore.Info, error) {
	if err := objstore.CheckKey(key); err != nil {
		return objstore.Info{}, err
	}
	info, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return objstore.Info{}, notFound(key, err)
	}
	return objstore.Info{Size: info.Size}, nil
}

func (s *Store) Open(ctx context.Context, key string, n int64) (io.ReadCloser, error) {
	if err := objstore.CheckKey(key); err != nil {
		return nil, err
	}
	opts := minio.GetObjectOptions{}
	if n > 0 {
		if err := opts.SetRange(0, n-1); err != nil {
			return nil, fmt.Errorf("objstore: %w", err)
		}
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, opts)
	if err != nil {
		return nil, notFound(key, err)
	}
	// GetObject is lazy: Stat makes the request, so that a missing object
	// is reported here rather than on the first Read.
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		return nil, notFound(key, err)
	}
	if n == 0 {
		obj.Close()
		return io.NopCloser(eofReader{}), nil
	}
	if n > 0 {
		// A range past a short object's end answers the whole object;
		// the limit makes "the first n bytes" hold on every service.
		return struct {
			io.Reader
			io.Closer
		}{io.LimitReader(obj, n), obj}, nil
	}
	return obj, nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := objstore.CheckKey(key); err != nil {
		return err
	}
	// Only io.Reader is passed on: minio-go reads a ReaderAt by offset
	// and would leave r unread, and the check for extra bytes below needs
	// r consumed up to size.
	info, err := s.client.PutObject(ctx, s.bucket, key, struct{ io.Reader }{io.LimitReader(r, size)}, size, minio.PutObjectOptions{ContentType: contentType})
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return objstore.ErrSizeMismatch
		}
		return fmt.Errorf("objstore: put: %w", err)
	}
	// The client sends exactly size bytes; a reader holding more stored a
	// cut object, which must not stay.
	var extra [1]byte
	if n, _ := io.ReadFull(r, extra[:]); n > 0 || info.Size != size {
		if err := s.Delete(ctx, key); err != nil {
			return err
		}
		return objstore.ErrSizeMismatch
	}
	return nil
}

func (s *Store) Delete(ctx context.Context, key string) error {
	if err := objstore.CheckKey(key); err != nil {
		return err
	}
	// S3 answers a delete of a missing key with success already; the
	// check covers services that answer 404.
	err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{})
	if err != nil && minio.ToErrorResponse(err).StatusCode != http.StatusNotFound {
		return fmt.Errorf("objstore: delete: %w", err)
	}
	return nil
}
