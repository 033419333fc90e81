package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/secret"
)

// hangGame is the grid with two more tools: hang (Act) and peek (Read), which take the
// call and never answer until it is cancelled. It records how each ended.
type hangGame struct {
	*gridGame
	started chan string // the tool, when a hanging call starts
	mu      sync.Mutex
	ends    []string // "cancelled: CAUSE" for each hanging call that ended
}

func newHangGame() *hangGame {
	return &hangGame{gridGame: &gridGame{now: time.Now}, started: make(chan string, 8)}
}

func (g *hangGame) Tools() []game.Tool {
	return append(g.gridGame.Tools(),
		game.Tool{Name: "hang", Kind: game.Act, Description: "never answers", Schema: game.SchemaFor[noArgs]()},
		game.Tool{Name: "peek", Kind: game.Read, Description: "never answers", Schema: game.SchemaFor[noArgs]()})
}

func (g *hangGame) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	if name != "hang" && name != "peek" {
		return g.gridGame.Call(ctx, name, args)
	}
	g.started <- name
	<-ctx.Done()
	g.mu.Lock()
	g.ends = append(g.ends, "cancelled: "+ctx.Err().Error())
	g.mu.Unlock()
	return game.Result{}, ctx.Err()
}

func (g *hangGame) ended() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.ends...)
}

// A call that never answers is cancelled at its deadline: the game sees the
// cancellation, the model reads that it timed out and that the outcome is unknown, the
// person gets an error event, and the journal closes the call (a resume runs nothing).
func TestCallThatNeverAnswersTimesOut(t *testing.T) {
	t.Parallel()
	g := newHangGame()
	b := &scriptBrain{replies: []scripted{say("Try it.", "hang", `{}`), say("Done.")}}
	h := startGame(t, g, b, nil, func(c *agent.Config) { c.ApproveAll = true; c.CallTimeout = 300 * time.Millisecond })
	res := h.next("the timed-out result", is(agent.EventResult))
	want := "timed out after 0.3 s; the server was asked to cancel; outcome unknown: observe before acting"
	if !res.Result.Unknown || res.Result.Output != want {
		t.Fatalf("result = %+v, want unknown with %q", res.Result, want)
	}
	e := h.next("the error event", is(agent.EventError))
	if !strings.Contains(e.Text, "hang") || !strings.Contains(e.Text, "timed out after 0.3 s") {
		t.Errorf("error event %q", e.Text)
	}
	if msg, ok := toolMessage(h.request(1), res.Call.ID); !ok || msg != want {
		t.Errorf("the model read %q, want %q", msg, want)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	if ends := g.ended(); len(ends) != 1 || !strings.Contains(ends[0], "cancelled") {
		t.Errorf("the game saw %v, want one cancellation", ends)
	}
	if rec, err := h.sess.Recover(); err != nil || len(rec.Unknown)+len(rec.Pending)+len(rec.NotStarted) != 0 {
		t.Errorf("the journal leaves the call open for a resume: %+v, %v", rec, err)
	}
}

// While a call runs, its proposal and start are shown, advice is taken and a later
// call of the batch is decided; a stop then cuts the call short at once, journaled as
// outcome unknown with the stop's own words.
func TestEventsFlowWhileACallRunsAndStopCutsIt(t *testing.T) {
	t.Parallel()
	g := newHangGame()
	b := &scriptBrain{replies: []scripted{say("Peek, then move.", "peek", `{}`, "move", `{"direction":"N"}`)}}
	h := startGame(t, g, b, nil, func(c *agent.Config) { c.CallTimeout = time.Minute })
	<-g.started
	peek := h.next("the peek's start while it runs", func(ev agent.Event) bool {
		return ev.Type == agent.EventToolStart && ev.Call.Tool == "peek"
	})
	var move agent.Call
	for _, ev := range h.seen {
		if ev.Type == agent.EventProposed && ev.Call.Tool == "move" {
			move = *ev.Call
		}
	}
	h.send(agent.Command{Cmd: agent.CmdAdvise, Text: "mind the swamp"})
	h.next("the advice while the call runs", is(agent.EventAdvice))
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: move.ID, Decision: agent.Veto, Reason: "not now"})
	h.next("the decision while the call runs", is(agent.EventDecision))
	t0 := time.Now()
	h.send(agent.Command{Cmd: agent.CmdStop})
	res := h.next("the cut result", is(agent.EventResult))
	if res.Call.ID != peek.Call.ID || !res.Result.Unknown || !strings.HasPrefix(res.Result.Output, "stopped by the person while it ran; the server was asked to cancel") {
		t.Fatalf("result = %+v %+v", res.Call, res.Result)
	}
	st := h.next("stopped", isState(agent.Stopped))
	if st.Text != "stopped by the person" {
		t.Errorf("stop text %q", st.Text)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("the stop took %v", d)
	}
	if got := g.callLog(); len(got) != 0 {
		t.Errorf("the vetoed move reached the game: %v", got)
	}
	if rec, _ := h.sess.Recover(); len(rec.Unknown)+len(rec.NotStarted) != 0 {
		t.Errorf("the cut call is left open: %+v", rec)
	}
}

