package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/eval"
)

// leagueFiguresEnv, set to "SEATS STEPS", makes the test binary the child of
// BenchmarkLeague: it plays one arena league and prints its figures (TestMain).
const leagueFiguresEnv = "COPLAY_LEAGUE_FIGURES"

// leagueFigureSeats are the seats' names, in seat order.
var leagueFigureSeats = []string{"Heron", "Finch", "Lark", "Kite", "Swift", "Robin"}

// leagueFigures is what a child measured of its league.
type leagueFigures struct {
	Seats     int     `json:"seats"`
	SeatSteps int     `json:"seat_steps"`
	CPU       float64 `json:"cpu_seconds"`    // user + system, from opening the world to the last seat's end
	PeakRSS   int64   `json:"peak_rss_bytes"` // VmHWM: the process's peak resident set
	BaseRSS   int64   `json:"base_rss_bytes"` // VmRSS before the world was opened
	HeapPeak  uint64  `json:"heap_sys_bytes"` // the Go runtime's heap obtained from the system, at the end
	Wall      float64 `json:"wall_seconds"`
	Errors    []string
}

// BenchmarkLeague plays the autopilot alone and then in 6 seats of one arena (seed 1,
// the eval's arena speed 600, 100 steps a seat), each in a fresh child process so that
// peaks do not mix, and reports each one's peak RSS, CPU time per seat-step (user +
// system over every seat's steps), and the ratios of 6 seats to 1. The goals (issue
// 40): RSS ratio ≤ 2.5, CPU per seat-step ratio ≤ 1.5. Two ways:
//
//   - eval: the test binary re-executed plays `coplay eval --league`'s episode
//     (eval.PlayLeague; no state saved), measured inside from opening the world to the
//     last seat's end (VmHWM; getrusage);
//
//   - run: `coplay run --headless --approve all --seat ...` as a person runs it, every
//     seat's state saved to its session, measured whole by the parent (the child's
//     rusage: maxrss and CPU, start-up included).
//
//     go test -run '^$' -bench League -benchtime 1x ./cli/
func BenchmarkLeague(b *testing.B) {
	const steps = 100
	b.Run("eval", func(b *testing.B) {
		var one, six leagueFigures
		for i := 0; i < b.N; i++ {
			one, six = evalFigures(b, 1, steps), evalFigures(b, 6, steps)
		}
		reportLeague(b, one, six)
	})
	b.Run("run", func(b *testing.B) {
		bin := coplayBinaryB(b)
		var one, six leagueFigures
		for i := 0; i < b.N; i++ {
			one, six = runFigures(b, bin, 1, steps), runFigures(b, bin, 6, steps)
		}
		reportLeague(b, one, six)
	})
}

// reportLeague reports the figures of 1 and 6 seats and their ratios.
func reportLeague(b *testing.B, one, six leagueFigures) {
	perStep := func(f leagueFigures) float64 { return f.CPU * 1e6 / float64(max(f.SeatSteps, 1)) }
	mb := func(n int64) float64 { return float64(n) / (1 << 20) }
	b.ReportMetric(mb(one.PeakRSS), "rss-MB-1-seat")
	b.ReportMetric(mb(six.PeakRSS), "rss-MB-6-seats")
	b.ReportMetric(float64(six.PeakRSS)/float64(one.PeakRSS), "rss-ratio")
	b.ReportMetric(perStep(one), "cpu-µs/seat-step-1")
	b.ReportMetric(perStep(six), "cpu-µs/seat-step-6")
	b.ReportMetric(perStep(six)/perStep(one), "cpu-ratio")
	if one.BaseRSS > 0 {
		// Most of a coplay process's RSS is there before any world opens (its 80 MB
		// binary's pages and packages' start-up): the growth is what the seats cost.
		b.ReportMetric(float64(six.PeakRSS-six.BaseRSS)/float64(one.PeakRSS-one.BaseRSS), "rss-growth-ratio")
	}
	for _, f := range []leagueFigures{one, six} {
		inside := ""
		if f.BaseRSS > 0 {
			inside = fmt.Sprintf(" (%.1f MB before the world; Go heap from the system %.1f MB)", mb(f.BaseRSS), mb(int64(f.HeapPeak)))
		}
		b.Logf("%d seat(s): %d seat-steps in %.1fs wall, %.3fs CPU; RSS peak %.1f MB%s", f.Seats, f.SeatSteps, f.Wall, f.CPU, mb(f.PeakRSS), inside)
	}
}

