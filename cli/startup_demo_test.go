package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// demoCassette is the scripted model README's demo plays.
const demoCassette = "../testdata/cassettes/demo.cassette.json"

// TestReadmeDemoPlaysTheDefaultUniverse plays README's demo against the universe its
// line starts (seed 1, default speed), headless with --approve all, and checks that the
// game took every call: no tool result is an error and no error event appears. It stops
// after the cassette's last step with calls: the step after it only talks, which ends the
// turn and would wait for a person.
//
// The rate limit is off: approving everything at once sends the demo's 40 or so requests
// in three bursts, which drains the universe's burst pool, and an observation refused
// with a 429 is then an error event (a fault of the client's pacing, not of the script;
// a person approving by hand stays well inside the limit).
func TestReadmeDemoPlaysTheDefaultUniverse(t *testing.T) {
	c, err := llmtest.Load(demoCassette)
	if err != nil {
		t.Fatal(err)
	}
	steps, calls := 0, 0
	for i, st := range c.Steps {
		if len(st.Calls) > 0 {
			steps = i + 1
		}
		calls += len(st.Calls)
	}
	data := filepath.Join(t.TempDir(), "coplay.db")
	stdin = strings.NewReader("")
	defer func() { stdin = nil }()
	var out, errOut bytes.Buffer
	code := run([]string{"run", "--headless", "--approve", "all", "--data", data,
		"--no-rate-limit", "--brain", "script:" + demoCassette, "--steps", strconv.Itoa(steps)}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}

	results, stopped := 0, ""
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev agent.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("bad event line %q: %v", sc.Text(), err)
		}
		switch ev.Type {
		case agent.EventError:
			t.Errorf("error event at seq %d: %s", ev.Seq, ev.Text)
		case agent.EventResult:
			results++
			if ev.Result == nil || !ev.Result.OK() {
				t.Errorf("%s %s: %s", ev.Call.Tool, ev.Call.Args, resultText(ev))
			}
		case agent.EventState:
			if ev.State == agent.Stopped {
				stopped = ev.Text
			}
		}
	}
	if results != calls {
		t.Errorf("%d tool results for the cassette's %d calls", results, calls)
	}
	if !strings.Contains(stopped, "step limit") {
		t.Errorf("the run stopped with %q, want the step limit", stopped)
	}
	if t.Failed() {
		t.Logf("events:\n%s", tail(out.String(), 6000))
	}
}

// resultText is what a failed result said.
func resultText(ev agent.Event) string {
	b, _ := json.Marshal(ev.Result)
	return string(b)
}
