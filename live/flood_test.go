package live_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
)

// floodAddr, set in a child's environment, makes TestSSHFloodChild flood that address.
const floodAddr = "COPLAY_TEST_SSH_FLOOD_ADDR"

// TestSSHFloodChild is the flood of TestSSHFloodLeavesDecisionsFast, run in a child
// process as an attacker's would be: waves of 50 connections at once, each offering 6
// unknown keys, until its stdin closes. It says "wave N" after each. Without the
// variable it does nothing.
func TestSSHFloodChild(t *testing.T) {
	addr := os.Getenv(floodAddr)
	if addr == "" {
		t.Skip("the flood's child process only")
	}
	stop := make(chan struct{})
	go func() {
		bufio.NewReader(os.Stdin).ReadString('\n')
		close(stop)
	}()
	for n := 1; ; n++ {
		select {
		case <-stop:
			fmt.Printf("cpu %d\n", cpuTime().Microseconds())
			return
		default:
		}
		flood(t, addr, 50, 6)
		fmt.Printf("wave %d\n", n)
	}
}

// cpuTime is the CPU time this process has spent, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// floodFrom starts the flood on addr in a child process; the returned func stops it and
// says how many waves it sent and the CPU time it spent.
func floodFrom(t *testing.T, addr string) func() (int, time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSSHFloodChild$", "-test.v")
	cmd.Env = append(os.Environ(), floodAddr+"="+addr)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waves, cpu atomic.Int64
	started := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if us, ok := strings.CutPrefix(sc.Text(), "cpu "); ok {
				n, _ := strconv.ParseInt(us, 10, 64)
				cpu.Store(n)
			}
			if n, ok := strings.CutPrefix(sc.Text(), "wave "); ok {
				if w, _ := strconv.Atoi(n); w == 1 {
					close(started)
				}
				waves.Add(1)
			}
		}
	}()
	select {
	case <-started: // the flood is on: measure during it
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the flood's first wave did not end")
	}
	return func() (int, time.Duration) {
		in.Close()
		<-read
		cmd.Wait()
		return int(waves.Load()), time.Duration(cpu.Load()) * time.Microsecond
	}
}

// A person's decision during a flood of refused SSH connections (waves of 50 at once,
// each offering 6 unknown keys, from another process as an attacker's) takes about as
// long as without one: the refusals cost the journal one record a minute, and no more
// than a few handshakes run at once. It prints the figures, no timed assertion:
//
//	go test -count=1 -run TestSSHFloodLeavesDecisionsFast -v ./live/
//
// Serial: the game's socket goes in a runtime directory of its own (t.Setenv).
func TestSSHFloodLeavesDecisionsFast(t *testing.T) {
	decisions := 200
	if raceDetector {
		// Under the race detector a flood's handshakes cost several times the CPU and the
		// latencies say nothing of the product: the same decisions through the same
		// flood, fewer of them (CI's race pass took 31 s here; issue 48).
		decisions = 40
	}
	g := playingAt(t, 100000)
	dir := keysDir(t)
	steer := filepath.Join(dir, "steer_keys")
	writeKeys(t, steer, keyLine(newKey(t), "", "someone"))
	var refusals atomic.Int32
	srv, _ := sshServer(t, g.hub, "", steer, func(s string) {
		if strings.HasPrefix(s, "SSH: refused") {
			refusals.Add(1)
		}
		g.runner.Notice(s) // journaled, as cli does
	})
	decide := func(n int) []time.Duration {
		var took []time.Duration
		for range n {
			q := g.runner.Input().Waiting() // from the gate's queue: a batch may hold several
			for len(q) == 0 {
				g.next(t, "a call waiting", false, waitingCall)
				q = g.runner.Input().Waiting()
			}
			call := q[0].Call
			start := time.Now()
			if err := g.own.Send(agent.Command{Cmd: agent.CmdDecide, CallID: call.ID, Decision: agent.Approve}); err != nil {
				t.Fatal(err)
			}
			g.next(t, "the decision", false, func(ev agent.Event) bool {
				return ev.Type == agent.EventDecision && ev.Decision.CallID == call.ID
			})
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		return took
	}
	figures := func(d []time.Duration) string {
		ms := func(x time.Duration) string { return fmt.Sprintf("%.1f ms", float64(x.Microseconds())/1000) }
		return fmt.Sprintf("p50 %s, p99 %s, max %s", ms(d[len(d)/2]), ms(d[len(d)*99/100]), ms(d[len(d)-1]))
	}
	start, cpu := time.Now(), cpuTime()
	quiet := decide(decisions)
	quietCPU := 100 * (cpuTime() - cpu).Seconds() / time.Since(start).Seconds()
	stop := floodFrom(t, srv.Addr().String())
	start, cpu = time.Now(), cpuTime()
	loud := decide(decisions)
	during, cpu := time.Since(start), cpuTime()-cpu
	waves, theirs := stop()
	t.Logf("%d decisions each, from the person's Send to the journaled decision event:", decisions)
	t.Logf("  without a flood: %s (this process %.0f%% of one CPU)", figures(quiet), quietCPU)
	t.Logf("  during a flood:  %s (%d waves of 50 refused connections × 6 keys in %.1f s, %d refusal notice(s) journaled)",
		figures(loud), waves, during.Seconds(), refusals.Load())
	t.Logf("  CPU during the flood: this process %.0f%%, the flood's %.0f%% (of one CPU)",
		100*cpu.Seconds()/during.Seconds(), 100*theirs.Seconds()/during.Seconds())
}
