package agent_test

import (
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

func TestParseCommand(t *testing.T) {
	t.Parallel()
	good := map[string]agent.Command{
		`{"cmd":"decide","call_id":"c1","decision":"approve"}`:            {Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve},
		`{"cmd":"decide","call_id":"c1","decision":"veto","reason":"no"}`: {Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Veto, Reason: "no"},
		`{"cmd":"advise","text":"sell the ore"}`:                          {Cmd: agent.CmdAdvise, Text: "sell the ore"},
		` {"cmd":"stop"} `:                                                {Cmd: agent.CmdStop},
		`{"cmd":"allow","tool":"dig","allow":false}`:                      {Cmd: agent.CmdAllow, Tool: "dig"},
		`{"cmd":"rule","rule":"allow dig"}`:                               {Cmd: agent.CmdRule, Rule: "allow dig"},
		`{"cmd":"unrule","rule":"deny dig: no"}`:                          {Cmd: agent.CmdUnrule, Rule: "deny dig: no"},
	}
	for line, want := range good {
		got, err := agent.ParseCommand([]byte(line))
		if err != nil || got.Cmd != want.Cmd || got.CallID != want.CallID || got.Decision != want.Decision ||
			got.Reason != want.Reason || got.Text != want.Text || got.Tool != want.Tool || got.Allow != want.Allow || got.Rule != want.Rule {
			t.Errorf("ParseCommand(%s) = %+v, %v; want %+v", line, got, err, want)
		}
	}
	// Every command may name a league's seat.
	seated, err := agent.ParseCommand([]byte(`{"cmd":"advise","seat":"Finch","text":"rest"}`))
	if err != nil || seated.Seat != "Finch" || seated.Text != "rest" {
		t.Errorf("seated advice = %+v, %v", seated, err)
	}
	line, err := agent.MarshalCommand(seated)
	if back, perr := agent.ParseCommand(line); err != nil || perr != nil || back.Seat != "Finch" {
		t.Errorf("MarshalCommand(%+v) = %s (%v), read back as %+v (%v)", seated, line, err, back, perr)
	}
	for _, line := range []string{`{"cmd":"play","tool":"move","args":{"direction":"E"},"force":true}`, `{"cmd":"take_over","on":false}`,
		`{"cmd":"ask","seat":"Me","text":"why?"}`, `{"cmd":"play","tool":"look"}`} {
		c, err := agent.ParseCommand([]byte(line))
		if err != nil {
			t.Errorf("ParseCommand(%s): %v", line, err)
			continue
		}
		out, err := agent.MarshalCommand(c)
		if back, perr := agent.ParseCommand(out); err != nil || perr != nil || string(back.Args) != string(c.Args) || back.Force != c.Force || back.On != c.On || back.Text != c.Text {
			t.Errorf("%s round-trips as %s (%v, %v)", line, out, err, perr)
		}
	}
	edit, err := agent.ParseCommand([]byte(`{"cmd":"decide","call_id":"c1","decision":"edit","args":{"direction":"S"}}`))
	if err != nil || string(edit.Args) != `{"direction":"S"}` {
		t.Errorf("edit = %+v, %v", edit, err)
	}
	rev, err := agent.ParseCommand([]byte(`{"cmd":"revise","call_id":"c1","args":{"direction":"S"}}`))
	if err != nil || rev.Cmd != agent.CmdRevise || rev.CallID != "c1" || string(rev.Args) != `{"direction":"S"}` {
		t.Errorf("revise = %+v, %v", rev, err)
	}
	bad := map[string]string{
		``:                                "EOF",
		`[]`:                              "cannot unmarshal",
		`null`:                            "null",
		`{"cmd":"fly"}`:                   "unknown cmd",
		`{"cmd":"advice","text":"x"}`:     `unknown cmd "advice": did you mean "advise"?`,
		`{"cmd":"stop","text":"x"}`:       `"text" is not used`,
		`{"cmd":"stop","colour":1}`:       "unknown field",
		`{"cmd":"stop"} {"cmd":"stop"}`:   "extra data",
		`{"cmd":"advise"}`:                `"text" is required`,
		`{"cmd":"advise","text":"  "}`:    "empty",
		`{"cmd":"advise","text":null}`:    "null",
		`{"cmd":"allow","tool":"dig"}`:    `"allow" is required`,
		`{"cmd":"decide","call_id":"c1"}`: `"decision" is required`,
		`{"cmd":"decide","call_id":"c1","decision":"auto"}`:                  "not approve, veto or edit",
		`{"cmd":"decide","call_id":"c1","decision":"edit"}`:                  "needs args",
		`{"cmd":"decide","call_id":"c1","decision":"edit","args":[1]}`:       "needs args",
		`{"cmd":"decide","call_id":"c1","decision":"approve","args":{}}`:     "args go with an edit",
		`{"cmd":"decide","call_id":"c1","decision":"approve","reason":"ok"}`: "reason goes with a veto",
		`{"cmd":"decide","call_id":"","decision":"approve"}`:                 "call_id is empty",
		`{"cmd":"decide","call_id":"c1","decision":"approve","allow":true}`:  `"allow" is not used`,
		`{"cmd":"revise","call_id":"c1"}`:                                    `"args" is required`,
		`{"cmd":"rule"}`:                                                     `"rule" is required`,
		`{"cmd":"rule","rule":" "}`:                                          "rule is empty",
		`{"cmd":"unrule","rule":"allow dig","tool":"dig"}`:                   `"tool" is not used`,
		`{"cmd":"revise","args":{}}`:                                         `"call_id" is required`,
		`{"cmd":"revise","call_id":"c1","args":"x"}`:                         "args must be a JSON object",
		`{"cmd":"revise","call_id":"","args":{}}`:                            "call_id is empty",
		`{"cmd":"revise","call_id":"c1","args":{},"decision":"approve"}`:     `"decision" is not used`,
		`{"cmd":"stop","seat":null}`:                                         `field "seat" is null`,
		`{"cmd":"stop","seat":5}`:                                            "cannot unmarshal",
		`{"cmd":"play"}`:                                                     `"tool" is required`,
		`{"cmd":"play","tool":" "}`:                                          "tool is empty",
		`{"cmd":"play","tool":"move","args":[1]}`:                            "args must be a JSON object",
		`{"cmd":"play","tool":"move","text":"x"}`:                            `"text" is not used`,
		`{"cmd":"take_over"}`:                                                `"on" is required`,
		`{"cmd":"ask","text":""}`:                                            "text is empty",
		`{"cmd":"ask"}`:                                                      `"text" is required`,
	}
	for line, want := range bad {
		_, err := agent.ParseCommand([]byte(line))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCommand(%s) = %v, want an error containing %q", line, err, want)
		}
	}
}
