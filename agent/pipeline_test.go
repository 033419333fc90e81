package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
	"github.com/coplayhq/coplay/notes"
)

// startEastWestWest runs a runner on the grid game whose model moves east, then west
// twice, and returns the three calls as proposed.
func startEastWestWest(t *testing.T) (h *harness, e, w1, w2 agent.Call) {
	t.Helper()
	b := &scriptBrain{replies: []scripted{say("East, then west twice.",
		"move", `{"direction":"E"}`, "move", `{"direction":"W"}`, "move", `{"direction":"W"}`)}}
	h = start(t, &gridGame{}, b, nil, nil)
	return h, h.proposed("move"), h.proposed("move"), h.proposed("move")
}

// Each call runs as soon as it and the calls before it are decided; after it, the world
// is observed again and the calls still waiting are dry-run on the new state, so a
// predicted failure is a failure and a warning only stands while an earlier call has
// not run yet.
func TestCallsRunAsApprovedAndDryRunsFollowTheWorld(t *testing.T) {
	t.Parallel()
	h, e, w1, w2 := startEastWestWest(t)
	if e.Simulation == nil || e.Simulation.Fails || e.Simulation.Warning != "" {
		t.Fatalf("first call's dry run = %+v, want a plain prediction", e.Simulation)
	}
	for _, c := range []agent.Call{w1, w2} {
		if c.Simulation == nil || c.Simulation.Fails || !strings.Contains(c.Simulation.Warning, "earlier call(s) of this step have not run yet") {
			t.Fatalf("call %s behind undecided calls: dry run %+v, want a warning", c.ID, c.Simulation)
		}
	}

	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: e.ID, Decision: agent.Approve})
	res := h.next("result of the first move", is(agent.EventResult))
	if res.Call.ID != e.ID || !strings.Contains(res.Result.Output, "moved to (1,0)") {
		t.Fatalf("first result: %+v %+v", res.Call, res.Result)
	}
	obs := h.next("observation after the first move", is(agent.EventObservation))
	if !strings.Contains(obs.Observation.Summary, "At (1,0)") {
		t.Fatalf("observation after the call: %q", obs.Observation.Summary)
	}
	up := h.next("dry run of the second move again", is(agent.EventToolUpdated))
	if up.Call.ID != w1.ID || up.Call.Simulation == nil || up.Call.Simulation.Fails || up.Call.Simulation.Warning != "" ||
		!strings.Contains(up.Call.Simulation.Summary, "(0,0)") {
		t.Fatalf("tool_updated = %+v %+v, want call %s predicted to reach (0,0)", up.Call, up.Call.Simulation, w1.ID)
	}
	if got := h.g.callLog(); len(got) != 1 {
		t.Fatalf("game calls %v before the others were decided; want only the first", got)
	}

	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: w1.ID, Decision: agent.Approve})
	up = h.next("dry run of the third move", func(ev agent.Event) bool {
		return ev.Type == agent.EventToolUpdated && ev.Call.ID == w2.ID && ev.Call.Simulation != nil && ev.Call.Simulation.Fails
	})
	if up.Call.Simulation.Warning != "" || !strings.Contains(up.Call.Simulation.Summary, "edge of the world") {
		t.Fatalf("third call's dry run with nothing left before it: %+v", up.Call.Simulation)
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: w2.ID, Decision: agent.Veto, Reason: "the edge"})
	h.next("idle", isState(agent.Idle))
	if got := strings.Join(h.g.callLog(), "|"); got != `move {"direction":"E"}|move {"direction":"W"}` {
		t.Fatalf("game calls = %s", got)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// The case, in the offline universe over loopback HTTP: orbit then navigate
// while docked. Approving only the orbit runs it, shows the ship in orbit and gives the
// navigate call a dry run that no longer fails, before the navigate call is decided.
func TestOrbitThenNavigateInTheOfflineUniverse(t *testing.T) {
	t.Parallel()
	g, b := orbitThenNavigate(t)
	h := startGame(t, g, b, nil, nil)

	orbit, nav := h.proposed("orbit_ship"), h.proposed("navigate_ship")
	if nav.Simulation == nil || nav.Simulation.Fails || nav.Simulation.Warning == "" {
		t.Fatalf("navigate while docked, behind an undecided orbit: %+v, want a warning", nav.Simulation)
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: orbit.ID, Decision: agent.Approve})
	res := h.next("orbit result", is(agent.EventResult))
	if res.Call.ID != orbit.ID || !res.Result.OK() {
		t.Fatalf("orbit: %+v", res.Result)
	}
	obs := h.next("observation after orbit", is(agent.EventObservation))
	if !strings.Contains(obs.Observation.Summary, "IN_ORBIT") {
		t.Fatalf("observation after orbit does not show the ship in orbit:\n%s", obs.Observation.Summary)
	}
	up := h.next("navigate dry run again", is(agent.EventToolUpdated))
	if up.Call.ID != nav.ID || up.Call.Simulation == nil || up.Call.Simulation.Fails || up.Call.Simulation.Warning != "" {
		t.Fatalf("navigate after orbit: %+v %+v, want a dry run that succeeds", up.Call, up.Call.Simulation)
	}
	for _, ev := range h.seen {
		if ev.Type == agent.EventDecision && ev.Decision.CallID == nav.ID {
			t.Fatal("the navigate call was decided before its new dry run came")
		}
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// orbitThenNavigate starts the offline universe (seed 7) until the test ends, and a
// brain that asks to orbit COPLAY-1 and, in the same turn, to fly it to X1-MA52-F1
// while it is still docked.
func orbitThenNavigate(t *testing.T) (game.Game, *scriptBrain) {
	t.Helper()
	off, err := spacetraders.StartOffline(universe.Config{Seed: 7}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { off.Close() })
	b := &scriptBrain{replies: []scripted{say("Undock and fly.",
		"orbit_ship", `{"shipSymbol":"COPLAY-1"}`,
		"navigate_ship", `{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-MA52-F1"}`)}}
	return off.Game, b
}

// tradeGame has one Act tool whose game-side Check refuses unknown trade goods and
// symbols that would break a URL path, as the SpaceTraders tools do.
type tradeGame struct {
	gridGame
}

type sellArgs struct {
	ShipSymbol string `json:"shipSymbol"`
	Symbol     string `json:"symbol"`
	Note       string `json:"note,omitempty"`
}

var goods = []string{"GOLD", "IRON_ORE", "FOOD"}

func (g *tradeGame) Tools() []game.Tool {
	return []game.Tool{{Name: "sell_cargo", Kind: game.Act, Description: "sell", Schema: game.SchemaFor[sellArgs](),
		Check: func(raw json.RawMessage) []game.Problem {
			var a sellArgs
			if err := json.Unmarshal(raw, &a); err != nil {
				return []game.Problem{{Path: "arguments", Expected: "sell arguments", Got: err.Error()}}
			}
			var probs []game.Problem
			if p := game.PathSegment("arguments.shipSymbol", a.ShipSymbol); p != nil {
				probs = append(probs, *p)
			}
			known := false
			for _, s := range goods {
				known = known || s == a.Symbol
			}
			if !known {
				p := game.Problem{Path: "arguments.symbol", Expected: "a trade good", Got: fmt.Sprintf("%q", a.Symbol)}
				if near := game.Closest(a.Symbol, goods, 1); len(near) > 0 {
					p.Hint = "did you mean " + near[0] + "?"
				}
				probs = append(probs, p)
			}
			return probs
		}}}
}

// Invalid calls (an unknown trade good, duplicate keys, "." and ".." as ship symbols,
// arguments over the size limit) are never put to the person nor reach the game; the
// model is told exactly why each was refused.
func TestInvalidCallsAreRefusedBeforeTheGateAndTheModelToldWhy(t *testing.T) {
	t.Parallel()
	g := &tradeGame{}
	g.now = time.Now
	big := `{"shipSymbol":"S-1","symbol":"GOLD","note":"` + strings.Repeat("x", agent.MaxArgsBytes) + `"}`
	b := &scriptBrain{replies: []scripted{say("Sell.",
		"sell_cargo", `{"shipSymbol":"S-1","symbol":"GOLDD"}`,
		"sell_cargo", `{"shipSymbol":"S-1","symbol":"GOLD","shipSymbol":"S-2"}`,
		"sell_cargo", `{"shipSymbol":"..","symbol":"GOLD"}`,
		"sell_cargo", `{"shipSymbol":".","symbol":"GOLD"}`,
		"sell_cargo", big,
	)}}
	h := startGame(t, g, b, nil, nil)
	var ids []string
	for range 5 {
		c := h.proposed("sell_cargo")
		if c.NeedsOK || len(c.Problems) == 0 {
			t.Fatalf("call %s: needs_ok %v, problems %v; want refused before the gate", c.ID, c.NeedsOK, c.Problems)
		}
		ids = append(ids, c.ID)
	}
	h.next("idle", isState(agent.Idle))
	for _, ev := range h.seen {
		if ev.Type == agent.EventState && ev.State == agent.Deciding {
			t.Fatal("an invalid call was put to the person")
		}
	}
	if got := g.callLog(); len(got) != 0 {
		t.Fatalf("invalid calls reached the game: %v", got)
	}
	req := h.request(1)
	for i, want := range []string{"did you mean GOLD?", "duplicate key shipSymbol", `".." are not symbols`,
		`"." and ".." are not symbols`, fmt.Sprintf("at most %d bytes", agent.MaxArgsBytes)} {
		msg, ok := toolMessage(req, ids[i])
		if !ok || !strings.Contains(msg, want) || !strings.Contains(msg, "not executed") {
			t.Errorf("the model was told about call %d: %q; want it to say %q", i, msg, want)
		}
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// revise replaces a waiting call's arguments after one validation, dry-runs it again
// and leaves it waiting; approving it then is an edit the model is told about.
func TestReviseRedryRunsAndApprovingItIsAnEdit(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("West.", "move", `{"direction":"W"}`)}}
	h := start(t, g, b, nil, nil)
	c := h.proposed("move")
	if c.Simulation == nil || !c.Simulation.Fails {
		t.Fatalf("dry run of W at x=0: %+v, want a failure", c.Simulation)
	}
	err := h.r.Send(agent.Command{Cmd: agent.CmdRevise, CallID: c.ID, Args: json.RawMessage(`{"direction":"Q"}`)})
	if err == nil || !strings.Contains(err.Error(), "arguments.direction") {
		t.Fatalf("invalid revise: %v, want refused with the problem", err)
	}
	h.send(agent.Command{Cmd: agent.CmdRevise, CallID: c.ID, Args: json.RawMessage(`{ "direction" : "E" }`)})
	up := h.next("tool_updated", func(ev agent.Event) bool {
		if ev.Type == agent.EventError {
			t.Fatalf("the refusal, returned to its sender, was also emitted: %s", ev.Text)
		}
		return ev.Type == agent.EventToolUpdated
	})
	if up.Call.ID != c.ID || string(up.Call.Args) != `{"direction":"E"}` || up.Call.Simulation == nil || up.Call.Simulation.Fails ||
		!up.Call.NeedsOK {
		t.Fatalf("after revise: %+v sim %+v", up.Call, up.Call.Simulation)
	}
	if len(g.callLog()) != 0 {
		t.Fatal("revise ran the call")
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve})
	d := h.next("decision", is(agent.EventDecision))
	if d.Decision.Decision != agent.Edit || string(d.Decision.Args) != `{"direction":"E"}` {
		t.Fatalf("approving a revised call journaled %+v, want an edit with the revised args", d.Decision)
	}
	msg, _ := toolMessage(h.request(1), c.ID)
	if !strings.Contains(msg, `direction: "W" → "E"`) {
		t.Fatalf("the model was told %q", msg)
	}
	if got := g.callLog(); len(got) != 1 || got[0] != `move {"direction":"E"}` {
		t.Fatalf("game calls %v", got)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// waitingGame reports a rate-limit wait of its own while observing, as a client does.
type waitingGame struct {
	gridGame
	failFirst bool // the first Observe fails
	observed  int
}

func (g *waitingGame) Observe(ctx context.Context) (game.Observation, error) {
	g.mu.Lock()
	g.observed++
	n := g.observed
	g.mu.Unlock()
	if g.failFirst && n == 1 {
		return game.Observation{}, fmt.Errorf("the server is down")
	}
	game.NotifyWait(ctx, game.Wait{Until: g.now().Add(time.Second), Reason: "rate limit"})
	game.NotifyWait(ctx, game.Wait{})
	return g.gridGame.Observe(ctx)
}

// A wait inside the game is shown as it happens (waiting with a countdown, state
// waiting, then the end and running again), and those events are journaled.
func TestTheGamesOwnWaitsAreEvents(t *testing.T) {
	t.Parallel()
	g := &waitingGame{}
	g.now = time.Now
	b := &scriptBrain{}
	h := startGame(t, g, b, nil, nil)
	w := h.next("waiting", is(agent.EventWaiting))
	if w.Wait.Until.IsZero() || w.Wait.Reason != "rate limit" || w.Seq == 0 {
		t.Fatalf("first waiting event: %+v", w)
	}
	h.next("state waiting", isState(agent.Sleeping))
	end := h.next("end of the wait", is(agent.EventWaiting))
	if !end.Wait.Until.IsZero() {
		t.Fatalf("the end of the wait: %+v", end.Wait)
	}
	h.next("running again", isState(agent.Running))
	h.next("observation", is(agent.EventObservation))
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// A step whose observation failed did not reach the world: it is not one of --steps.
func TestAStepWithoutAnObservationDoesNotCount(t *testing.T) {
	t.Parallel()
	g := &waitingGame{failFirst: true}
	g.now = time.Now
	b := &scriptBrain{replies: []scripted{say("Looking.", "look", `{}`)}, loop: true}
	h := startGame(t, g, b, nil, func(c *agent.Config) { c.MaxSteps = 1 })
	h.next("the failure", is(agent.EventError))
	h.next("idle", isState(agent.Idle))
	h.send(agent.Command{Cmd: agent.CmdResume})
	h.next("a step that reaches the model", is(agent.EventUsage))
	st := h.next("stopped", isState(agent.Stopped))
	if !strings.Contains(st.Text, "step limit") {
		t.Fatalf("stopped: %q", st.Text)
	}
	<-h.done
}

// echoGame repeats its token in everything it says, as a careless server error would.
type echoGame struct {
	gridGame
	token string
}

func (g *echoGame) Observe(ctx context.Context) (game.Observation, error) {
	o, err := g.gridGame.Observe(ctx)
	o.Summary += " (Authorization=Bearer " + g.token + ")"
	return o, err
}

func (g *echoGame) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	return game.Result{Output: "token " + g.token, Err: &game.Error{Code: 401,
		Message: "bad header Authorization=Bearer " + g.token,
		Data:    json.RawMessage(`{"header":"Bearer ` + g.token + `"}`)}}, nil
}

func TestSecretsNeverReachTheModelTheJournalOrTheScreen(t *testing.T) {
	t.Parallel()
	const token = "eyJhbGciOiJSUzI1NiJ9.secret-token"
	g := &echoGame{token: token}
	g.now = time.Now
	b := &scriptBrain{replies: []scripted{say("Look.", "look", `{}`)}}
	sess := newSession(t)
	h := start(t, &g.gridGame, b, sess, func(c *agent.Config) { c.Game = g; c.Secrets = []string{token} })
	h.next("idle", isState(agent.Idle))
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	for _, ev := range h.seen {
		j, _ := json.Marshal(ev)
		if strings.Contains(string(j), token) || strings.Contains(string(j), "secret-token") {
			t.Fatalf("an event carries the secret: %s", j)
		}
	}
	reqs := b.requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, req := range reqs {
		if txt := allText(req); strings.Contains(txt, "secret-token") {
			t.Fatalf("the model was handed the secret:\n%s", txt)
		}
	}
	if msg, _ := toolMessage(reqs[1], reqs[1].Messages[len(reqs[1].Messages)-1].ToolCallID); msg != "" && !strings.Contains(msg, agent.Redacted) {
		t.Logf("last tool message: %q", msg)
	}
	var buf strings.Builder
	if err := sess.Export(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "secret-token") {
		t.Fatal("the journal holds the secret")
	}
	if !strings.Contains(buf.String(), agent.Redacted) {
		t.Fatal("nothing was redacted: the test game did not echo")
	}
}

// A one-call step costs at most 3 commits (in fact about 2: the step and its world before
// the model; the reply, decisions and tool_started before the call; the result rides
// with the next step's first commit).
func TestCommitsPerStep(t *testing.T) {
	t.Parallel()
	sess := newSession(t)
	b := &scriptBrain{replies: []scripted{say("North.", "move", `{"direction":"N"}`)}, loop: true}
	r, err := agent.New(agent.Config{Game: &gridGame{now: time.Now}, Brain: b, Session: sess,
		ApproveAll: true, MaxSteps: 50, MaxIterations: 51})
	if err != nil {
		t.Fatal(err)
	}
	before := sess.Book().Commits()
	n := 0
	var seen []agent.Event
	runToEnd(t, context.Background(), r, func(ev agent.Event) {
		if ev.Type != agent.EventTextDelta {
			seen = append(seen, ev)
		}
		if ev.Type == agent.EventResult {
			n++
		}
		if ev.Type == agent.EventError {
			t.Fatal(ev.Text)
		}
	})
	per := float64(sess.Book().Commits()-before) / 50
	// Buffering loses nothing: every event sent is the journal record with its seq.
	byType := map[uint64]string{}
	if err := sess.Records(1, func(rec notes.Record) error { byType[rec.Seq] = string(rec.Type); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, ev := range seen {
		if byType[ev.Seq] != string(ev.Type) {
			t.Fatalf("event %s seq %d is not in the journal (record there: %q)", ev.Type, ev.Seq, byType[ev.Seq])
		}
	}
	t.Logf("%.2f commits per one-call step (%d calls)", per, n)
	if n != 50 || per > 3 {
		t.Fatalf("%d calls, %.2f commits per step; want 50 calls and at most 3 commits a step", n, per)
	}
}

// A note the model writes before it acts costs no commit of its own when a rule or the
// policy approved it: the notebook's edit is committed with the phase that holds its
// decision (both or neither survive a crash), and the move's start, committed before
// the move runs, takes them along. So a note-then-move step costs what a move alone
// does (issue 48: it cost one commit more, two fdatasync, before).
func TestNotesBeforeAMoveCostNoCommit(t *testing.T) {
	t.Parallel()
	commits := func(calls ...string) float64 {
		sess := newSession(t)
		b := &scriptBrain{replies: []scripted{say("North.", calls...)}, loop: true}
		r, err := agent.New(agent.Config{Game: &gridGame{now: time.Now}, Brain: b, Session: sess,
			ApproveAll: true, MaxSteps: 30, MaxIterations: 31})
		if err != nil {
			t.Fatal(err)
		}
		before := sess.Book().Commits()
		notes := 0
		runToEnd(t, context.Background(), r, func(ev agent.Event) {
			if ev.Type == agent.EventError {
				t.Fatal(ev.Text)
			}
			if ev.Type == agent.EventNotes {
				notes++
			}
		})
		if strings.Contains(strings.Join(calls, " "), "update_notes") && notes < 30 {
			t.Fatalf("%d notes events in 30 steps of update_notes", notes)
		}
		return float64(sess.Book().Commits()-before) / 30
	}
	alone := commits("move", `{"direction":"N"}`)
	noted := commits("update_notes", `{"section":"Situation","text":"Heading north."}`, "move", `{"direction":"N"}`)
	t.Logf("commits a step: a move alone %.2f, a note then a move %.2f", alone, noted)
	if noted > alone {
		t.Fatalf("a note before the move costs %.2f commits a step more", noted-alone)
	}
}

// TestVetoingAnEarlierCallRepredictsTheLaterOnes: a call that waited behind an Act call
// shows a predicted failure as a warning ("an earlier call may change that"); once that
// call is vetoed, nothing can, and the failure is shown as a failure at once.
func TestVetoingAnEarlierCallRepredictsTheLaterOnes(t *testing.T) {
	t.Parallel()
	h, e, w1, w2 := startEastWestWest(t)
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: e.ID, Decision: agent.Veto, Reason: "stay"})
	up := h.next("the second move predicted again", func(ev agent.Event) bool {
		return ev.Type == agent.EventToolUpdated && ev.Call.ID == w1.ID
	})
	if up.Call.Simulation == nil || !up.Call.Simulation.Fails || up.Call.Simulation.Warning != "" {
		t.Fatalf("after the veto, the second move's dry run = %+v; want a plain predicted failure", up.Call.Simulation)
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: w1.ID, Decision: agent.Veto})
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: w2.ID, Decision: agent.Veto})
	h.next("idle", isState(agent.Idle))
	if got := h.g.callLog(); len(got) != 0 {
		t.Fatalf("vetoed calls reached the game: %v", got)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}
