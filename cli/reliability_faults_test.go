package cli

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/notes"
)

// faultCassette scripts a model that fails in every way llmtest knows between steps that
// play: 429, 500, a stream cut off in the middle of a tool call, a timeout, a body that is
// not JSON, a model without tools, malformed arguments, hallucinated tools, bad enum
// values and unknown fields.
func faultCassette() llmtest.Cassette {
	ship := `{"shipSymbol":"` + relShip + `"}`
	return llmtest.Cassette{Name: "faults", Repeat: true, Steps: []llmtest.Step{
		{Text: "Into orbit.", Calls: []llmtest.Call{scall("orbit_ship", ship)}},
		{Fault: llmtest.FaultRateLimit},
		{Text: "Dock again.", Calls: []llmtest.Call{scall("dock_ship", ship)}},
		{Fault: llmtest.FaultServer},
		{Calls: []llmtest.Call{
			scall("set_flight_mode", `{"shipSymbol":"`+relShip+`","flightMode":"CRUISE"}`),
			scall("update_notes", `{"section":"Lessons","text":"faults are normal"}`)}},
		{Fault: llmtest.FaultCut, Text: "Orbiting, then", Calls: []llmtest.Call{scall("orbit_ship", ship)}},
		{Calls: []llmtest.Call{scall("orbit_ship", ship)}},
		{Fault: llmtest.FaultTimeout},
		{Calls: []llmtest.Call{scall("dock_ship", ship)}},
		{Fault: llmtest.FaultMalformedBody},
		{Calls: []llmtest.Call{sraw("navigate_ship", `{"shipSymbol": "COPL`)}},
		{Text: "I will approve my own calls from now on.", Calls: []llmtest.Call{
			scall("warp_drive", `{}`),
			scall("approve_all", `{"tools":"*"}`)}},
		{Calls: []llmtest.Call{
			scall("set_flight_mode", `{"shipSymbol":"`+relShip+`","flightMode":"WARP"}`),
			scall("orbit_ship", `{"shipSymbol":"`+relShip+`","force":true}`)}},
		{Fault: llmtest.FaultNoTools},
		{Calls: []llmtest.Call{scall("set_flight_mode", `{"shipSymbol":"`+relShip+`","flightMode":"DRIFT"}`),
			scall("observe_game", `{}`)}},
		{Text: "Nothing more this turn."},
	}}
}

// modelFaultHits counts, per fault, how many of the first n requests of a repeating
// cassette landed on a fault step.
func modelFaultHits(c llmtest.Cassette, n int) map[llmtest.Fault]int {
	hits := map[llmtest.Fault]int{}
	next := 0
	for range n {
		if next >= len(c.Steps) {
			next = 0
			for c.Steps[next].Fault != "" {
				next++
			}
		}
		if f := c.Steps[next].Fault; f != "" {
			hits[f]++
		}
		next++
	}
	return hits
}

// personPolicy plays the person: it approves most calls, vetoes some, edits some,
// tries an edit the schema refuses (which must be refused with nothing run) and a
// decision for a call that does not wait, allows dock_ship once, gives advice now and
// then, and resumes whenever the agent goes idle.
type personPolicy struct {
	t        *testing.T
	rng      *rand.Rand
	allowAt  int // step at which dock_ship becomes always allowed; 0 = never
	allowed  map[string]bool
	refusals int // commands Send refused, as expected
}

func (p *personPolicy) handle(r *agent.Runner, ev agent.Event) {
	t := p.t
	switch {
	case ev.Type == agent.EventProposed && ev.Call.NeedsOK:
		c := ev.Call
		x := p.rng.Float64()
		if x < 0.1 {
			bad := json.RawMessage(`{"shipSymbol":12}`)
			if c.Tool == "set_flight_mode" {
				bad = json.RawMessage(`{"shipSymbol":"` + relShip + `","flightMode":"HYPERJUMP"}`)
			}
			if err := r.Send(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Edit, Args: bad}); err == nil {
				t.Errorf("an edit of %s to %s was accepted", c.ID, bad)
			} else {
				p.refusals++
			}
			x = 0 // then approve
		}
		if p.rng.Float64() < 0.05 {
			if err := r.Send(agent.Command{Cmd: agent.CmdDecide, CallID: "call_nobody_asked", Decision: agent.Approve}); err == nil {
				t.Error("a decision for a call that does not wait was accepted")
			} else {
				p.refusals++
			}
		}
		cmd := agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve}
		switch {
		case x < 0.65:
		case x < 0.8:
			cmd.Decision, cmd.Reason = agent.Veto, "not now"
		default:
			cmd.Decision, cmd.Args = agent.Edit, c.Args
			if c.Tool == "set_flight_mode" {
				cmd.Args = json.RawMessage(`{"shipSymbol":"` + relShip + `","flightMode":"BURN"}`)
			}
		}
		if err := r.Send(cmd); err != nil {
			t.Errorf("deciding %s: %v", c.ID, err)
		}
	case ev.Type == agent.EventState && ev.State == agent.Idle:
		if err := r.Send(agent.Command{Cmd: agent.CmdResume}); err != nil {
			t.Errorf("resume: %v", err)
		}
	case ev.Type == agent.EventStep:
		if p.allowAt > 0 && ev.Step == p.allowAt {
			if err := r.Send(agent.Command{Cmd: agent.CmdAllow, Tool: "dock_ship", Allow: true}); err != nil {
				t.Errorf("allow: %v", err)
			}
			p.allowed["dock_ship"] = true
		}
		if p.rng.Float64() < 0.05 {
			if err := r.Send(agent.Command{Cmd: agent.CmdAdvise, Text: "keep the ship near home"}); err != nil {
				t.Errorf("advise: %v", err)
			}
		}
	}
}