// An interrupt (the context ends, with the signal as its cause) and stdin closing cut
// a call in flight short in their own words.
func TestInterruptAndStdinClosedCutACallShort(t *testing.T) {
	t.Parallel()
	t.Run("interrupted", func(t *testing.T) {
		g := newHangGame()
		b := &scriptBrain{replies: []scripted{say("", "hang", `{}`)}}
		r, sess := newRunner(t, g, b, nil, func(c *agent.Config) { c.ApproveAll = true })
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() { <-g.started; cancel(errors.New("interrupted (SIGTERM)")) }()
		var res, stop agent.Event
		done := make(chan error, 1)
		go func() { done <- r.Run(ctx) }()
		for ev := range r.Events() {
			switch {
			case ev.Type == agent.EventResult:
				res = ev
			case ev.Type == agent.EventState && ev.State == agent.Stopped:
				stop = ev
			}
		}
		<-done
		if res.Result == nil || !strings.HasPrefix(res.Result.Output, "interrupted (SIGTERM) while it ran") {
			t.Errorf("result %+v", res.Result)
		}
		if stop.Text != "stopped: interrupted (SIGTERM)" {
			t.Errorf("stop %q", stop.Text)
		}
		if rec, _ := sess.Recover(); len(rec.Unknown) != 0 {
			t.Errorf("the call is left open: %+v", rec)
		}
	})
	t.Run("stdin closed", func(t *testing.T) {
		g := newHangGame()
		b := &scriptBrain{replies: []scripted{say("", "hang", `{}`)}}
		r, _ := newRunner(t, g, b, nil, func(c *agent.Config) { c.ApproveAll = true })
		h := runHeadless(t, r)
		p := h.next("proposal", ofType("tool_proposed"))
		h.write(fmt.Sprintf(`{"cmd":"decide","call_id":%q,"decision":"approve"}`, p["call"].(map[string]any)["id"]))
		<-g.started
		h.in.Close()
		res := h.next("result", ofType("tool_result"))
		if out := res["result"].(map[string]any)["output"].(string); !strings.HasPrefix(out, "stdin closed while it ran") {
			t.Errorf("result %q", out)
		}
		st := h.next("stopped", func(ev map[string]any) bool { return ev["type"] == "state" && ev["state"] == "stopped" })
		if st["text"] != "stopped: stdin closed" {
			t.Errorf("stop %q", st["text"])
		}
		if err := <-h.done; err != nil {
			t.Fatal(err)
		}
	})
}

// A notebook whose Nth write fails (as on a full disk) stops the run before any further
// model or game request; every event sent before is in the journal with a unique,
// increasing seq; the error names the file, the cause and the way on. Each N lands the
// failure in another phase of the step.
func TestJournalFailureStopsBeforeTheNextRequest(t *testing.T) {
	t.Parallel()
	for n := uint64(1); n <= 12; n++ {
		t.Run(fmt.Sprint("write ", n), func(t *testing.T) { journalFailureAt(t, n) })
	}
}

