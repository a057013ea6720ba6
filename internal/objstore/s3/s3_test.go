package s3_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"atcp/internal/clock"
	"atcp/internal/objstore/objstoretest"
	"atcp/internal/objstore/s3"
)

// TestS3 runs the shared suite against gofakes3 in process: minio-go
// speaks the real protocol to it, presigned URLs included.
func TestS3(t *testing.T) {
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	if err := backend.CreateBucket("atcp"); err != nil {
		t.Fatal(err)
	}
	s, err := s3.New(s3.Config{Endpoint: srv.URL, Bucket: "atcp", Region: "eu-central-1", AccessKey: "test", SecretKey: "test-secret",
		PathStyle: true}, clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	objstoretest.Run(t, s, http.DefaultClient, objstoretest.Options{})
}

func TestNewRefusesABadEndpoint(t *testing.T) {
	for _, e := range []string{"", "ftp://x", "http://", "http://host/path", "host:9000"} {
		if _, err := s3.New(s3.Config{Endpoint: e, Bucket: "b"}, clock.Real{}); err == nil {
			t.Errorf("endpoint %q accepted", e)
		}
	}
	if _, err := s3.New(s3.Config{Endpoint: "http://127.0.0.1:9000"}, clock.Real{}); err == nil {
		t.Error("no bucket accepted")
	}
}
