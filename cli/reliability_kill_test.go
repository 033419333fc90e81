package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// killCassette plays forever: calls that change the game (some needing the person,
// all of them cheap to repeat), notebook writes, reads, and an invalid call.
func killCassette() llmtest.Cassette {
	ship := `{"shipSymbol":"` + relShip + `"}`
	mode := func(m string) string { return `{"shipSymbol":"` + relShip + `","flightMode":"` + m + `"}` }
	return llmtest.Cassette{Name: "kill", Repeat: true, Steps: []llmtest.Step{
		{Text: "Orbit.", Calls: []llmtest.Call{scall("orbit_ship", ship)}},
		{Text: "Dock and write it down.", Calls: []llmtest.Call{scall("dock_ship", ship),
			scall("update_notes", `{"section":"Situation","text":"docked at home"}`)}},
		{Calls: []llmtest.Call{scall("set_flight_mode", mode("BURN")), scall("set_flight_mode", mode("CRUISE"))}},
		{Calls: []llmtest.Call{scall("observe_game", `{}`), scall("set_flight_mode", mode("WARP"))}},
		{Calls: []llmtest.Call{scall("orbit_ship", ship), scall("dock_ship", ship)}},
	}}
}

// child is one run of the coplay binary, driven as a person would drive it: every call
// that waits is approved, and an idle agent is told to resume.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	done   chan struct{} // stdout is read to its end
	stderr bytes.Buffer

	mu    sync.Mutex
	lines []agent.Event // every complete event line printed
}

func startChild(t *testing.T, g *gameServer, args ...string) *child {
	t.Helper()
	cmd := exec.Command(coplayBinary(t), args...)
	cmd.Env = append(os.Environ(), "SPACETRADERS_TOKEN="+g.Token, "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	c := &child{cmd: cmd, done: make(chan struct{})}
	var out io.ReadCloser
	c.stdin, out = startPiped(t, cmd, &c.stderr)
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
		enc := json.NewEncoder(c.stdin)
		for sc.Scan() {
			var ev agent.Event
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue // a line cut by the kill
			}
			c.mu.Lock()
			c.lines = append(c.lines, ev)
			c.mu.Unlock()
			switch {
			case ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK:
				enc.Encode(agent.Command{Cmd: agent.CmdDecide, CallID: ev.Call.ID, Decision: agent.Approve})
			case ev.Type == agent.EventState && ev.State == agent.Idle:
				enc.Encode(agent.Command{Cmd: agent.CmdResume})
			}
		}
		io.Copy(io.Discard, out)
	}()
	return c
}

// wait waits for the process (after a kill or its own end) and returns its exit error.
func (c *child) wait() error {
	<-c.done
	return c.cmd.Wait()
}

// events returns the events the child printed.
func (c *child) events() []agent.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]agent.Event(nil), c.lines...)
}

// TestReliabilityKill runs the coplay binary headless against the offline universe
// (served by this test over loopback, counting what it receives), kills it with SIGKILL
// at random moments (seeded), and resumes the session each time. After every kill the
// notebook must open, the journal must hold every event the process printed, and no call
// may have run twice; after every resume the calls left running are closed as outcome
// unknown (never replayed); a last clean run must go on for its steps and exit 0.
//
// COPLAY_RELIABILITY_KILLS sets the number of kills (default 12, 5 under -short).
func TestReliabilityKill(t *testing.T) {
	t.Parallel()
	kills := 12
	if testing.Short() {
		kills = 5
	}
	if v := os.Getenv("COPLAY_RELIABILITY_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("COPLAY_RELIABILITY_KILLS=%q: want a positive number", v)
		}
		kills = n
	}
	seed := uint64(11)
	rng := rand.New(rand.NewPCG(seed, 1))
	g := newGameServer(t, seed, faultRates{act: map[faultKind]float64{faultSlow: 0.3, faultDropAfter: 0.03}})
	dir := t.TempDir()
	data := filepath.Join(dir, "coplay.db")
	cassette := writeCassette(t, dir, killCassette())
	base := []string{"run", "--headless", "--approve", "ask", "--data", data, "--brain", "script:" + cassette,
		"--game", "spacetraders", "--base-url", g.URL, "--max-iterations", "100000"}

	leftRunning := map[string]bool{} // calls a kill left running
	totalSteps, killedWithOpenCall, reshown := 0, 0, 0
	for i := 0; i <= kills; i++ {
		args := append([]string(nil), base...)
		if i > 0 {
			args = append(args, "--resume")
		}
		last := i == kills
		if last {
			args = append(args, "--steps", "5")
		}
		c := startChild(t, g, args...)
		if last {
			timer := time.AfterFunc(time.Minute, func() { c.cmd.Process.Kill() })
			err := c.wait()
			timer.Stop()
			if err != nil {
				t.Fatalf("final run: %v\nstderr:\n%s", err, c.stderr.String())
			}
		} else {
			time.Sleep(time.Duration(50+rng.IntN(1200)) * time.Millisecond)
			c.cmd.Process.Kill() // SIGKILL: no deferred save, no clean close
			c.wait()
		}

		name, recs := readJournal(t, data)
		evs := c.events()
		for _, ev := range evs {
			if ev.Seq == 0 || ev.Seq > uint64(len(recs)) || string(recs[ev.Seq-1].Type) != string(ev.Type) {
				t.Errorf("run %d printed %s with seq %d, which the journal (%d records) does not hold", i, ev.Type, ev.Seq, len(recs))
			}
		}
		f := checkJournal(t, recs, false, nil)
		steps := 0
		for _, ev := range evs {
			switch ev.Type {
			case agent.EventStep:
				steps++
			case agent.EventProposed:
				if ev.Seq < evs[0].Seq {
					reshown++
				}
			}
		}
		totalSteps += steps
		if len(f.unclosed) > 0 {
			killedWithOpenCall++
		}
		for _, id := range f.unclosed {
			leftRunning[id] = true
		}
		if last {
			if steps != 5 {
				t.Errorf("final run made %d steps, want 5", steps)
			}
			if len(f.unclosed) > 0 {
				t.Errorf("calls still open after a clean end: %v", f.unclosed)
			}
			// Calls a kill left running were closed by a resume as outcome unknown,
			// never run again (checkJournal: one start per call).
			for id := range leftRunning {
				if !hasRecord(recs, id, record.TypeOutcomeUnknown) {
					t.Errorf("call %s was left running by a kill and never closed as outcome unknown", id)
				}
			}
			checkGameSide(t, g, f, kills)
			bannedKeys(t, g, "WARP")
			t.Logf("%d kills; session %s: %d records, %d steps in all; %d kills left a call running; %d pending proposals shown again after a kill; decisions %v",
				kills, name, len(recs), totalSteps, killedWithOpenCall, reshown, f.decisions)
		}
	}
	if totalSteps <= kills {
		t.Errorf("only %d steps over %d runs: the agent does not get going after a resume", totalSteps, kills+1)
	}
}

func hasRecord(recs []notes.Record, callID string, typ record.Type) bool {
	for _, r := range recs {
		if r.CallID == callID && r.Type == typ {
			return true
		}
	}
	return false
}
