package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/coplayhq/coplay/agent"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
	"github.com/coplayhq/coplay/notes"
)

// gridGame is a tiny real game: a digger on a grid. move (Act, enum, dry run) changes
// the position, dig (Act) finds gold and may ask to wait for a cooldown, fail (Act)
// always fails, look (Read) reports. It counts every call that reaches it.
type gridGame struct {
	mu        sync.Mutex
	x, y      int
	gold      int
	calls     []string // "tool args" in the order they arrived
	digWait   time.Duration
	idleUntil time.Time
	now       func() time.Time
}

type direction string

type moveArgs struct {
	Direction direction `json:"direction" jsonschema:"where to go"`
}

type noArgs struct{}

func (g *gridGame) Info() game.Info {
	return game.Info{Name: "grid", Title: "Grid (test)", Rules: "Move on the grid and dig for gold."}
}

func (g *gridGame) Tools() []game.Tool {
	return []game.Tool{
		{Name: "look", Kind: game.Read, Description: "look around", Schema: game.SchemaFor[noArgs]()},
		{Name: "move", Kind: game.Act, Description: "move one square", DryRun: true,
			Schema: game.SchemaFor[moveArgs](game.WithEnum("direction", direction("N"), "E", "S", "W"))},
		{Name: "dig", Kind: game.Act, Description: "dig here", Schema: game.SchemaFor[noArgs]()},
		{Name: "fail", Kind: game.Act, Description: "always refused", Schema: game.SchemaFor[noArgs]()},
	}
}

func (g *gridGame) Observe(context.Context) (game.Observation, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return game.Observation{
		Summary:   fmt.Sprintf("At (%d,%d) with %d gold.", g.x, g.y, g.gold),
		Metrics:   []game.Metric{{Name: "gold", Value: float64(g.gold)}},
		Time:      g.now(),
		IdleUntil: g.idleUntil, IdleReason: "the digger is resting",
	}, nil
}

func (g *gridGame) Call(_ context.Context, name string, args json.RawMessage) (game.Result, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, name+" "+string(args))
	switch name {
	case "look":
		return game.Result{Output: fmt.Sprintf("at (%d,%d)", g.x, g.y)}, nil
	case "move":
		var a moveArgs
		if err := json.Unmarshal(args, &a); err != nil {
			return game.Result{}, err
		}
		dx, dy := delta(a.Direction)
		g.x, g.y = g.x+dx, g.y+dy
		return game.Result{Output: fmt.Sprintf("moved to (%d,%d)", g.x, g.y)}, nil
	case "dig":
		g.gold++
		res := game.Result{Output: fmt.Sprintf("found gold, now %d", g.gold)}
		if g.digWait > 0 {
			res.Wait = &game.Wait{Until: g.now().Add(g.digWait), Reason: "the drill is cooling down"}
		}
		return res, nil
	case "fail":
		return game.Result{Err: &game.Error{Code: 4000, Message: "the ground is too hard"}}, nil
	}
	return game.Result{}, errors.New("grid: no tool " + name)
}

func (g *gridGame) Simulate(_ context.Context, name string, args json.RawMessage) (game.Simulation, bool, error) {
	if name != "move" {
		return game.Simulation{}, false, nil
	}
	var a moveArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return game.Simulation{}, false, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	dx, dy := delta(a.Direction)
	if g.x+dx < 0 {
		return game.Simulation{Summary: "would fail: west of x=0 is the edge of the world", Fails: true}, true, nil
	}
	return game.Simulation{Summary: fmt.Sprintf("would move to (%d,%d)", g.x+dx, g.y+dy)}, true, nil
}

func delta(d direction) (int, int) {
	switch d {
	case "N":
		return 0, 1
	case "S":
		return 0, -1
	case "E":
		return 1, 0
	}
	return -1, 0
}

func (g *gridGame) callLog() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.calls...)
}

// scriptBrain answers each request with the next reply; past the end it answers text
// only, or repeats the last reply when loop is set. It keeps every request.
type scriptBrain struct {
	mu      sync.Mutex
	replies []scripted
	loop    bool
	reqs    []agent.Request
	// hold, if set, is called with the request's index before it is answered, outside
	// the lock: a test holds the model's answer there.
	hold func(i int)
}

type scripted struct {
	reply agent.Reply
	err   error
}

func (b *scriptBrain) Name() string { return "script" }

func (b *scriptBrain) Next(ctx context.Context, req agent.Request) (agent.Reply, error) {
	b.mu.Lock()
	b.reqs = append(b.reqs, req)
	i := len(b.reqs) - 1
	hold := b.hold
	b.mu.Unlock()
	if hold != nil {
		hold(i)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if i >= len(b.replies) {
		if b.loop && len(b.replies) > 0 {
			return b.replies[len(b.replies)-1].reply, nil
		}
		return agent.Reply{Text: "(end of script)"}, nil
	}
	s := b.replies[i]
	if req.OnDelta != nil && s.reply.Text != "" {
		req.OnDelta(s.reply.Text)
	}
	return s.reply, s.err
}

func (b *scriptBrain) requests() []agent.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]agent.Request(nil), b.reqs...)
}

// say builds a reply with calls given as tool, args pairs.
func say(text string, toolArgs ...string) scripted {
	r := agent.Reply{Text: text}
	for i := 0; i+1 < len(toolArgs); i += 2 {
		r.Calls = append(r.Calls, agent.ToolCall{Tool: toolArgs[i], Args: json.RawMessage(toolArgs[i+1])})
	}
	return scripted{reply: r}
}

// harness runs a agent.Runner in the background and lets a test read its events in order.
type harness struct {
	t    *testing.T
	r    *agent.Runner
	g    *gridGame
	b    *scriptBrain
	sess *notes.Session
	seen []agent.Event
	done chan error
	stop context.CancelFunc
}

