package app_test

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"atcp/internal/adapters/mqtt"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/config"
	"atcp/internal/dispatch"
	"atcp/internal/telemetry/simulator"
)

// BenchmarkMQTT1000 runs the server with 1,000 assets behind MQTT edge
// gateways at 1 Hz through one local broker, in real time, and measures
// what the steering costs and how long a command takes to show. Run it
// alone, once, with the broker up:
//
//	go test ./internal/app -run '^$' -bench MQTT1000 -benchtime 1x
//
// The gateways (atcp edge's physics, one MQTT connection each) run in a
// child process (this test binary again, as TestMQTTEdgeProcess), so
// their CPU is not the server's. After a 20 s warm-up it measures 60 s
// and reports the CPU share of one core of the server, of the gateways
// and of the broker (the local process named mosquitto), the commands
// published per second, the p50 and p99 of the command-to-measurement
// round trip (atcp_mqtt_command_to_measurement_seconds, interpolated in
// its buckets), and the lag of the live state behind the clock.
//
// ATCP_BENCH_MQTT_URL names another broker (default
// mqtt://127.0.0.1:1883), ATCP_BENCH_BROKER_PID its process when it is
// not the only local mosquitto; ATCP_BENCH_ASSETS another number of
// assets.
func BenchmarkMQTT1000(b *testing.B) {
	const (
		warmUp  = 20 * time.Second // gateways connect, the recorder's first flushes spread out
		measure = 60 * time.Second
	)
	n := envInt(b, "ATCP_BENCH_ASSETS", 1000)
	url := cmp.Or(os.Getenv("ATCP_BENCH_MQTT_URL"), "mqtt://127.0.0.1:1883")
	a := benchServer(b, "", true, func(c *config.Config) { c.MQTTURL = url })
	ctx := context.Background()
	ids := make([]string, n)
	for i := range n {
		x := mqttBenchAsset(i)
		ids[i] = x.ID
		if err := a.Assets.EnsureAsset(ctx, x); err != nil {
			b.Fatal(err)
		}
	}
	edge := startEdgeProcess(b, url, n)
	serve(b, a)
	// As in BenchmarkControl1000: a third of the batteries move under
	// immediate dispatch, so their commands change; the rest idle.
	all := auth.Visibility{All: true}
	for i := 0; i < n; i += 3 {
		end := a.Clock.Now().Add(2 * time.Hour)
		if _, _, err := a.Dispatch.StartImmediate(ctx, all, ids[i], dispatch.ImmediateDraft{End: end, SetPowerMW: float64(i%9 - 4)}); err != nil {
			b.Fatal(err)
		}
	}

	time.Sleep(warmUp)
	broker := envInt(b, "ATCP_BENCH_BROKER_PID", brokerPID())
	load0 := loadAverage()
	h0, sent0 := mqttFigures(b, a.Server.Registry())
	cpu0, edge0, broker0 := cpuTime(), procCPU(edge), procCPU(broker)
	wall0, clock0 := time.Now(), a.Clock.Now()
	var maxLag time.Duration
	for time.Since(wall0) < measure {
		time.Sleep(time.Second)
		s, err := a.Store.Telemetry().Latest(ctx, ids[n-1])
		if err != nil {
			b.Fatal(err)
		}
		maxLag = max(maxLag, a.Clock.Now().Sub(s.Measurements.Timestamp))
	}
	cpu, edgeCPU, brokerCPU := cpuTime()-cpu0, procCPU(edge)-edge0, procCPU(broker)-broker0
	wall, clockSpan := time.Since(wall0), a.Clock.Now().Sub(clock0)
	h1, sent1 := mqttFigures(b, a.Server.Registry())
	load1 := loadAverage()

	// Every asset must be steered: its newest stored snapshot is recent.
	live := 0
	now := a.Clock.Now()
	for _, id := range ids {
		if s, err := a.Store.Telemetry().Latest(ctx, id); err == nil && now.Sub(s.Measurements.Timestamp) <= 5*time.Second {
			live++
		}
	}
	round := h1.minus(h0)
	if round.count == 0 {
		b.Fatal("no command reported executed: is the broker up?")
	}
	share := func(d time.Duration) float64 { return d.Seconds() / wall.Seconds() * 100 }
	b.ReportMetric(share(cpu), "cpu%")
	b.ReportMetric(share(edgeCPU), "edge-cpu%")
	if broker > 0 {
		b.ReportMetric(share(brokerCPU), "broker-cpu%")
	}
	b.ReportMetric((sent1-sent0)/wall.Seconds(), "commands/s")
	b.ReportMetric(round.quantile(0.5)*1000, "cmd-to-meas-p50-ms")
	b.ReportMetric(round.quantile(0.99)*1000, "cmd-to-meas-p99-ms")
	b.ReportMetric(maxLag.Seconds(), "max-lag-s")
	b.ReportMetric(float64(live), "live-assets")
	b.Logf("%d MQTT assets for %s (clock advanced %s), %d live at the end: atcp cpu %.1f %%, edge %.1f %%, broker %s; "+
		"%.0f commands/s, %d round trips measured, p50 %.1f ms, p99 %.1f ms; live state at most %s behind; load average %s → %s",
		n, wall.Round(time.Millisecond), clockSpan.Round(time.Millisecond), live, share(cpu), share(edgeCPU), brokerShare(broker, share(brokerCPU)),
		(sent1-sent0)/wall.Seconds(), round.count, round.quantile(0.5)*1000, round.quantile(0.99)*1000, maxLag, load0, load1)
	b.Logf("round trips, cumulative: %s", round)
}

