package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
)

// BenchmarkOwnerCPUWithAttached plays the same 40 autopilot steps on the universe with 0
// and then 2 `coplay attach --headless` clients, and reports the playing process's CPU
// time for each and their ratio (the goal: at most 10% more with 2 attached screens).
//
//	go test -run '^$' -bench OwnerCPUWithAttached -benchtime 1x ./cli/
func BenchmarkOwnerCPUWithAttached(b *testing.B) {
	bin := coplayBinaryB(b)
	var cpu [2]time.Duration
	for i := 0; i < b.N; i++ {
		for k, attached := range []int{0, 2} {
			cpu[k] += ownerCPU(b, bin, attached)
		}
	}
	b.ReportMetric(cpu[0].Seconds()/float64(b.N), "cpu-s-0-attached")
	b.ReportMetric(cpu[1].Seconds()/float64(b.N), "cpu-s-2-attached")
	b.ReportMetric(cpu[1].Seconds()/cpu[0].Seconds(), "ratio")
}

// coplayBinaryB is coplayBinary for a benchmark.
func coplayBinaryB(b *testing.B) string {
	t := &testing.T{}
	bin := coplayBinary(t)
	if t.Failed() {
		b.Fatal("building coplay failed")
	}
	return bin
}

// ownerCPU plays 40 steps with n attached headless clients and returns the owner's
// user and system CPU time.
func ownerCPU(b *testing.B, bin string, n int) time.Duration {
	dir := b.TempDir()
	env := append(os.Environ(), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "XDG_RUNTIME_DIR="+dir)
	data := filepath.Join(dir, "coplay.db")
	owner := exec.Command(bin, "run", "--headless", "--approve", "ask", "--data", data, "--no-rate-limit", "--speed", "400", "--steps", "40")
	owner.Env = env
	in, _ := owner.StdinPipe()
	out, _ := owner.StdoutPipe()
	if err := owner.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	// Wait for the first call that waits: the session is open and serving.
	var first []string
	for sc.Scan() {
		var ev agent.Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK {
			first = append(first, ev.Call.ID)
			break
		}
	}
	var clients []*exec.Cmd
	for range n {
		c := exec.Command(bin, "attach", "--headless", "--data", data)
		c.Env = env
		cin, _ := c.StdinPipe()
		defer cin.Close()
		cout, _ := c.StdoutPipe()
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		lines := bufio.NewScanner(cout)
		lines.Buffer(make([]byte, 1<<20), 1<<24)
		lines.Scan() // attached: the state so far is coming
		go func() {
			for lines.Scan() {
			}
		}()
		clients = append(clients, c)
	}
	// Now let it play: every call approved as it comes, until the step limit stops it.
	for _, id := range first {
		fmt.Fprintf(in, `{"cmd":"decide","call_id":%q,"decision":"approve"}`+"\n", id)
	}
	for sc.Scan() {
		var ev agent.Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK {
			fmt.Fprintf(in, `{"cmd":"decide","call_id":%q,"decision":"approve"}`+"\n", ev.Call.ID)
		}
		if ev.Type == agent.EventState && ev.State == agent.Stopped {
			break
		}
	}
	in.Close()
	go func() {
		for sc.Scan() {
		}
	}()
	if err := owner.Wait(); err != nil {
		b.Fatal(err)
	}
	for _, c := range clients {
		c.Wait()
	}
	return owner.ProcessState.UserTime() + owner.ProcessState.SystemTime()
}