// newSession is a session of the grid game in a new notebook, closed when the test ends.
func newSession(t testing.TB) *notes.Session {
	t.Helper()
	_, s := createSession(t, filepath.Join(t.TempDir(), "coplay.db"), "test", "grid", "script")
	return s
}

// createSession opens a new notebook at path, closed when the test ends, and creates
// the session name (of gameName, played by brainName) in it.
func createSession(tb testing.TB, path, name, gameName, brainName string) (*notes.Book, *notes.Session) {
	tb.Helper()
	book, err := notes.Open(path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { book.Close() })
	s, err := book.Create(name, gameName, brainName)
	if err != nil {
		tb.Fatal(err)
	}
	return book, s
}

// start runs a runner over g and b; set adjusts the config.
func start(t *testing.T, g *gridGame, b *scriptBrain, sess *notes.Session, set func(*agent.Config)) *harness {
	t.Helper()
	if g.now == nil {
		g.now = time.Now
	}
	h := startGame(t, g, b, sess, set)
	h.g = g
	return h
}

// newRunner makes a runner over any game and b on sess (a new session when nil); set
// adjusts the config.
func newRunner(t *testing.T, g game.Game, b *scriptBrain, sess *notes.Session, set func(*agent.Config)) (*agent.Runner, *notes.Session) {
	t.Helper()
	if sess == nil {
		sess = newSession(t)
	}
	cfg := agent.Config{Game: g, Brain: b, Session: sess}
	if set != nil {
		set(&cfg)
	}
	r, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r, sess
}

// startGame runs a runner over any game and b; set adjusts the config.
func startGame(t *testing.T, g game.Game, b *scriptBrain, sess *notes.Session, set func(*agent.Config)) *harness {
	t.Helper()
	r, sess := newRunner(t, g, b, sess, set)
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, r: r, b: b, sess: sess, done: make(chan error, 1), stop: cancel}
	go func() { h.done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		for range r.Events() {
		}
	})
	return h
}

// runToEnd runs r until it stops by itself, handing every event to each, and fails the
// test if Run fails.
func runToEnd(tb testing.TB, ctx context.Context, r *agent.Runner, each func(agent.Event)) {
	tb.Helper()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	for ev := range r.Events() {
		each(ev)
	}
	if err := <-done; err != nil {
		tb.Fatal(err)
	}
}

// eventWait bounds how long a test waits for an event it expects. It only turns a
// hang into a failure: on a busy machine (a build beside the tests, the race detector)
// a step can take seconds, so it is generous, and no test passes or fails by timing.
const eventWait = 2 * time.Minute

// next reads events until one matches, failing the test after eventWait or at the end.
func (h *harness) next(what string, match func(agent.Event) bool) agent.Event {
	h.t.Helper()
	timeout := time.After(eventWait)
	for {
		select {
		case ev, ok := <-h.r.Events():
			if !ok {
				h.t.Fatalf("events ended while waiting for %s; seen: %s", what, h.trail())
			}
			h.seen = append(h.seen, ev)
			if match(ev) {
				return ev
			}
		case <-timeout:
			h.t.Fatalf("no %s within %s; seen: %s", what, eventWait, h.trail())
		}
	}
}

func (h *harness) trail() string {
	var parts []string
	for _, ev := range h.seen[max(0, len(h.seen)-60):] {
		s := string(ev.Type)
		if ev.State != "" {
			s += "/" + string(ev.State)
		}
		if ev.Text != "" {
			s += fmt.Sprintf("(%.60s)", ev.Text)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func is(t agent.EventType) func(agent.Event) bool {
	return func(ev agent.Event) bool { return ev.Type == t }
}

func isState(s agent.State) func(agent.Event) bool {
	return func(ev agent.Event) bool { return ev.Type == agent.EventState && ev.State == s }
}

// proposed waits for a proposal of tool.
func (h *harness) proposed(tool string) agent.Call {
	h.t.Helper()
	ev := h.next("proposal of "+tool, func(ev agent.Event) bool { return ev.Type == agent.EventProposed && ev.Call.Tool == tool })
	return *ev.Call
}

func (h *harness) send(c agent.Command) {
	h.t.Helper()
	if err := h.r.Send(c); err != nil {
		h.t.Fatalf("Send(%+v): %v", c, err)
	}
}

// finish stops the runner and returns what Run returned, after reading every event.
func (h *harness) finish() error {
	h.t.Helper()
	_ = h.r.Send(agent.Command{Cmd: agent.CmdStop})
	for ev := range h.r.Events() {
		h.seen = append(h.seen, ev)
	}
	return <-h.done
}

// toolMessage returns the content of the tool message answering a call in req.
func toolMessage(req agent.Request, callID string) (string, bool) {
	for _, m := range req.Messages {
		if m.Role == agent.RoleTool && m.ToolCallID == callID {
			return m.Content, true
		}
	}
	return "", false
}

// lastRequest returns the brain's latest request, waiting for it to exist.
func (h *harness) request(i int) agent.Request {
	h.t.Helper()
	deadline := time.Now().Add(eventWait)
	for time.Now().Before(deadline) {
		if reqs := h.b.requests(); len(reqs) > i {
			return reqs[i]
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatalf("the brain never got request %d", i)
	return agent.Request{}
}

func allText(req agent.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// startUniverse starts the offline universe (seed 1, at 1000 times its speed) from a
// saved state (nil: a new one); it stops when the test ends.
func startUniverse(tb testing.TB, state []byte) *spacetraders.Offline {
	tb.Helper()
	off, err := spacetraders.StartOffline(universe.Config{Seed: 1, Speed: 1000}, state, "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { off.Close() })
	return off
}
