package cli

// The person plays too (issue 45), headless against the offline universe with a
// scripted OpenAI-wire model: their own moves, a question, and the wheel.

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// steer runs `coplay run --headless` in-process with args and a scripted model, hands
// every event to on (which may answer with commands, or end stdin with done), and
// returns the events once the run ends. The tests that call it are serial: it sets the
// process's environment and lends the in-process run its stdin.
func steer(t *testing.T, model *llmtest.Server, args []string, on func(ev agent.Event, send func(agent.Command), done func())) []agent.Event {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("OPENAI_BASE_URL", model.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test-coplay-0000")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	setStdin(t, inR)
	code := make(chan int, 1)
	var errOut bytes.Buffer
	go func() {
		c := run(append([]string{"run", "--headless", "--no-rate-limit", "--model", "scripted"}, args...), outW, &errOut)
		outW.Close()
		code <- c
	}()
	send := func(c agent.Command) {
		line, err := agent.MarshalCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := inW.Write(append(line, '\n')); err != nil {
			t.Errorf("sending %s: %v", line, err)
		}
	}
	var evs []agent.Event
	eachEvent(t, outR, func(ev agent.Event, _ []byte) {
		evs = append(evs, ev)
		on(ev, send, func() { inW.Close() })
	})
	inW.Close()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d; stderr:\n%s", c, errOut.String())
	}
	return evs
}

// lastMessage is the last message of a chat-completions request body, and whether an
// assistant message of it holds a call of tool.
func lastMessage(t *testing.T, body []byte, tool string) (last string, held bool) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolCalls []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			held = held || c.Function.Name == tool
		}
	}
	return req.Messages[len(req.Messages)-1].Content, held
}

