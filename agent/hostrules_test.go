package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/rules"
)

// Rules decide a server's questions and requests to use the model, by their exact name
// and the asking server: deny declines without asking, ask waits for the person even when
// play is handed over, and "allow *" (about the model's calls) does not reach them.
func TestRulesDecideHostRequests(t *testing.T) {
	t.Parallel()
	fixed := func(lines ...string) func(*agent.Config) {
		return func(c *agent.Config) {
			for _, l := range lines {
				c.Rules = append(c.Rules, agent.FixedRule{Line: l, From: "test"})
			}
		}
	}
	t.Run("deny declines a question unattended or not", func(t *testing.T) {
		for _, all := range []bool{false, true} {
			set := fixed("deny elicitation(server=dungeon): never answer it")
			h := startGame(t, &askGame{schema: doorSchema}, &scriptBrain{replies: []scripted{say("I ask.", "ask", "{}")}}, nil,
				func(c *agent.Config) { set(c); c.ApproveAll = all })
			ev := h.next("the answer", is(agent.EventAnswered))
			if ev.Elicitation.By != "rule" || !strings.Contains(ev.Elicitation.Reason, "deny elicitation") {
				t.Fatalf("approve all %v: answered by %q (%s), want the rule", all, ev.Elicitation.By, ev.Elicitation.Reason)
			}
			if got := h.resultOf("ask"); got != "decline " {
				t.Fatalf("approve all %v: the game got %q, want a decline", all, got)
			}
			if err := h.finish(); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("ask waits for the person when play is handed over", func(t *testing.T) {
		set := fixed("ask elicitation(server=dungeon)")
		h := startGame(t, &askGame{schema: doorSchema}, &scriptBrain{replies: []scripted{say("I ask.", "ask", "{}")}}, nil,
			func(c *agent.Config) { set(c); c.ApproveAll = true })
		q := h.next("the question", is(agent.EventElicitation)).Elicitation
		if !q.NeedsOK {
			t.Fatalf("question %+v does not wait for the person", q)
		}
		h.send(agent.Command{Cmd: agent.CmdAnswer, ID: q.ID, Action: "accept", Content: json.RawMessage(`{"door":"left"}`)})
		if got := h.resultOf("ask"); !strings.HasPrefix(got, `accept {"door":"left"`) {
			t.Fatalf("the game got %q, want the person's answer", got)
		}
		if err := h.finish(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("allow * is about calls, not questions", func(t *testing.T) {
		set := fixed("allow *")
		h := startGame(t, &askGame{schema: doorSchema}, &scriptBrain{replies: []scripted{say("I ask.", "ask", "{}")}}, nil, set)
		if q := h.next("the question", is(agent.EventElicitation)).Elicitation; !q.NeedsOK {
			t.Fatalf("allow * answered a server's question: %+v", q)
		}
		if err := h.finish(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("deny sampling, allow sampling", func(t *testing.T) {
		for line, want := range map[string]string{"deny sampling(server=dun*)": "declined", "allow sampling(server=dungeon)": "narration: Torches flicker."} {
			set := fixed(line)
			narration := scripted{reply: agent.Reply{Text: "Torches flicker."}}
			h := startGame(t, &askGame{}, &scriptBrain{replies: []scripted{say("I narrate.", "narrate", "{}"), narration}}, nil, set)
			if got := h.resultOf("narrate"); got != want {
				t.Fatalf("%s: the game got %q, want %q", line, got, want)
			}
			if err := h.finish(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// A rule over a host request is checked like a rule over a tool: its arguments are
// server (and message for a question).
func TestHostRulesAreChecked(t *testing.T) {
	t.Parallel()
	for line, bad := range map[string]bool{
		"deny elicitation(server=dungeon)": false,
		"ask elicitation(message=*door*)":  false,
		"allow sampling":                   false,
		"deny elicitation(srv=dungeon)":    true,
		"allow sampling(message=x)":        true,
		"allow sampling if cost <= 5":      true,
	} {
		_, err := rules.ParseChecked(line, nil)
		if (err != nil) != bad {
			t.Errorf("%q: error %v, want refused %v", line, err, bad)
		}
	}
}
