package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// `coplay attach --headless` on a session that `coplay run --headless` plays: the
// attached client receives the call that waits (sent before it attached) as part of the
// state so far, approves it, and the owner's decision event says the decision was made
// via attach.
func TestAttachHeadlessApproves(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	data := filepath.Join(t.TempDir(), "coplay.db")
	var (
		once     sync.Once
		waitID   string
		attachWG sync.WaitGroup
		attachMu sync.Mutex
		seen     []agent.Event // what the attached client received
		attachE  error
		decided  *agent.Decision
	)
	headlessRun(t, []string{"--approve", "ask", "--data", data, "--no-rate-limit", "--steps", "2"}, func(ev agent.Event, send func(agent.Command)) {
		if ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK && waitID == "" {
			waitID = ev.Call.ID
			once.Do(func() {
				attachWG.Add(1)
				go func() {
					defer attachWG.Done()
					attachMu.Lock()
					defer attachMu.Unlock()
					seen, attachE = attachAndApprove(t, data, waitID)
				}()
			})
		}
		if ev.Type == agent.EventDecision && ev.Decision != nil && ev.Decision.CallID == waitID && decided == nil {
			decided = ev.Decision
			send(agent.Command{Cmd: agent.CmdStop})
		}
	})
	attachWG.Wait()
	if attachE != nil {
		t.Fatalf("attach: %v", attachE)
	}
	if decided == nil {
		t.Fatalf("the owner never saw a decision on %s", waitID)
	}
	if decided.Via != "attach" || decided.By != "person" || decided.Decision != agent.Approve {
		t.Fatalf("decision = %+v, want approve by person via attach", decided)
	}
	if len(seen) == 0 || seen[0].Type == agent.EventTextDelta {
		t.Fatalf("the attached client received %d events", len(seen))
	}
	// The export says where the person decided.
	out, err := sessions(t, "--json", "--data", data)
	var list []struct{ Name string }
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("sessions: %s %v", out, err)
	}
	if out, err := sessions(t, "export", list[0].Name, "--data", data); err != nil || !strings.Contains(out, "by person (via attach)") {
		t.Errorf("the export does not say the decision came via attach (%v):\n%s", err, tail(out, 2000))
	}
}

// attachAndApprove runs `coplay attach --headless` in-process, waits in what it
// receives for the call id to be waiting, sends a 2 MiB line (refused with an error
// event, and the input goes on), approves it, and reads on until the decision comes
// back; it returns every event received.
func attachAndApprove(t *testing.T, data, id string) ([]agent.Event, error) {
	long, approved := false, false
	seen, err := attachSession(t, data, func(ev agent.Event, send func(string), detach func()) {
		if !long && ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.ID == id && ev.Call.NeedsOK {
			long = true
			send(`{"cmd":"advise","text":"` + strings.Repeat("x", 2<<20) + `"}`)
		}
		if !approved && ev.Type == agent.EventError && ev.Text == "stdin line 1: a line may be at most 16 KiB, and this one was 2.0 MiB: it was dropped" {
			approved = true
			send(fmt.Sprintf(`{"cmd":"decide","call_id":%q,"decision":"approve"}`, id))
		}
		if ev.Type == agent.EventDecision && ev.Decision != nil && ev.Decision.CallID == id {
			detach()
		}
	})
	if err == nil && !long {
		err = fmt.Errorf("the waiting call %s was not in the state sent first (%d events)", id, len(seen))
	}
	if err == nil && !approved {
		err = fmt.Errorf("no error event for the 2 MiB line (%d events)", len(seen))
	}
	return seen, err
}

// attachSession runs `coplay attach --headless` in-process on the notebook data,
// handing each event it receives to on, which may send command lines and detach (end
// the client's stdin); it returns every event received once the client has ended. The
// tests that call it are serial: it lends the in-process run its stdin, and they set
// the process's XDG_RUNTIME_DIR for the owner and the client alike.
func attachSession(t *testing.T, data string, on func(ev agent.Event, send func(string), detach func())) ([]agent.Event, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	setStdin(t, inR)
	done := make(chan error, 1)
	var errOut strings.Builder
	go func() {
		done <- execute([]string{"attach", "--headless", "--data", data}, outW, &errOut)
		outW.Close()
	}()
	var seen []agent.Event
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	send := func(line string) { fmt.Fprintln(inW, line) }
	detach := func() { inW.Close() }
	for sc.Scan() {
		var ev agent.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return seen, fmt.Errorf("bad line %q: %v", sc.Text(), err)
		}
		seen = append(seen, ev)
		on(ev, send, detach)
	}
	inW.Close()
	if err := <-done; err != nil {
		return seen, fmt.Errorf("%v (stderr %s)", err, errOut.String())
	}
	if errOut.Len() > 0 { // detaching is no error
		return seen, fmt.Errorf("stderr: %s", errOut.String())
	}
	return seen, nil
}

