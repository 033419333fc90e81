package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkServe gives a served arena's figures over loopback: `coplay serve` (the
// binary) with 1, 2, 8 and 32 seats connected, a go-sdk client each calling a mix of
// reads, previews and acts (every act committed to the notebook, fsynced, before it is
// answered), for serveBenchTime each (COPLAY_BENCH_SERVE_SECONDS changes it; b.N is
// not used). Two loads:
//
//   - paced: every seat at its rate limit (on, as served by default: 2 calls a second),
//     the most the server lets each seat ask; the latency a seat's agent meets;
//   - flat-out: the limit off (--no-seat-limit), every client calling again as soon as
//     it has its answer; the server's capacity, and its latency when saturated.
//
// Each reports calls a second, the p50 and p99 latency of a call (and apart: of the acts,
// each committed, and of the looks, reads and previews), calls refused by the limit, and the server's resident memory (VmRSS, and its peak VmHWM) with every seat
// connected.
//
//	go test -run '^$' -bench Serve ./cli/
func BenchmarkServe(b *testing.B) {
	for _, paced := range []bool{true, false} {
		for _, n := range []int{1, 2, 8, 32} {
			name := fmt.Sprintf("flat-out/seats=%d", n)
			if paced {
				name = fmt.Sprintf("paced/seats=%d", n)
			}
			b.Run(name, func(b *testing.B) { benchServe(b, n, paced) })
		}
	}
}

// serveBenchTime is how long each load is played.
func serveBenchTime() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("COPLAY_BENCH_SERVE_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 10 * time.Second
}

// serveMix is what a seat calls, in turn: 6 reads, 2 previews, 2 acts (messages).
var serveMix = []struct {
	tool string
	args func(to string) map[string]any
}{
	{"status", nil},
	{"market", nil},
	{"messages", func(string) map[string]any { return map[string]any{"limit": 5} }},
	{"preview_send_message", func(to string) map[string]any { return map[string]any{"to": to, "text": "a preview"} }},
	{"send_message", func(to string) map[string]any { return map[string]any{"to": to, "text": "hello neighbour"} }},
	{"battle", nil},
	{"status", nil},
	{"member", func(string) map[string]any { return map[string]any{"name": "Mara"} }},
	{"preview_buy", func(string) map[string]any { return map[string]any{"item": "apple", "quantity": 1} }},
	{"send_message", func(to string) map[string]any { return map[string]any{"to": to, "text": "still here"} }},
}

func benchServe(b *testing.B, n int, paced bool) {
	var seats, env, tokens []string
	args := []string{"--game", "arena", "--mcp", "127.0.0.1:0", "--data", filepath.Join(b.TempDir(), "w.db")}
	if !paced {
		args = append(args, "--no-seat-limit")
	}
	for i := range n {
		seat := fmt.Sprintf("S%02d", i+1)
		tok := fmt.Sprintf("bench-token-%02d-0123456789abcdef", i+1)
		seats, tokens = append(seats, seat), append(tokens, tok)
		env = append(env, "COPLAY_SEAT_TOKEN_"+seat+"="+tok)
		args = append(args, "--seat", seat)
	}
	sv := startServeProc(b, env, args...)
	clients := make([]*sdk.ClientSession, n)
	for i := range n {
		clients[i] = seatClient(b, sv.URL, tokens[i], nil)
	}
	lat := make([][]time.Duration, n)
	actLat, readLat := make([][]time.Duration, n), make([][]time.Duration, n)
	var limited atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	play := serveBenchTime()
	b.ResetTimer()
	start := time.Now()
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			to := seats[(i+1)%n]
			every := time.Duration(0)
			if paced {
				every = time.Second / 2 // the seat's limit
				time.Sleep(time.Duration(i) * every / time.Duration(n))
			}
			for k := i; time.Since(start) < play; k++ {
				m := serveMix[k%len(serveMix)]
				var a any = map[string]any{}
				if m.args != nil {
					a = m.args(to)
				}
				t0 := time.Now()
				res, err := c.CallTool(b.Context(), &sdk.CallToolParams{Name: m.tool, Arguments: a})
				lat[i] = append(lat[i], time.Since(t0))
				if m.tool == "send_message" {
					actLat[i] = append(actLat[i], time.Since(t0))
				} else {
					readLat[i] = append(readLat[i], time.Since(t0))
				}
				switch {
				case err != nil:
					failed.Store(fmt.Sprintf("%s: %v", m.tool, err))
					return
				case res.IsError && res.StructuredContent != nil:
					limited.Add(1)
				case res.IsError && m.tool != "send_message": // a message to oneself (one seat) is refused
					failed.Store(fmt.Sprintf("%s: refused: %v", m.tool, res.Content))
					return
				}
				if wait := every - time.Since(t0); wait > 0 {
					time.Sleep(wait)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failed.Load(); f != nil {
		b.Fatal(f)
	}
	rss, hwm := procMemory(b, sv.cmd.Process.Pid)
	all, acts, reads := slices.Concat(lat...), slices.Concat(actLat...), slices.Concat(readLat...)
	slices.Sort(all)
	slices.Sort(acts)
	slices.Sort(reads)
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "calls/s")
	b.ReportMetric(ms(percentile(all, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(all, 99)), "p99-ms")
	b.ReportMetric(ms(percentile(acts, 50)), "act-p50-ms")
	b.ReportMetric(ms(percentile(acts, 99)), "act-p99-ms")
	b.ReportMetric(ms(percentile(reads, 99)), "look-p99-ms")
	b.ReportMetric(float64(limited.Load()), "limited")
	b.ReportMetric(rss, "rss-MB")
	b.ReportMetric(hwm, "peak-rss-MB")
	b.ReportMetric(0, "ns/op") // the figures above say it
}

// procMemory reads a process's resident memory and its peak, in MB, from /proc.
func procMemory(b *testing.B, pid int) (rss, peak float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc to read the server's memory from: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return rss, peak
}

// percentile is the p-th percentile of sorted durations (0 for none).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