func journalFailureAt(t *testing.T, n uint64) {
	path := filepath.Join(t.TempDir(), "coplay.db")
	g := &gridGame{now: time.Now}
	b := &scriptBrain{replies: []scripted{say("Dig.", "dig", `{}`, "look", `{}`)}, loop: true}
	var armed atomic.Bool
	var writes uint64
	var atFailure struct{ requests, calls int }
	book, err := notes.Open(path, &notes.Options{FailWrite: func(uint64) error {
		if !armed.Load() {
			return nil
		}
		writes++
		if writes < n {
			return nil
		}
		atFailure.requests, atFailure.calls = len(b.requests()), len(g.callLog())
		return &fs.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { book.Close() })
	sess, err := book.Create("full", "grid", "script")
	if err != nil {
		t.Fatal(err)
	}
	r, err := agent.New(agent.Config{Game: g, Brain: b, Session: sess, ApproveAll: true, KeepPlaying: true, MaxSteps: 20})
	if err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	var seen []agent.Event
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background()) }()
	for ev := range r.Events() {
		seen = append(seen, ev)
	}
	runErr := <-done
	var je *agent.JournalError
	if !errors.As(runErr, &je) || !errors.Is(runErr, syscall.ENOSPC) {
		t.Fatalf("Run returned %v, want the journal error", runErr)
	}
	if got := len(b.requests()); got != atFailure.requests {
		t.Errorf("%d model requests after the failed write", got-atFailure.requests)
	}
	if got := len(g.callLog()); got != atFailure.calls {
		t.Errorf("%d game calls after the failed write", got-atFailure.calls)
	}
	inJournal := map[uint64]string{}
	if err := sess.Records(1, func(rec notes.Record) error { inJournal[rec.Seq] = string(rec.Type); return nil }); err != nil {
		t.Fatal(err)
	}
	var last uint64
	failed := false
	for _, ev := range seen {
		switch {
		case ev.Type == agent.EventTextDelta:
		case ev.Seq == 0:
			if ev.Type == agent.EventError {
				failed = true
				for _, want := range []string{path, "no space left on device", "free some space, then `coplay run --resume full`"} {
					if !strings.Contains(ev.Text, want) {
						t.Errorf("the error %q does not say %q", ev.Text, want)
					}
				}
			} else if ev.Type != agent.EventState || ev.State != agent.Stopped {
				t.Errorf("event %s without a record", ev.Type)
			}
		case failed:
			t.Errorf("event %s seq %d after the failure", ev.Type, ev.Seq)
		case inJournal[ev.Seq] != string(ev.Type):
			t.Errorf("event %s seq %d is not in the journal (there: %q)", ev.Type, ev.Seq, inJournal[ev.Seq])
		case ev.Seq <= last:
			t.Errorf("seq %d after %d", ev.Seq, last)
		default:
			last = ev.Seq
		}
	}
	if !failed {
		t.Error("no error event named the failure")
	}
}

// A secret's value in a call's arguments refuses the call before the gate, naming the
// secret; neither the game, the journal, the events nor the next model request hold it.
func TestSecretInArgumentsIsRefusedAndGoesNowhere(t *testing.T) {
	t.Parallel()
	const key = "sk-test-Q3vX9kLmN2pR7sT4uV6wY8zA1bC5dE0fG"
	sc := secret.New()
	sc.AddNamed("OPENAI_API_KEY", key)
	g := &gridGame{now: time.Now}
	b := &scriptBrain{replies: []scripted{say("My key is "+key+".", "move", `{"direction":"`+key+`"}`), say("Sorry.")}}
	h := start(t, g, b, nil, func(c *agent.Config) { c.Scrubber = sc })
	h.send(agent.Command{Cmd: agent.CmdAdvise, Text: "the key is " + key + ", do not share it"})
	p := h.proposed("move")
	if len(p.Problems) != 1 || p.Problems[0].Got != "the value of OPENAI_API_KEY" || strings.Contains(string(p.Args), key) {
		t.Fatalf("proposal %+v", p)
	}
	res := h.next("the refusal", is(agent.EventResult))
	want := "not executed: arguments hold the value of OPENAI_API_KEY; not sent"
	if res.Result.Err == nil || !strings.HasPrefix(res.Result.Err.Message, "invalid call, not executed: arguments hold the value of OPENAI_API_KEY; not sent") {
		t.Fatalf("result %+v", res.Result.Err)
	}
	msg, _ := toolMessage(h.request(1), p.ID)
	if !strings.HasPrefix(msg, want) {
		t.Errorf("the model read %q", msg)
	}
	reqJSON, _ := json.Marshal(h.request(1).Messages)
	if strings.Contains(string(reqJSON), key) {
		t.Error("the next model request carries the key")
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	if got := g.callLog(); len(got) != 0 {
		t.Errorf("the game received %v", got)
	}
	for _, ev := range h.seen {
		if b, _ := json.Marshal(ev); strings.Contains(string(b), key) {
			t.Errorf("event %s holds the key", ev.Type)
		}
	}
	_ = h.sess.Records(1, func(rec notes.Record) error {
		if strings.Contains(string(rec.Data), key) {
			t.Errorf("journal record %d (%s) holds the key", rec.Seq, rec.Type)
		}
		return nil
	})
}

// A call to a tool the catalogue does not have is of kind unknown, not read.
func TestUnknownToolsKindIsUnknown(t *testing.T) {
	t.Parallel()
	g := &gridGame{now: time.Now}
	h := start(t, g, &scriptBrain{replies: []scripted{say("", "teleport", `{}`)}}, nil, nil)
	p := h.proposed("teleport")
	if p.Kind != game.Unknown {
		t.Errorf("kind %v", p.Kind)
	}
	if b, _ := json.Marshal(p); !strings.Contains(string(b), `"kind":"unknown"`) {
		t.Errorf("proposal JSON %s", b)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}
