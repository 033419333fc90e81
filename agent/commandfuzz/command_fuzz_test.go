// Package commandfuzz fuzzes agent.ParseCommand, the headless command line parser, in a
// test binary of its own. Go's fuzzing engine copies every coverage counter of the test
// binary after each input, so a target's cost grows with the code linked beside it:
// agent's own test binary links all of agent's tests (116,000 counters) and ran this
// target several times slower than this package does (docs/RELIABILITY.md, Fuzzing).
package commandfuzz_test

import (
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

func FuzzParseCommand(f *testing.F) {
	f.Add([]byte(`{"cmd":"decide","call_id":"c1","decision":"edit","args":{"a":1}}`))
	f.Add([]byte(`{"cmd":"advise","text":"go"}`))
	f.Add([]byte(`{"cmd":"play","tool":"move","args":{"direction":"E"},"force":true}`))
	f.Add([]byte(`{"cmd":"take_over","on":false}`))
	f.Add([]byte(`{"cmd":"ask","text":"why?"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := agent.ParseCommand(line)
		if err != nil {
			return
		}
		// Whatever parses is a command the runner understands, with what it needs.
		switch c.Cmd {
		case agent.CmdDecide:
			if c.CallID == "" || (c.Decision != agent.Approve && c.Decision != agent.Veto && c.Decision != agent.Edit) {
				t.Fatalf("accepted a bad decision: %+v", c)
			}
			if (c.Decision == agent.Edit) != (len(c.Args) > 0) {
				t.Fatalf("args and edit disagree: %+v", c)
			}
		case agent.CmdAdvise:
			if strings.TrimSpace(c.Text) == "" {
				t.Fatalf("accepted empty advice: %q", line)
			}
		case agent.CmdAllow:
			if c.Tool == "" {
				t.Fatalf("accepted allow without a tool: %q", line)
			}
		case agent.CmdRevise:
			if c.CallID == "" || len(c.Args) == 0 {
				t.Fatalf("accepted a revise without a call or args: %q", line)
			}
		case agent.CmdRule, agent.CmdUnrule:
			if strings.TrimSpace(c.Rule) == "" {
				t.Fatalf("accepted a rule command without a rule: %q", line)
			}
		case agent.CmdAnswer:
			if c.ID == "" || c.Action == "" {
				t.Fatalf("accepted an answer without an id or action: %q", line)
			}
		case agent.CmdPlay:
			if strings.TrimSpace(c.Tool) == "" || len(c.Args) > 0 && strings.TrimSpace(string(c.Args))[0] != '{' {
				t.Fatalf("accepted a move without a tool or with arguments that are no object: %q", line)
			}
		case agent.CmdAsk:
			if strings.TrimSpace(c.Text) == "" {
				t.Fatalf("accepted an empty question: %q", line)
			}
		case agent.CmdPause, agent.CmdResume, agent.CmdStop, agent.CmdKeepPlaying, agent.CmdTakeOver:
		default:
			t.Fatalf("accepted unknown cmd %q", c.Cmd)
		}
	})
}
