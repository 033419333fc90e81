package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// While `coplay run --headless` plays and a call waits for the person, the read-only
// commands read the same notebook through the playing coplay: sessions (table and
// JSON), export and replay answer, and the session played is marked.
func TestSessionsWhileAnotherCoplayPlays(t *testing.T) {
	t.Parallel() // the child and the in-process commands find the socket in the same (default) directory
	data := filepath.Join(t.TempDir(), "coplay.db")
	checked := false
	headlessRun(t, []string{"--approve", "ask", "--data", data, "--no-rate-limit", "--steps", "3"}, func(ev agent.Event, send func(agent.Command)) {
		if ev.Type != agent.EventProposed || ev.Call == nil || !ev.Call.NeedsOK || checked {
			return
		}
		checked = true
		out, err := sessions(t, "--json", "--data", data)
		if err != nil {
			t.Fatalf("sessions --json while another coplay plays: %v", err)
		}
		var list []struct {
			Name    string `json:"name"`
			Playing bool   `json:"playing"`
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || !list[0].Playing {
			t.Fatalf("sessions --json = %s (%v): want the one session, playing", out, err)
		}
		name := list[0].Name
		if out, err := sessions(t, "--data", data); err != nil || !strings.Contains(out, name+" (playing now)") {
			t.Errorf("sessions table = %q, %v", out, err)
		}
		if out, err := sessions(t, "export", name, "--data", data); err != nil || !strings.Contains(out, "# ") {
			t.Errorf("export while playing = %.200q, %v", out, err)
		}
		if out, err := sessions(t, "replay", name, "--json", "--data", data); err != nil || !strings.Contains(out, `"step"`) {
			t.Errorf("replay --json while playing = %.200q, %v", out, err)
		}
		if _, err := sessions(t, "rm", name, "--data", data); err == nil || !strings.Contains(err.Error(), "in use by another coplay") {
			t.Errorf("rm while playing: %v, want refused as in use", err)
		}
		send(agent.Command{Cmd: agent.CmdStop})
	})
	if !checked {
		t.Fatal("no call waited for the person: nothing was checked")
	}
}
