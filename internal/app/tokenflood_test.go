package app_test

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/auth"
)

// floodAttempts is how many bad client-credential attempts the flood fires
// at once (issue 9, item 4).
const floodAttempts = 200

// maxFloodMemory is the most the server's resident memory may grow by
// while the flood is answered.
const maxFloodMemory = 300 << 20

// TestTokenFloodKeepsMemoryBounded fires 200 concurrent client-credential
// attempts with wrong secrets at the whole server, half of them for the
// client id a good client uses and half for unknown client ids, while that
// good client keeps asking for tokens. Every argon2id check needs 19 MiB;
// unbounded, 200 attempts took gigabytes. The resident high-water mark
// must grow by less than 300 MB, every attempt must be answered 401, 429
// or 503, and the good client must keep getting tokens. The hash work does
// not depend on the store, so SQLite alone keeps the run short.
func TestTokenFloodKeepsMemoryBounded(t *testing.T) {
	base := startApp(t, "sqlite://"+filepath.Join(t.TempDir(), "atcp.db"))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: floodAttempts + 8}}
	if status := tokenStatus(t, client, base, bootstrapClient, bootstrapSecret); status != http.StatusOK {
		t.Fatalf("good client before the flood: %d", status)
	}

	debug.FreeOSMemory() // what earlier tests left behind must not hide the flood's growth
	baseline := procStatusBytes(t, "VmRSS")
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("reset the resident high-water mark: %v", err)
	}

	stop := make(chan struct{})
	goodDone := make(chan struct{})
	var good []time.Duration
	var goodFailures []int
	go func() {
		defer close(goodDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			status := tokenStatus(t, client, base, bootstrapClient, bootstrapSecret)
			if status == http.StatusOK {
				good = append(good, time.Since(start))
			} else {
				goodFailures = append(goodFailures, status)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()

	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	release := make(chan struct{})
	for i := range floodAttempts {
		clientID := bootstrapClient
		if i%2 == 1 {
			clientID = "unknown-" + strconv.Itoa(i)
		}
		wg.Go(func() {
			<-release
			status := tokenStatus(t, client, base, clientID, "atcp_"+auth.RandomToken(32))
			mu.Lock()
			counts[status]++
			mu.Unlock()
		})
	}
	start := time.Now()
	close(release)
	wg.Wait()
	flood := time.Since(start)
	close(stop)
	<-goodDone

	growth := procStatusBytes(t, "VmHWM") - baseline
	slices.Sort(good)
	t.Logf("flood of %d answered in %v: %v; resident high-water mark +%d MiB; good client: %d tokens, p50 %v, p99 %v, failures %v",
		floodAttempts, flood.Round(time.Millisecond), counts, growth>>20, len(good),
		percentile(good, 0.50), percentile(good, 0.99), goodFailures)
	if growth >= maxFloodMemory {
		t.Errorf("resident memory grew by %d MiB under the flood, want under %d MiB", growth>>20, maxFloodMemory>>20)
	}
	for status := range counts {
		if status != http.StatusUnauthorized && status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
			t.Errorf("a bad attempt was answered %d: %v", status, counts)
		}
	}
	if len(good) < 5 || len(goodFailures) > 0 {
		t.Errorf("the good client got %d tokens during the flood and %d refusals %v", len(good), len(goodFailures), goodFailures)
	}
}

// tokenStatus asks for a client_credentials token and returns the status.
func tokenStatus(t *testing.T, client *http.Client, base, clientID, secret string) int {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret}}
	resp, err := client.Post(base+"/oauth2/token", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Error(err)
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// procStatusBytes reads a field of /proc/self/status given in kB.
func procStatusBytes(t *testing.T, field string) int64 {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// percentile returns the p-quantile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}
