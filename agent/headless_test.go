package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/league"
	"github.com/coplayhq/coplay/notes"
)

// headlessRun runs Headless over a pipe; lines come back one by one.
type headlessRun struct {
	t     *testing.T
	in    *io.PipeWriter
	out   *io.PipeWriter // closed when Headless returns; closing it ends the lines
	lines *bufio.Scanner
	done  chan error
}

func startHeadless(t *testing.T, g *gridGame, b *scriptBrain, sess *notes.Session, set func(*agent.Config)) *headlessRun {
	t.Helper()
	if g.now == nil {
		g.now = time.Now
	}
	r, _ := newRunner(t, g, b, sess, set)
	return runHeadless(t, r)
}

// runHeadless runs league.Headless over r, a lone run (a league of one unnamed seat),
// on pipes, until the test ends.
func runHeadless(t *testing.T, r *agent.Runner) *headlessRun {
	t.Helper()
	l, err := league.New("", []league.Seat{{Runner: r}})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &headlessRun{t: t, in: inW, out: outW, lines: bufio.NewScanner(outR), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		err := league.Headless(ctx, l, l.Events(), inR, outW)
		outW.Close()
		h.done <- err
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		go io.Copy(io.Discard, outR)
	})
	return h
}

// next reads JSON lines until one matches; every line must be an event with seq,
// time and type.
func (h *headlessRun) next(what string, match func(map[string]any) bool) map[string]any {
	h.t.Helper()
	for h.lines.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(h.lines.Bytes(), &ev); err != nil {
			h.t.Fatalf("output line is not JSON: %s", h.lines.Text())
		}
		for _, k := range []string{"seq", "time", "type"} {
			if _, ok := ev[k]; !ok {
				h.t.Fatalf("event without %s: %s", k, h.lines.Text())
			}
		}
		if ev["type"] == "text_delta" {
			h.t.Fatalf("headless wrote a text delta: %s", h.lines.Text())
		}
		if match(ev) {
			return ev
		}
	}
	h.t.Fatalf("output ended before %s", what)
	return nil
}

func (h *headlessRun) write(line string) {
	h.t.Helper()
	if _, err := fmt.Fprintln(h.in, line); err != nil {
		h.t.Fatal(err)
	}
}

func ofType(typ string) func(map[string]any) bool {
	return func(ev map[string]any) bool { return ev["type"] == typ }
}

func TestHeadlessDecisionsAndBadLines(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("North.", "move", `{"direction":"N"}`)}}
	h := startHeadless(t, g, b, nil, nil)
	p := h.next("proposal", ofType("tool_proposed"))
	call := p["call"].(map[string]any)
	if call["tool"] != "move" || call["id"] == "" || call["args"].(map[string]any)["direction"] != "N" {
		t.Fatalf("proposal = %v", p)
	}
	h.write(`{"cmd":"decide","call_id":"nope","decision":"approve"}`)
	e := h.next("error for line 1", ofType("error"))
	if !strings.Contains(e["text"].(string), "stdin line 1") || !strings.Contains(e["text"].(string), "nope") {
		t.Fatalf("error = %v", e["text"])
	}
	h.write(`{"cmd":"decide","call_id":"x",`)
	e = h.next("error for line 2", ofType("error"))
	if !strings.Contains(e["text"].(string), "stdin line 2") {
		t.Fatalf("error = %v", e["text"])
	}
	if len(g.callLog()) != 0 {
		t.Fatal("a bad line made something run")
	}
	h.write(fmt.Sprintf(`{"cmd":"decide","call_id":%q,"decision":"approve"}`, call["id"]))
	r := h.next("result", ofType("tool_result"))
	if r["result"].(map[string]any)["output"] != "moved to (0,1)" {
		t.Fatalf("result = %v", r)
	}
	h.next("idle", func(ev map[string]any) bool { return ev["type"] == "state" && ev["state"] == "idle" })
	// With stdin closed nobody can advise any more: the run stops.
	h.in.Close()
	h.next("stopped", func(ev map[string]any) bool { return ev["type"] == "state" && ev["state"] == "stopped" })
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
}

func TestHeadlessStepLimitWithApproveAll(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("", "dig", `{}`)}, loop: true}
	h := startHeadless(t, g, b, nil, func(c *agent.Config) { c.ApproveAll = true; c.MaxSteps = 5 })
	s := h.next("stopped", func(ev map[string]any) bool { return ev["type"] == "state" && ev["state"] == "stopped" })
	if !strings.Contains(s["text"].(string), "step limit") {
		t.Fatalf("stop = %v", s)
	}
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
	if n := len(g.callLog()); n != 5 {
		t.Fatalf("%d digs in 5 steps", n)
	}
}

// Headless, against the offline universe over loopback: a batch orbit_ship +
// navigate_ship while docked. Approving only the orbit gives its result, the world with
// the ship in orbit and the navigate call's new dry run (no longer failing), before the
// navigate call is decided.
func TestHeadlessOrbitThenNavigateRunsAsApproved(t *testing.T) {
	t.Parallel()
	g, b := orbitThenNavigate(t)
	r, _ := newRunner(t, g, b, nil, nil)
	h := runHeadless(t, r)
	h.lines.Buffer(make([]byte, 0, 1<<16), 1<<22)

	callOf := func(ev map[string]any) map[string]any { return ev["call"].(map[string]any) }
	orbit := callOf(h.next("orbit proposal", ofType("tool_proposed")))
	nav := callOf(h.next("navigate proposal", ofType("tool_proposed")))
	h.write(fmt.Sprintf(`{"cmd":"decide","call_id":%q,"decision":"approve"}`, orbit["id"]))
	res := h.next("orbit result", ofType("tool_result"))
	if callOf(res)["id"] != orbit["id"] {
		t.Fatalf("first result: %v", res)
	}
	obs := h.next("observation", ofType("observation"))
	if !strings.Contains(obs["observation"].(map[string]any)["summary"].(string), "IN_ORBIT") {
		t.Fatalf("observation after orbit: %v", obs)
	}
	up := callOf(h.next("tool_updated", ofType("tool_updated")))
	sim, _ := up["simulation"].(map[string]any)
	if up["id"] != nav["id"] || sim == nil || sim["fails"] != false || sim["warn"] != nil {
		t.Fatalf("tool_updated: %v", up)
	}
	h.write(fmt.Sprintf(`{"cmd":"decide","call_id":%q,"decision":"veto","reason":"not yet"}`, nav["id"]))
	h.next("idle", func(ev map[string]any) bool { return ev["type"] == "state" && ev["state"] == "idle" })
	h.in.Close()
	h.next("stopped", func(ev map[string]any) bool { return ev["type"] == "state" && ev["state"] == "stopped" })
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
}