// runFigures plays seats autopilot seats for steps steps each with `coplay run
// --headless` in a fresh notebook, and returns the child's figures from its rusage and
// the steps its events report.
func runFigures(b *testing.B, bin string, seats, steps int) leagueFigures {
	b.Helper()
	args := []string{"run", "--headless", "--game", "arena", "--seed", "1", "--speed", fmt.Sprint(evalArenaSpeed), "--approve", "all",
		"--data", filepath.Join(b.TempDir(), "coplay.db"), "--steps", fmt.Sprint(steps)}
	for _, name := range leagueFigureSeats[:seats] {
		args = append(args, "--seat", name+"=autopilot")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "XDG_CONFIG_HOME="+b.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("coplay %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	f := leagueFigures{Seats: seats, Wall: time.Since(start).Seconds()}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	f.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	f.PeakRSS = ru.Maxrss << 10 // kB on Linux
	f.SeatSteps = bytes.Count(stdout.Bytes(), []byte(`"type":"step"`))
	if f.SeatSteps != seats*steps {
		b.Fatalf("coplay run played %d seat-steps, want %d\n%s", f.SeatSteps, seats*steps, stderr.String())
	}
	return f
}

// evalFigures runs the test binary as a child playing seats seats for steps steps each,
// and returns its figures.
func evalFigures(b *testing.B, seats, steps int) leagueFigures {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %d", leagueFiguresEnv, seats, steps), "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("the %d-seat child: %v\n%s", seats, err, stderr.String())
	}
	var f leagueFigures
	if err := json.Unmarshal(stdout.Bytes(), &f); err != nil {
		b.Fatalf("the %d-seat child's figures: %v\n%s", seats, err, stdout.String())
	}
	if len(f.Errors) > 0 || f.SeatSteps != seats*steps {
		b.Fatalf("the %d-seat child played %d seat-steps of %d: %v", seats, f.SeatSteps, seats*steps, f.Errors)
	}
	return f
}

// playLeagueFigures is the child: spec is "SEATS STEPS". It plays one arena league of
// autopilots through eval's league episode, as `coplay eval --league` does, and prints
// its figures as JSON.
func playLeagueFigures(spec string) int {
	var seats, steps int
	if _, err := fmt.Sscanf(spec, "%d %d", &seats, &steps); err != nil || seats < 1 || seats > len(leagueFigureSeats) {
		fmt.Fprintf(os.Stderr, "%s=%q: want SEATS (1-%d) and STEPS\n", leagueFiguresEnv, spec, len(leagueFigureSeats))
		return 2
	}
	file := config.Empty()
	pl, err := planProfile(file, "autopilot", "arena")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var ls []evalSeat
	for _, name := range leagueFigureSeats[:seats] {
		ls = append(ls, evalSeat{name: name, plan: pl})
	}
	w := evalWorld{game: "arena", seeds: []int64{1}, speed: evalArenaSpeed}
	f := leagueFigures{Seats: seats, BaseRSS: procStatus("VmRSS")}
	cpu0, start := cpuTime(), time.Now()
	ep := eval.PlayLeague(context.Background(), eval.LeagueJob{Seed: 1, Steps: steps, Game: "arena", Metric: "score",
		Open: func(ctx context.Context) (*eval.LeagueSetup, error) { return openLeagueEpisode(ctx, ls, file, w, 1) }}, func() {})
	f.CPU, f.Wall = (cpuTime() - cpu0).Seconds(), time.Since(start).Seconds()
	f.PeakRSS = procStatus("VmHWM")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	f.HeapPeak = ms.HeapSys
	if ep.Error != "" {
		f.Errors = append(f.Errors, ep.Error)
	}
	for _, s := range ep.Seats {
		f.SeatSteps += s.Steps
		if s.Error != "" {
			f.Errors = append(f.Errors, s.Seat+": "+s.Error)
		}
	}
	out, _ := json.Marshal(f)
	fmt.Println(string(out))
	return 0
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatus reads a size in bytes from /proc/self/status (VmRSS, VmHWM); 0 where
// there is none.
func procStatus(key string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			var kb int64
			fmt.Sscanf(v, "%d kB", &kb)
			return kb << 10
		}
	}
	return 0
}