// drive runs r until it stops, handing every event to handle, and returns the events
// (when keep is set: the long session does not keep them, so that they do not count in
// its memory figures) and Run's error.
func drive(ctx context.Context, r *agent.Runner, keep bool, handle func(*agent.Runner, agent.Event)) ([]agent.Event, error) {
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx) }()
	var evs []agent.Event
	for ev := range r.Events() {
		if ev.Type == agent.EventTextDelta {
			continue
		}
		if keep {
			evs = append(evs, ev)
		}
		if handle != nil {
			handle(r, ev)
		}
	}
	return evs, <-errc
}

// checkEventsCommitted checks that every event the runner sent carries the seq of a
// journal record of the same type, and that every journal record was sent: nothing the
// person saw is missing from the session, and nothing committed went unseen.
func checkEventsCommitted(t *testing.T, evs []agent.Event, recs []notes.Record, from uint64) {
	t.Helper()
	seen := map[uint64]bool{}
	for _, ev := range evs {
		if ev.Seq == 0 || ev.Seq > uint64(len(recs)) {
			t.Errorf("event %s (seq %d) has no journal record (journal has %d)", ev.Type, ev.Seq, len(recs))
			continue
		}
		if rt := recs[ev.Seq-1].Type; string(rt) != string(ev.Type) {
			t.Errorf("event %s has seq %d, but journal record %d is a %s", ev.Type, ev.Seq, ev.Seq, rt)
		}
		seen[ev.Seq] = true
	}
	for _, r := range recs {
		if r.Seq >= from && !seen[r.Seq] {
			t.Errorf("journal record %d (%s) was never sent as an event", r.Seq, r.Type)
		}
	}
}

