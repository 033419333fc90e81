package agent

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Every command MarshalCommand writes, ParseCommand reads back the same; false booleans
// that a command requires are written.
func TestMarshalCommandRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []Command{
		{Cmd: CmdDecide, CallID: "c1", Decision: Approve},
		{Cmd: CmdDecide, CallID: "c1", Decision: Veto, Reason: "keep CRUISE"},
		{Cmd: CmdDecide, CallID: "c1", Decision: Edit, Args: json.RawMessage(`{"a":1}`)},
		{Cmd: CmdAdvise, Text: "sell first"},
		{Cmd: CmdPause}, {Cmd: CmdResume}, {Cmd: CmdStop},
		{Cmd: CmdAllow, Tool: "orbit_ship", Allow: false},
		{Cmd: CmdAllow, Tool: "orbit_ship", Allow: true},
		{Cmd: CmdKeepPlaying, On: false},
		{Cmd: CmdKeepPlaying, On: true},
		{Cmd: CmdRule, Rule: "allow orbit_ship"},
		{Cmd: CmdRevise, CallID: "c2", Args: json.RawMessage(`{"b":2}`)},
	} {
		line, err := MarshalCommand(c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		back, err := ParseCommand(line)
		if err != nil {
			t.Fatalf("%s does not parse: %v", line, err)
		}
		if !reflect.DeepEqual(back, c) {
			t.Errorf("%s reads back as %+v, want %+v", line, back, c)
		}
	}
	if _, err := MarshalCommand(Command{Cmd: CmdDecide}); err == nil {
		t.Error("a decide without a call marshalled")
	}
	// Via never travels: a client cannot claim to be another screen.
	line, _ := MarshalCommand(Command{Cmd: CmdPause, Via: "ssh:someone"})
	if string(line) != `{"cmd":"pause"}` {
		t.Errorf("pause with via = %s", line)
	}
}
