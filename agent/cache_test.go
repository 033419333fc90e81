package agent_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
)

// dockingCassette is the scripted model of the cache measurements: the command ship
// orbits and docks in turn, with a look at it every fifth step. proseEvery > 0 makes
// every proseEvery-th answer prose without a call, as real models often answer.
func dockingCassette(proseEvery int) *llmtest.Cassette {
	c := &llmtest.Cassette{Name: "docking", Model: "scripted", Repeat: true}
	act := func(tool, args, text string) llmtest.Step {
		return llmtest.Step{Text: text, Calls: []llmtest.Call{{Tool: tool, Args: json.RawMessage(args)}}}
	}
	ship := `{"shipSymbol":"COPLAY-1"}`
	pattern := []llmtest.Step{
		act("orbit_ship", ship, "Into orbit."),
		act("dock_ship", ship, "Docking again."),
		act("orbit_ship", ship, ""),
		act("dock_ship", ship, ""),
		act("observe_detail", `{"view":"ship","shipSymbol":"COPLAY-1"}`, "A look at the ship."),
	}
	for i := 0; len(c.Steps) < 30; i++ {
		if proseEvery > 0 && (len(c.Steps)+1)%proseEvery == 0 {
			c.Steps = append(c.Steps, llmtest.Step{Text: "Let me think about the best route before the next move."})
			continue
		}
		c.Steps = append(c.Steps, pattern[i%len(pattern)])
	}
	return c
}

// promptText is what a provider's prefix cache compares: the request's tools, then its
// messages, as sent.
func promptText(t testing.TB, body []byte) []byte {
	var req struct {
		Tools    json.RawMessage `json:"tools"`
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("a request body is not JSON: %v", err)
	}
	return append(append([]byte{}, req.Tools...), req.Messages...)
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// playOffline plays steps steps with brain against the offline universe (seed 1),
// every call approved, in a new session name; set, if not nil, changes the runner's
// configuration. It returns every event.
func playOffline(t testing.TB, name string, brain agent.Brain, steps int, set func(*agent.Config)) []agent.Event {
	t.Helper()
	off, err := spacetraders.StartOffline(universe.Config{Seed: 1}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	_, sess := createSession(t, filepath.Join(t.TempDir(), "coplay.db"), name, "universe", "scripted")
	cfg := agent.Config{Game: off.Game, Brain: brain, Session: sess, ApproveAll: true, KeepPlaying: true, MaxSteps: steps,
		QuietPause: 10 * time.Millisecond}
	if set != nil {
		set(&cfg)
	}
	r, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var events []agent.Event
	runToEnd(t, ctx, r, func(ev agent.Event) { events = append(events, ev) })
	return events
}

// cacheFigures plays steps steps of the docking script against the offline universe
// through the real OpenAI wire format, every call approved, and measures on the wire
// the mean prefix reuse over requests 10..steps (the share of each request that
// repeats the one before byte for byte) and the size of request steps over request 20.
func cacheFigures(t testing.TB, steps int) (reuse, growth float64, srv *llmtest.Server, events []agent.Event) {
	return cacheFiguresProse(t, steps, 0)
}

// cacheFiguresProse is cacheFigures with an answer in prose every proseEvery requests.
func cacheFiguresProse(t testing.TB, steps, proseEvery int) (reuse, growth float64, srv *llmtest.Server, events []agent.Event) {
	t.Helper()
	brain, srv := openaiBrain(t, dockingCassette(proseEvery), nil)
	events = playOffline(t, "cache", brain, steps, nil)
	raw := srv.RawRequests()
	if len(raw) < steps {
		t.Fatalf("the model was asked %d times, want %d", len(raw), steps)
	}
	if steps < 20 {
		return 0, 0, srv, events
	}
	var sum float64
	n := 0
	prev := promptText(t, raw[8])
	for i := 9; i < steps; i++ { // requests 10..steps, 1-based
		cur := promptText(t, raw[i])
		sum += float64(commonPrefix(prev, cur)) / float64(len(cur))
		n++
		prev = cur
	}
	last := promptText(t, raw[steps-1])
	twentieth := promptText(t, raw[19])
	return sum / float64(n), float64(len(last)) / float64(len(twentieth)), srv, events
}

// TestPromptIsCacheStable: over 200 steps, each request repeats at least 95% of the one
// before as a byte prefix on average (what a provider's prompt cache can serve), and the
// prompt stays bounded (request 200 at most 1.2 times request 20).
func TestPromptIsCacheStable(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays 200 steps")
	}
	reuse, growth, srv, _ := cacheFigures(t, 200)
	lo, hi := toolChars(t, srv)
	t.Logf("mean prefix reuse over requests 10-200: %.3f; request 200 / request 20: %.2f; tool definitions %d-%d characters a request", reuse, growth, lo, hi)
	if hi != lo {
		t.Errorf("the tool definitions changed size during play (%d-%d characters): they should be byte-identical", lo, hi)
	}
	if reuse < 0.95 {
		t.Errorf("mean prefix reuse %.3f, want at least 0.95", reuse)
	}
	if growth > 1.2 {
		t.Errorf("request 200 is %.2f times request 20, want at most 1.2", growth)
	}
}

// BenchmarkPromptCache prints the cache figures of a 200-step run: go test -run '^$'
// -bench PromptCache ./agent/
func BenchmarkPromptCache(b *testing.B) {
	for b.Loop() {
		reuse, growth, srv, _ := cacheFigures(b, 200)
		_, hi := toolChars(b, srv)
		b.ReportMetric(float64(hi), "tool_chars/req")
		b.ReportMetric(reuse, "prefix_reuse")
		b.ReportMetric(growth, "req200/req20")
	}
}

// toolChars is the least and most characters of tool definitions a request carried.
func toolChars(t testing.TB, srv *llmtest.Server) (lo, hi int) {
	lo = -1
	for _, body := range srv.RawRequests() {
		var req struct {
			Tools json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		if n := len(req.Tools); lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, len(req.Tools))
	}
	return lo, hi
}