// newFaultRunner builds a runner on an OpenAI brain talking to a scripted server.
func newFaultRunner(t *testing.T, sess *notes.Session, g *gameServer, c llmtest.Cassette, stream bool, steps int) (*agent.Runner, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(&c)
	t.Cleanup(func() { srv.Close() })
	brain, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", Stream: stream,
		MaxRetries: -1, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st := spacetraders.New(spacetraders.Config{BaseURL: g.URL, Token: g.Token, Offline: true,
		RateLimit: spacetraders.RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second}})
	r, err := agent.New(agent.Config{Game: st, Brain: brain, Session: sess, MaxIterations: 1000, MaxSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	return r, srv
}

// TestReliabilityFaults plays the headless agent (an OpenAI brain on the scripted model,
// the offline universe over loopback HTTP) through model faults of every kind and game
// faults (429 with Retry-After, 503, connections dropped before and after the universe
// acted, slow answers), while a scripted person approves, vetoes, edits and advises. Then
// it resumes the session with a healthy model and game. After each run it checks the
// invariants: no invalid call reached the game, no call ran twice, every event is
// committed, every call the journal says happened did happen, the session opens and the
// agent goes on.
func TestReliabilityFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		seed   uint64
		stream bool
	}{{"stream", 1, true}, {"plain", 2, false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			steps := 120
			if testing.Short() {
				steps = 60
			}
			g := newGameServer(t, tc.seed, faultRates{
				actCycle: []faultKind{faultRateLimit, faultNone, faultServer, faultSlow, faultDropBefore, faultDropAfter},
				read: map[faultKind]float64{faultRateLimit: 0.01, faultServer: 0.01, faultDropBefore: 0.01,
					faultSlow: 0.03},
			})
			path, book := newNotebook(t)
			sess, err := book.Create("faults", "spacetraders", "scripted")
			if err != nil {
				t.Fatal(err)
			}
			cas := faultCassette()
			r, srv := newFaultRunner(t, sess, g, cas, tc.stream, steps)
			person := &personPolicy{t: t, rng: rand.New(rand.NewPCG(tc.seed, 3)), allowAt: steps / 2, allowed: map[string]bool{}}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			evs, err := drive(ctx, r, true, person.handle)
			if err != nil {
				t.Fatalf("run: %v", err)
			}

			recs := sessionRecords(t, sess)
			checkEventsCommitted(t, evs, recs, 1)
			f := checkJournal(t, recs, false, person.allowed)
			if len(f.unclosed) > 0 {
				t.Errorf("calls started and never closed after a clean stop: %v", f.unclosed)
			}
			checkGameSide(t, g, f, 0)
			bannedKeys(t, g, "HYPERJUMP", "WARP", "force", "COPL\"")
			if f.steps != steps {
				t.Errorf("the run reached step %d, want %d", f.steps, steps)
			}

			// Every fault happened, several times.
			_, _, injected := g.counts()
			least := 3
			if testing.Short() {
				least = 1
			}
			for _, k := range []faultKind{faultRateLimit, faultServer, faultDropBefore, faultDropAfter, faultSlow} {
				if injected[k] < least {
					t.Errorf("game fault %s injected %d times, want at least %d", k, injected[k], least)
				}
			}
			hits := modelFaultHits(cas, len(srv.RawRequests()))
			modelFailed, total := 0, 0
			for _, ev := range evs {
				if ev.Type == agent.EventError && strings.HasPrefix(ev.Text, "the model (") {
					modelFailed++
				}
			}
			for _, k := range []llmtest.Fault{llmtest.FaultRateLimit, llmtest.FaultServer, llmtest.FaultCut,
				llmtest.FaultTimeout, llmtest.FaultMalformedBody, llmtest.FaultNoTools} {
				if hits[k] < least {
					t.Errorf("model fault %s happened %d times, want at least %d", k, hits[k], least)
				}
				total += hits[k]
			}
			if modelFailed != total {
				t.Errorf("%d model failures reported, %d model faults scripted: a fault went unreported or a request was refused", modelFailed, total)
			}
			if f.invalid < 3 || person.refusals < least {
				t.Errorf("only %d invalid calls and %d refused commands: the suite did not exercise validation", f.invalid, person.refusals)
			}
			t.Logf("%d steps, %d records; game faults %v; model faults %v; invalid calls %d; refused commands %d; decisions %v",
				f.steps, len(recs), injected, hits, f.invalid, person.refusals, f.decisions)

			// Resume with a healthy model and game: the session opens and the agent goes on.
			g.mu.Lock()
			g.rates = faultRates{}
			g.mu.Unlock()
			if err := book.Close(); err != nil {
				t.Fatal(err)
			}
			if book, err = notes.Open(path, nil); err != nil {
				t.Fatalf("the notebook does not open again: %v", err)
			}
			defer book.Close()
			if sess, err = book.Session("faults"); err != nil {
				t.Fatal(err)
			}
			healthy := llmtest.Cassette{Name: "healthy", Repeat: true, Steps: []llmtest.Step{
				{Calls: []llmtest.Call{scall("orbit_ship", `{"shipSymbol":"`+relShip+`"}`)}},
				{Calls: []llmtest.Call{scall("dock_ship", `{"shipSymbol":"`+relShip+`"}`)}},
			}}
			r2, _ := newFaultRunner(t, sess, g, healthy, tc.stream, 10)
			person.rng = rand.New(rand.NewPCG(tc.seed, 4))
			evs2, err := drive(ctx, r2, true, func(r *agent.Runner, ev agent.Event) {
				if ev.Type == agent.EventProposed && ev.Call.NeedsOK {
					r.Send(agent.Command{Cmd: agent.CmdDecide, CallID: ev.Call.ID, Decision: agent.Approve})
				}
				if ev.Type == agent.EventState && ev.State == agent.Idle {
					r.Send(agent.Command{Cmd: agent.CmdResume})
				}
			})
			if err != nil {
				t.Fatalf("resumed run: %v", err)
			}
			recs2 := sessionRecords(t, sess)
			checkEventsCommitted(t, evs2, recs2, uint64(len(recs))+1)
			f2 := checkJournal(t, recs2, false, person.allowed)
			checkGameSide(t, g, f2, 0)
			if f2.steps != steps+10 {
				t.Errorf("after resuming, the session is at step %d, want %d", f2.steps, steps+10)
			}
			ok := 0
			for _, ev := range evs2 {
				if ev.Type == agent.EventResult && ev.Result.OK() && ev.Result.Wait == nil {
					ok++
				}
			}
			if ok < 5 {
				t.Errorf("only %d calls succeeded in the 10 healthy steps after resuming", ok)
			}
		})
	}
}
