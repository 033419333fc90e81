package agent_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/brain/braintest"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/agent/openai"
)

// cassetteBrain serves a cassette from agent/testdata/cassettes over loopback and
// returns an agent/openai brain for it, so these tests go through the real wire format.
func cassetteBrain(t *testing.T, name string, set func(*openai.Config)) (agent.Brain, *llmtest.Server) {
	t.Helper()
	c, err := llmtest.Load(filepath.Join("testdata", "cassettes", name))
	if err != nil {
		t.Fatal(err)
	}
	return openaiBrain(t, c, set)
}

// openaiBrain serves cassette c over loopback until the test ends and returns an
// agent/openai brain for it (llmtest.BrainConfig, changed by set if not nil).
func openaiBrain(t testing.TB, c *llmtest.Cassette, set func(*openai.Config)) (*openai.Brain, *llmtest.Server) {
	t.Helper()
	srv := braintest.ServeCassette(t, c)
	return openaiKind.On(t, srv, set), srv
}

// openaiKind and claudeKind are the two model brains as braintest opens them on a
// scripted server, with llmtest's settings.
var (
	openaiKind = braintest.Kind[openai.Config, *openai.Brain]{Config: llmtest.BrainConfig, Open: openai.New}
	claudeKind = braintest.Kind[anthropic.Config, *anthropic.Brain]{Config: llmtest.AnthropicConfig, Open: anthropic.New}
)

// startWith runs a runner with any brain (the harness's own script brain unused).
func startWith(t *testing.T, g *gridGame, brain agent.Brain, set func(*agent.Config)) *harness {
	t.Helper()
	return start(t, g, &scriptBrain{}, nil, func(c *agent.Config) {
		c.Brain = brain
		if set != nil {
			set(c)
		}
	})
}

// toolContent finds what the server was told about a call in request i.
func toolContent(t *testing.T, srv *llmtest.Server, i int, callID string) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("the server got %d requests, want more than %d", len(reqs), i)
	}
	for _, m := range reqs[i].Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			return m.Content
		}
	}
	t.Fatalf("request %d has no tool message for %s", i, callID)
	return ""
}

func TestCassetteBatchVetoEditAndAdvice(t *testing.T) {
	t.Parallel()
	brain, srv := cassetteBrain(t, "batch-veto.cassette.json", nil)
	g := &gridGame{}
	h := startWith(t, g, brain, nil)
	n, e, look := h.proposed("move"), h.proposed("move"), h.proposed("look")
	if n.ID == "" || e.ID == n.ID || look.NeedsOK {
		t.Fatalf("batch = %+v %+v %+v", n, e, look)
	}
	h.send(agent.Command{Cmd: agent.CmdAdvise, Text: "mind the cliff to the north"})
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: n.ID, Decision: agent.Veto, Reason: "cliff to the north"})
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: e.ID, Decision: agent.Approve})

	again := h.proposed("move")
	if got := strings.Join(g.callLog(), "|"); got != `move {"direction":"E"}|look {}` {
		t.Fatalf("game calls after the first batch = %s", got)
	}
	veto := toolContent(t, srv, 1, n.ID)
	if !strings.Contains(veto, "cliff to the north") || !strings.Contains(veto, "Do not repeat") {
		t.Fatalf("the model was told %q about the veto", veto)
	}
	if got := toolContent(t, srv, 1, e.ID); got != "moved to (1,0)" {
		t.Fatalf("the model was told %q about the approved move", got)
	}
	var sawAdvice bool
	for _, m := range srv.Requests()[1].Messages {
		sawAdvice = sawAdvice || (m.Role == "user" && strings.Contains(m.Content, "mind the cliff") && strings.Contains(m.Content, "update_notes"))
	}
	if !sawAdvice {
		t.Fatal("advice given while deciding did not reach the model at the next step")
	}

	if err := h.r.Send(agent.Command{Cmd: agent.CmdDecide, CallID: again.ID, Decision: agent.Edit,
		Args: json.RawMessage(`{"direction":"NE"}`)}); err == nil {
		t.Fatal("an invalid edit was accepted")
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: again.ID, Decision: agent.Edit, Args: json.RawMessage(`{"direction":"S"}`)})
	u := h.next("usage of the last step", func(ev agent.Event) bool { return ev.Type == agent.EventUsage && ev.Step == 3 })
	if u.Usage.PromptTokens != 1200 || u.Usage.PromptChars == 0 {
		t.Fatalf("usage = %+v, want the cassette's 1200 prompt tokens and a measured size", u.Usage)
	}
	if got := toolContent(t, srv, 2, again.ID); !strings.Contains(got, `direction: "N" → "S"`) {
		t.Fatalf("the model was told %q about the edit", got)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestCassetteModelFaultsDoNotEndTheSession(t *testing.T) {
	t.Parallel()
	brain, _ := cassetteBrain(t, "faults.cassette.json", func(c *openai.Config) {
		c.MaxRetries = -1 // every fault reaches the runner
		c.Timeout = 300 * time.Millisecond
	})
	g := &gridGame{}
	h := startWith(t, g, brain, nil)
	for i, fault := range []string{"429", "500", "cut", "timeout", "no_tools", "malformed_body"} {
		ev := h.next("error for fault "+fault, is(agent.EventError))
		if !strings.Contains(ev.Text, "model") {
			t.Errorf("fault %s: error %q does not say the model failed", fault, ev.Text)
		}
		h.next("idle after fault "+fault, isState(agent.Idle))
		h.send(agent.Command{Cmd: agent.CmdAdvise, Text: "try again " + string(rune('a'+i))})
	}
	c := h.proposed("move")
	if len(c.Problems) == 0 || c.NeedsOK {
		t.Fatalf("malformed arguments: %+v", c)
	}
	h.next("the end of the script", func(ev agent.Event) bool { return ev.Type == agent.EventText && ev.Text == "Nothing more to do." })
	if len(g.callLog()) != 0 {
		t.Fatalf("malformed arguments reached the game: %v", g.callLog())
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}
