package app_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atcp/internal/testkit"
)

// The load benchmarks compare, in one run, an authenticated
// GET /v1/assets/{asset_id} through the whole server on each store with a
// bare net/http handler returning the same bytes. Run them with
//
//	go test ./internal/app -run '^$' -bench Load -benchtime 20000x
//
// (ATCP_TEST_DATABASE_URL adds PostgreSQL). Each reports req/s (closed loop,
// 32 connections) and, from a separate open-loop run at 1,000 requests per
// second, p50/p99 latency in ms. b.N is the number of requests in both
// (-benchtime 20000x is 20 s of open-loop load).

const loadConcurrency = 32

func loadClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}
}

func fire(b *testing.B, client *http.Client, target, token string) time.Duration {
	req, _ := http.NewRequest(http.MethodGet, target, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		b.Error(err)
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Errorf("status %d", resp.StatusCode)
	}
	return time.Since(start)
}

// closedLoop sends b.N requests from loadConcurrency workers and reports
// the throughput.
func closedLoop(b *testing.B, client *http.Client, target, token string) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range loadConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				fire(b, client, target, token)
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

// openLoop sends b.N requests at a fixed rate and reports latency
// percentiles: a request is started on schedule whether or not earlier
// ones have finished, so queueing shows up in the figures.
func openLoop(b *testing.B, client *http.Client, target, token string, perSecond int) {
	b.ResetTimer()
	lat := paced(perSecond, b.N, func(int) time.Duration { return fire(b, client, target, token) })
	ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.50), "p50-ms@1krps")
	b.ReportMetric(ms(0.99), "p99-ms@1krps")
}

func token(b testing.TB, base string) string {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {bootstrapClient}, "client_secret": {bootstrapSecret}}
	resp, err := http.Post(base+"/oauth2/token", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	const key = `"access_token":"`
	i := strings.Index(string(body), key)
	if resp.StatusCode != 200 || i < 0 {
		b.Fatalf("token: %d %s", resp.StatusCode, body)
	}
	rest := string(body)[i+len(key):]
	return rest[:strings.IndexByte(rest, '"')]
}

func benchmarkAuthenticatedRead(b *testing.B, databaseURL string) {
	srv := startApp(b, databaseURL)
	tok := token(b, srv)
	client := loadClient()
	target := srv + "/v1/assets/demo-bess"
	fire(b, client, target, tok)
	b.Run("closed-loop", func(b *testing.B) { closedLoop(b, client, target, tok) })
	b.Run("open-loop", func(b *testing.B) {
		openLoop(b, client, target, tok, 1000)
	})
}

func BenchmarkLoadBareHandler(b *testing.B) {
	// Serve exactly the bytes the API answers for the demo asset.
	api := startApp(b, "sqlite::memory:")
	tok := token(b, api)
	req, _ := http.NewRequest(http.MethodGet, api+"/v1/assets/demo-bess", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer bare.Close()
	client := loadClient()
	b.Run("closed-loop", func(b *testing.B) { closedLoop(b, client, bare.URL, "") })
	b.Run("open-loop", func(b *testing.B) {
		openLoop(b, client, bare.URL, "", 1000)
	})
}

func BenchmarkLoadGetAssetSQLite(b *testing.B) {
	benchmarkAuthenticatedRead(b, "sqlite://"+filepath.Join(b.TempDir(), "atcp.db"))
}

func BenchmarkLoadGetAssetPostgres(b *testing.B) {
	if testkit.PostgresURL() == "" {
		b.Skip("ATCP_TEST_DATABASE_URL not set")
	}
	benchmarkAuthenticatedRead(b, freshPostgresSchema(b))
}

// BenchmarkLoadIssueToken measures the token endpoint, whose cost is the
// deliberate argon2id verification of the client secret.
func BenchmarkLoadIssueToken(b *testing.B) {
	srv := startApp(b, "sqlite::memory:")
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				token(b, srv)
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tokens/s")
}