// `coplay attach --headless` moves and asks as the owner's stdin does: the move and the
// question say they came via attach.
func TestAttachHeadlessMovesAndAsks(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	data := filepath.Join(t.TempDir(), "coplay.db")
	var (
		once      sync.Once
		attachWG  sync.WaitGroup
		attachErr error
		moved     *agent.Event
		asked     *agent.Event
		replied   bool
	)
	headlessRun(t, []string{"--approve", "ask", "--data", data, "--no-rate-limit"}, func(ev agent.Event, send func(agent.Command)) {
		switch {
		case ev.Type == agent.EventState && ev.State == agent.Deciding:
			once.Do(func() {
				attachWG.Add(1)
				go func() {
					defer attachWG.Done()
					sent := false
					_, attachErr = attachSession(t, data, func(ev agent.Event, send func(string), detach func()) {
						if !sent { // once the state so far has come
							sent = true
							send(`{"cmd":"play","tool":"observe_game"}`)
							send(`{"cmd":"ask","text":"what next?"}`)
						}
						if ev.Type == agent.EventReply {
							detach()
						}
					})
				}()
			})
		case ev.Type == agent.EventToolStart && ev.Call.By == agent.ByPerson:
			moved = &ev
		case ev.Type == agent.EventQuestion:
			asked = &ev
		case ev.Type == agent.EventReply:
			replied = true
			send(agent.Command{Cmd: agent.CmdStop})
		}
	})
	attachWG.Wait()
	if attachErr != nil {
		t.Fatal(attachErr)
	}
	if moved == nil || moved.Via != "attach" || asked == nil || asked.Via != "attach" || !replied {
		t.Fatalf("move %+v, question %+v, replied %v: want both via attach, and a reply", moved, asked, replied)
	}
}

// attachAndApproveWith runs the binary's `coplay attach --headless` with env, waits in what it receives
// for the call id to be waiting, approves it, and reads on until the decision comes
// back; it returns every event received.
func attachAndApproveWith(t *testing.T, env []string, data, id string) ([]agent.Event, error) {
	cmd := exec.Command(coplayBinary(t), "attach", "--headless", "--data", data)
	cmd.Env = append(os.Environ(), env...)
	var errOut strings.Builder
	inW, outR := startPiped(t, cmd, &errOut)
	var seen []agent.Event
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	approved, sawWaiting := false, false
	for sc.Scan() {
		var ev agent.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return seen, fmt.Errorf("bad line %q: %v", sc.Text(), err)
		}
		seen = append(seen, ev)
		if !approved && ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.ID == id && ev.Call.NeedsOK {
			sawWaiting, approved = true, true
			fmt.Fprintf(inW, `{"cmd":"decide","call_id":%q,"decision":"approve"}`+"\n", id)
		}
		if ev.Type == agent.EventDecision && ev.Decision != nil && ev.Decision.CallID == id {
			inW.Close() // detach
		}
	}
	inW.Close()
	if err := cmd.Wait(); err != nil {
		return seen, fmt.Errorf("%v (stderr %s)", err, errOut.String())
	}
	if !sawWaiting {
		return seen, fmt.Errorf("the waiting call %s was not in the state sent first (%d events)", id, len(seen))
	}
	return seen, nil
}

// TestAttachNameNothingPlaying: `coplay attach NAME` with nothing playing names NAME,
// and says how to start it; without a name it names the notebook.
func TestAttachNameNothingPlaying(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"XDG_RUNTIME_DIR=" + t.TempDir(), "XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir}
	var out, errOut strings.Builder
	if code := runEnv(t, env, []string{"attach", "heron-run", "--headless"}, &out, &errOut); code == 0 ||
		!strings.Contains(errOut.String(), "session heron-run is not playing") || !strings.Contains(errOut.String(), "--resume heron-run") {
		t.Fatalf("attach heron-run: exit %d, %q", code, errOut.String())
	}
	errOut.Reset()
	if code := runEnv(t, env, []string{"attach", "--headless"}, &out, &errOut); code == 0 || !strings.Contains(errOut.String(), "no coplay is playing in") {
		t.Fatalf("attach: exit %d, %q", code, errOut.String())
	}
}