// The person's move, a bad move and a question (issue 45's first three checks).
func TestPersonsMoveAndQuestionHeadless(t *testing.T) {
	model := llmtest.NewServer(&llmtest.Cassette{Name: "coplay", Model: "scripted", Steps: []llmtest.Step{
		{Text: "A look first.", Calls: []llmtest.Call{scall("observe_game", `{}`)}},
		{Text: "Done for now."},
		{Text: "I see you set DRIFT."},
		{Text: "DRIFT saves fuel on a long hop.", Calls: []llmtest.Call{scall("dock_ship", `{"shipSymbol":"COPLAY-1"}`)}},
	}})
	defer model.Close()
	drift := json.RawMessage(`{"shipSymbol":"COPLAY-1","flightMode":"DRIFT"}`)
	idle, asked := 0, false
	var moveResult, refusal, reply *agent.Event
	data := filepath.Join(t.TempDir(), "coplay.db")
	evs := steer(t, model, []string{"--data", data}, func(ev agent.Event, send func(agent.Command), done func()) {
		switch {
		case ev.Type == agent.EventState && ev.State == agent.Idle:
			idle++
			switch idle {
			case 1:
				send(agent.Command{Cmd: agent.CmdPlay, Tool: "set_flight_mode", Args: drift})
			case 2:
				asked = true
				send(agent.Command{Cmd: agent.CmdAsk, Text: "why drift?"})
			}
		case ev.Type == agent.EventResult && ev.Call.By == agent.ByPerson:
			moveResult = &ev
			send(agent.Command{Cmd: agent.CmdPlay, Tool: "set_flight_mode", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1","flightMode":"WARP"}`)})
		case ev.Type == agent.EventError && refusal == nil && strings.Contains(ev.Text, "WARP"):
			refusal = &ev
			send(agent.Command{Cmd: agent.CmdResume})
		case ev.Type == agent.EventReply:
			reply = &ev
			done()
		}
	})
	if moveResult == nil || !moveResult.Result.OK() || !strings.Contains(moveResult.Result.Output, "is now DRIFT") {
		t.Fatalf("the move's result: %+v", moveResult)
	}
	if refusal == nil || !strings.Contains(refusal.Text, "flightMode") {
		t.Fatalf("the WARP move was not refused naming flightMode: %+v", refusal)
	}
	if !asked || reply == nil || reply.Text != "DRIFT saves fuel on a long hop." {
		t.Fatalf("the question's reply: %+v", reply)
	}
	started, proposedAfter := 0, 0
	seenQuestion := false
	for _, ev := range evs {
		if ev.Type == agent.EventToolStart && ev.Call.By == agent.ByPerson {
			started++
			if !strings.Contains(string(ev.Call.Args), "DRIFT") {
				t.Errorf("a move started with %s", ev.Call.Args)
			}
		}
		seenQuestion = seenQuestion || ev.Type == agent.EventQuestion
		if seenQuestion && ev.Type == agent.EventProposed {
			proposedAfter++
		}
	}
	if started != 1 || proposedAfter != 0 {
		t.Errorf("%d moves started (want 1: WARP runs nothing), %d calls proposed after the question (want 0)", started, proposedAfter)
	}
	raw := model.RawRequests()
	if len(raw) != 4 {
		t.Fatalf("%d model requests, want 4", len(raw))
	}
	last, held := lastMessage(t, raw[2], "set_flight_mode")
	if !strings.Contains(last, "is now DRIFT") || !strings.Contains(last, "The person played these moves themselves") || held {
		t.Errorf("the request after the move (an assistant message holds it: %v) ends:\n%s", held, last)
	}
	var before, ask struct {
		Tools      json.RawMessage `json:"tools"`
		ToolChoice string          `json:"tool_choice"`
	}
	if err := json.Unmarshal(raw[2], &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw[3], &ask); err != nil {
		t.Fatal(err)
	}
	if ask.ToolChoice != "none" || string(ask.Tools) != string(before.Tools) {
		t.Errorf("the question's request: tool_choice %q, the same tools as before: %v", ask.ToolChoice, string(ask.Tools) == string(before.Tools))
	}

	// The export shows the move and the question as the person's.
	export := runInProcess(t, "sessions", "export", onlySession(t, data)[0].Name, "-o", "-", "--data", data)
	for _, want := range []string{"**set_flight_mode**", "**played by the person** (via stdin)", "is now DRIFT",
		"? **The person asked**: why drift?", "**The agent answered**: DRIFT saves fuel on a long hop."} {
		if !strings.Contains(export, want) {
			t.Errorf("the export lacks %q:\n%s", want, export)
		}
	}
	if testing.Verbose() {
		t.Log(export)
	}
	// So does the replay.
	var moves, questions []string
	for _, line := range strings.Split(strings.TrimSpace(runInProcess(t, "sessions", "replay", onlySession(t, data)[0].Name, "--json", "--data", data)), "\n") {
		var st agent.ReplayStep
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatalf("bad replay line %q: %v", line, err)
		}
		for _, m := range st.Moves {
			moves = append(moves, m.By+" "+m.Tool+" "+string(m.Args)+" → "+m.Result.Output)
		}
		for _, q := range st.Questions {
			questions = append(questions, q.Question+" → "+q.Answer)
		}
		for _, c := range st.Calls {
			if c.Tool == "set_flight_mode" {
				t.Errorf("the replay lists the person's move among the model's calls: %+v", c)
			}
		}
	}
	if len(moves) != 1 || !strings.HasPrefix(moves[0], "person set_flight_mode") || !strings.Contains(moves[0], "is now DRIFT") {
		t.Errorf("replay moves: %q", moves)
	}
	if len(questions) != 1 || questions[0] != "why drift? → DRIFT saves fuel on a long hop." {
		t.Errorf("replay questions: %q", questions)
	}
}

// Play handed over, the model calling read tools on its own: taking the wheel stops the
// model requests (none while the person plays three moves), and the first request
// after handing it back carries the three moves (issue 45's fourth check).
func TestTakeOverHeadless(t *testing.T) {
	model := llmtest.NewServer(&llmtest.Cassette{Name: "looker", Model: "scripted", Repeat: true, Steps: []llmtest.Step{
		{Text: "A look.", Calls: []llmtest.Call{scall("observe_game", `{}`)}},
		{Text: "The ship.", Calls: []llmtest.Call{scall("observe_detail", `{"view":"ship","shipSymbol":"COPLAY-1"}`)}},
	}})
	defer model.Close()
	moves := []agent.Command{
		{Cmd: agent.CmdPlay, Tool: "set_flight_mode", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1","flightMode":"DRIFT"}`)},
		{Cmd: agent.CmdPlay, Tool: "orbit_ship", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)},
		{Cmd: agent.CmdPlay, Tool: "set_flight_mode", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1","flightMode":"CRUISE"}`)},
	}
	took, played, atWheel, handedBack, after := false, 0, -1, false, -1
	steer(t, model, []string{"--data", filepath.Join(t.TempDir(), "coplay.db")}, func(ev agent.Event, send func(agent.Command), done func()) {
		switch {
		case ev.Type == agent.EventStarted:
			send(agent.Command{Cmd: agent.CmdKeepPlaying, On: true})
		case !took && ev.Type == agent.EventResult && ev.Call.By == "":
			took = true
			send(agent.Command{Cmd: agent.CmdTakeOver, On: true})
		case ev.Type == agent.EventWheel && ev.Plays == agent.PlaysPerson:
			atWheel = len(model.RawRequests())
			send(moves[0])
		case ev.Type == agent.EventResult && ev.Call.By == agent.ByPerson:
			if !ev.Result.OK() {
				t.Errorf("move %s %s: %+v", ev.Call.Tool, ev.Call.Args, ev.Result)
			}
			if played++; played < len(moves) {
				send(moves[played])
				return
			}
			if n := len(model.RawRequests()); n != atWheel {
				t.Errorf("%d model requests while the person held the wheel", n-atWheel)
			}
			send(agent.Command{Cmd: agent.CmdTakeOver, On: false})
		case ev.Type == agent.EventWheel && ev.Plays == agent.PlaysAgent:
			handedBack = true
		case handedBack && after < 0 && ev.Type == agent.EventUsage:
			after = atWheel
			send(agent.Command{Cmd: agent.CmdStop})
		}
	})
	if played != 3 || after < 0 {
		t.Fatalf("%d moves played, a request after the hand-back: %v", played, after >= 0)
	}
	last, held := lastMessage(t, model.RawRequests()[after], "orbit_ship")
	for _, want := range []string{"took the wheel", "is now DRIFT", "orbit_ship", "is now CRUISE"} {
		if !strings.Contains(last, want) {
			t.Errorf("the first request after the hand-back lacks %q:\n%s", want, last)
		}
	}
	if held {
		t.Error("an assistant message holds the person's orbit_ship")
	}
}

// A seat of the person's own in an arena league (issue 45): Me has no model and no
// autopilot; Me's send_message to Heron arrives as Heron's trigger, and no call is ever
// proposed for Me. eval refuses such a seat in words.
func TestLeaguePersonSeat(t *testing.T) {
	t.Parallel()
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir(), "OPENAI_API_KEY=", "OPENAI_BASE_URL="}
	lr := startLeague(t, env, "--game", "arena", "--approve", "all", "--data", filepath.Join(t.TempDir(), "league.db"),
		"--seat", "Heron=autopilot", "--seat", "Me=person")
	lr.until("Me's seat held by the person", func(evs []agent.Event) bool {
		for _, ev := range evs {
			if ev.Seat == "Me" && ev.Type == agent.EventState && ev.State == agent.PersonPlays {
				return true
			}
		}
		return false
	})
	lr.send(`{"cmd":"ask","seat":"Me","text":"anyone there?"}`)
	lr.send(`{"cmd":"play","seat":"Me","tool":"send_message","args":{"to":"Heron","text":"Heron, Me here: hello"}}`)
	lr.until("Me's message as Heron's trigger", func(evs []agent.Event) bool {
		for _, ev := range evs {
			if ev.Seat == "Heron" && ev.Type == agent.EventTrigger && strings.Contains(ev.Text, "Me here") {
				return true
			}
		}
		return false
	})
	lr.finish()
	refused, played := false, false
	for _, ev := range lr.seen {
		if ev.Seat != "Me" {
			continue
		}
		switch {
		case ev.Type == agent.EventProposed || ev.Type == agent.EventStep:
			t.Errorf("Me had a %s: %+v", ev.Type, ev.Call)
		case ev.Type == agent.EventError && strings.Contains(ev.Text, "no agent to ask"):
			refused = true
		case ev.Type == agent.EventResult && ev.Call.By == agent.ByPerson && ev.Call.Tool == "send_message" && ev.Result.OK():
			played = true
		}
	}
	if !refused || !played {
		t.Errorf("the question was refused: %v; the move played: %v", refused, played)
	}

	var out, errOut bytes.Buffer
	if code := run([]string{"eval", "--game", "arena", "--seat", "Heron=autopilot", "--seat", "Me=person", "--seeds", "1", "--steps", "2"}, &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "nobody at the keyboard") {
		t.Errorf("eval with a person's seat: exit %d, %s", code, errOut.String())
	}
}
