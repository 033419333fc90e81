package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
)

// headlessEvents runs `coplay run --headless` in-process with args and returns its
// events.
func headlessEvents(t *testing.T, args ...string) []agent.Event {
	t.Helper()
	stdin = strings.NewReader("")
	defer func() { stdin = nil }()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"run", "--headless", "--data", filepath.Join(t.TempDir(), "coplay.db")}, args...), &out, &errOut); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	var evs []agent.Event
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev agent.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("bad event line %q: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// With --approve all, a model that answers in prose every third request plays on to
// --steps 30 without ever going idle, and every usage event carries the cached tokens
// the scripted endpoint reports.
func TestHeadlessProseDoesNotIdleUnattended(t *testing.T) {
	evs := headlessEvents(t, "--brain", "script:../testdata/cassettes/prose.cassette.json", "--approve", "all", "--steps", "30")
	steps, usages, cached := 0, 0, 0
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventState:
			if ev.State == agent.Idle {
				t.Fatalf("idle at step %d: %s", ev.Step, ev.Text)
			}
		case agent.EventStep:
			steps++
		case agent.EventUsage:
			usages++
			if ev.Usage.CachedTokens > 0 {
				cached++
			}
		}
	}
	if last := evs[len(evs)-1]; steps != 30 || !strings.Contains(last.Text, "step limit of 30") {
		t.Fatalf("%d steps, ended with %q", steps, last.Text)
	}
	if cached < usages-1 {
		t.Fatalf("%d of %d usage events carry cached tokens; all but the first should", cached, usages)
	}
}

// The model calls wait for 3 s: a waiting event with its countdown, and the next model
// request comes by itself.
func TestHeadlessWaitThenPlayGoesOn(t *testing.T) {
	evs := headlessEvents(t, "--brain", "script:../testdata/cassettes/wait.cassette.json", "--approve", "all", "--steps", "2")
	var waited *agent.Event
	for i, ev := range evs {
		if ev.Type == agent.EventWaiting && ev.Wait != nil && !ev.Wait.Until.IsZero() {
			waited = &evs[i]
		}
		if ev.Type == agent.EventStep && ev.Step == 2 {
			if waited == nil {
				t.Fatal("step 2 came without a wait before it")
			}
			if d := ev.Time.Sub(waited.Time); d < 2500*time.Millisecond || d > 10*time.Second {
				t.Fatalf("step 2 came %v after the wait began, want about 3 s", d)
			}
			return
		}
	}
	t.Fatal("no step 2 after the wait")
}

// --max-tokens stops a long unattended run early and names the cap.
func TestHeadlessTokenCapStopsEarly(t *testing.T) {
	evs := headlessEvents(t, "--brain", "script:../testdata/cassettes/prose.cassette.json", "--approve", "all", "--steps", "200", "--max-tokens", "20000")
	last := evs[len(evs)-1]
	if last.State != agent.Stopped || !strings.Contains(last.Text, "token cap of 20000") || last.Step >= 200 {
		t.Fatalf("ended at step %d with %q", last.Step, last.Text)
	}
}
