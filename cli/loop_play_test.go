package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// TestHeadlessLoopPausesForThePerson: a scripted model that calls an MCP server's
// read-only look with {} over and over, answered the same each time, under --approve
// all: play pauses for the person with a loop event naming the repeated call, before
// the 10th call runs; the model was told once before.
func TestHeadlessLoopPausesForThePerson(t *testing.T) {
	t.Parallel()
	f, url, _ := faultsHTTP(t)
	dir := t.TempDir()
	cassette := writeCassette(t, dir, llmtest.Cassette{Name: "look-loop", Repeat: true, Steps: []llmtest.Step{
		{Text: "Let me look again.", Calls: []llmtest.Call{scall("look", `{}`)}},
	}})
	var loop *agent.Event
	evs := headlessRun(t, []string{"--data", filepath.Join(dir, "coplay.db"), "--game", "mcp", "--mcp", url,
		"--brain", "script:" + cassette, "--approve", "all"},
		func(ev agent.Event, send func(agent.Command)) {
			switch {
			case ev.Type == agent.EventLoop:
				loop = &ev
			case ev.Type == agent.EventState && ev.State == agent.Paused:
				send(agent.Command{Cmd: agent.CmdStop})
			}
		})
	if loop == nil || loop.Call == nil || loop.Call.Tool != "look" || !strings.Contains(loop.Text, "look {}") {
		t.Fatalf("loop event = %+v", loop)
	}
	looks := 0
	for _, r := range f.Records() {
		if strings.HasPrefix(r, "look") {
			looks++
		}
	}
	if looks >= 10 || looks != agent.LoopStopAt {
		t.Fatalf("look ran %d times; want play paused after %d, before the 10th", looks, agent.LoopStopAt)
	}
	paused := false
	for _, ev := range evs {
		if ev.Type == agent.EventState && ev.State == agent.Paused {
			paused = true
		}
		if paused && ev.Type == agent.EventToolStart {
			t.Fatalf("a call started after play paused: %+v", ev.Call)
		}
	}
}