// mqttBenchAsset is the i-th asset of BenchmarkMQTT1000, registered with
// the MQTT adapter; every other one has PV.
func mqttBenchAsset(i int) assets.Asset {
	x := benchAsset(fmt.Sprintf("mqtt-%04d", i), i%2 == 0)
	x.Adapter = assets.AdapterMQTT
	return x
}

// startEdgeProcess starts TestMQTTEdgeProcess in a child process running
// the gateways of the first n mqttBenchAssets, and returns its pid. It
// stops at cleanup.
func startEdgeProcess(b *testing.B, url string, n int) int {
	cmd := exec.Command(os.Args[0], "-test.run=^TestMQTTEdgeProcess$", "-test.v=false")
	cmd.Env = append(os.Environ(), "ATCP_MQTT_EDGE_URL="+url, "ATCP_MQTT_EDGE_ASSETS="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			b.Errorf("the edge process: %v", err)
		}
	})
	out := bufio.NewScanner(stdout)
	for out.Scan() && out.Text() != "edge running" {
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return cmd.Process.Pid
}

// TestMQTTEdgeProcess is not a test: it is the gateways' process of
// BenchmarkMQTT1000, run only when the benchmark starts this binary with
// ATCP_MQTT_EDGE_URL set. It runs until its standard input ends.
func TestMQTTEdgeProcess(t *testing.T) {
	url := os.Getenv("ATCP_MQTT_EDGE_URL")
	if url == "" {
		return
	}
	n := envInt(t, "ATCP_MQTT_EDGE_ASSETS", 1)
	batteries := make([]simulator.Config, n)
	for i := range n {
		batteries[i] = simulator.ConfigFromAsset(mqttBenchAsset(i))
	}
	e, err := mqtt.NewEdge(context.Background(), mqtt.EdgeOptions{URL: url, Batteries: batteries, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("edge running")
	_, _ = io.Copy(io.Discard, os.Stdin)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Close(ctx); err != nil {
		t.Error(err)
	}
}

// histogram is the cumulative bucket counts of a Prometheus histogram.
type histogram struct {
	bounds []float64
	counts []uint64
	count  uint64
}

func (h histogram) minus(o histogram) histogram {
	d := histogram{bounds: h.bounds, counts: make([]uint64, len(h.counts)), count: h.count - o.count}
	for i := range h.counts {
		d.counts[i] = h.counts[i] - o.counts[i]
	}
	return d
}

// String lists the share of samples up to each bound, where it grows.
func (h histogram) String() string {
	var out []string
	below := uint64(0)
	for i, upper := range h.bounds {
		if h.counts[i] > below {
			out = append(out, fmt.Sprintf("≤%g ms %.1f %%", upper*1000, float64(h.counts[i])/float64(h.count)*100))
		}
		below = h.counts[i]
	}
	return strings.Join(out, ", ")
}

// quantile interpolates linearly within the bucket the q-quantile falls
// in, as PromQL's histogram_quantile does; beyond the last bound it is
// +Inf.
func (h histogram) quantile(q float64) float64 {
	rank := q * float64(h.count)
	lower, below := 0.0, uint64(0)
	for i, upper := range h.bounds {
		if float64(h.counts[i]) >= rank {
			return lower + (upper-lower)*(rank-float64(below))/float64(h.counts[i]-below)
		}
		lower, below = upper, h.counts[i]
	}
	return math.Inf(1)
}

// mqttFigures reads the MQTT adapter's round-trip histogram and the
// commands it published so far.
func mqttFigures(b *testing.B, reg *prometheus.Registry) (histogram, float64) {
	mfs, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	var h histogram
	var sent float64
	for _, mf := range mfs {
		switch mf.GetName() {
		case "atcp_mqtt_command_to_measurement_seconds":
			hist := mf.GetMetric()[0].GetHistogram()
			h.count = hist.GetSampleCount()
			for _, bk := range hist.GetBucket() {
				h.bounds = append(h.bounds, bk.GetUpperBound())
				h.counts = append(h.counts, bk.GetCumulativeCount())
			}
		case "atcp_mqtt_commands_published_total":
			sent = mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	if h.bounds == nil {
		b.Fatal("the MQTT adapter's metrics are not registered")
	}
	return h, sent
}

// brokerPID is the pid of the local process named mosquitto, 0 if there
// is none or more than one.
func brokerPID() int {
	paths, _ := filepath.Glob("/proc/[0-9]*/comm")
	pid := 0
	for _, p := range paths {
		comm, err := os.ReadFile(p)
		if err != nil || strings.TrimSpace(string(comm)) != "mosquitto" {
			continue
		}
		if pid != 0 {
			return 0
		}
		pid, _ = strconv.Atoi(filepath.Base(filepath.Dir(p)))
	}
	return pid
}

func brokerShare(pid int, share float64) string {
	if pid == 0 {
		return "not measured (no single local mosquitto)"
	}
	return fmt.Sprintf("%.1f %%", share)
}

// procCPU is the CPU time (user and system) process pid used so far, 0
// when it cannot be read. /proc counts in USER_HZ, 100 on Linux.
func procCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which may hold spaces: state is
	// field 3, utime 14, stime 15.
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// loadAverage is the machine's 1-minute load average.
func loadAverage() string {
	s, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(s))[0]
}
