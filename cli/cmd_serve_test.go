package cli

import (
	"bytes"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// Mistakes in the command line are said in words before anything is opened or served.
func TestServeRefusesInWords(t *testing.T) {
	data := filepath.Join(t.TempDir(), "w.db")
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--game", "spacetraders", "--seat", "A"}, nil, "--game must be arena or universe"},
		{[]string{"--game", "arena"}, nil, "name the seats to serve"},
		{[]string{"--seat", "Mara"}, nil, "has a member's name"},
		{[]string{"--game", "universe", "--seat", "ab"}, nil, "cannot be a SpaceTraders agent"},
		{[]string{"--seat", "A", "--seat", "B", "--mcp", "stdio"}, nil, "--mcp stdio serves one seat"},
		{[]string{"--seat", "Heron", "--mcp", "0.0.0.0:0"}, nil, "every seat needs its own token from the environment: set COPLAY_SEAT_TOKEN_HERON"},
		{[]string{"--seat", "Heron"}, map[string]string{"COPLAY_SEAT_TOKEN_HERON": "short"}, "at least 16"},
		{[]string{"--seat", "Heron", "--seat", "Finch"}, map[string]string{"COPLAY_SEAT_TOKEN_HERON": heronSeatToken, "COPLAY_SEAT_TOKEN_FINCH": heronSeatToken}, "have the same token"},
		{[]string{"--seat", "Heron", "--mcp", "nowhere"}, nil, "--mcp must be HOST:PORT"},
	} {
		t.Setenv("COPLAY_SEAT_TOKEN_HERON", "")
		t.Setenv("COPLAY_SEAT_TOKEN_FINCH", "")
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		var out, errOut bytes.Buffer
		code := run(append([]string{"serve", "--data", data}, tc.args...), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("serve %v: exit %d, %q; want exit 2 saying %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}

// The Done-when of issue 46: Heron's act and message, and Finch reading it, last a
// kill -9; a page of another origin is refused; a world served again with other seats
// is refused in words.
func TestServedWorldLastsAKill(t *testing.T) {
	data := filepath.Join(t.TempDir(), "world.db")
	args := []string{"--game", "arena", "--mcp", "127.0.0.1:0", "--seat", "Heron", "--seat", "Finch", "--data", data}
	sv := startServeProc(t, seatEnv, args...)
	heron := seatClient(t, sv.URL, heronSeatToken, nil)
	finch := seatClient(t, sv.URL, finchSeatToken, nil)
	if out, isErr := seatCall(t, heron, "buy", map[string]any{"item": "apple", "quantity": 2}); isErr {
		t.Fatalf("Heron's buy: %s", out)
	}
	if out, isErr := seatCall(t, heron, "send_message", map[string]any{"to": "Finch", "text": "the north gate at noon"}); isErr {
		t.Fatalf("Heron's message: %s", out)
	}
	if msgs, _ := seatCall(t, finch, "messages", nil); !strings.Contains(msgs, "the north gate at noon") {
		t.Fatalf("Finch's messages: %s", msgs)
	}
	status, _ := seatCall(t, heron, "status", nil)
	gold := regexp.MustCompile(`gold \d+`).FindString(status)
	if gold == "" || !strings.Contains(status, "apple") {
		t.Fatalf("Heron's status: %s", status)
	}
	req, _ := http.NewRequest(http.MethodPost, sv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Authorization", "Bearer "+heronSeatToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a POST from http://evil.example: %d, want 403", resp.StatusCode)
	}

	sv.kill()
	sv = startServeProc(t, seatEnv, args...)
	if !strings.Contains(sv.stderr(), "going on from its last step") {
		t.Errorf("the restart says: %s", sv.stderr())
	}
	heron = seatClient(t, sv.URL, heronSeatToken, nil)
	finch = seatClient(t, sv.URL, finchSeatToken, nil)
	if msgs, _ := seatCall(t, finch, "messages", nil); !strings.Contains(msgs, "the north gate at noon") {
		t.Errorf("after kill -9, Finch's messages: %s", msgs)
	}
	if status, _ := seatCall(t, heron, "status", nil); !strings.Contains(status, gold+" ") || !strings.Contains(status, "apple") {
		t.Errorf("after kill -9, Heron's status %q, want %s and the apples", status, gold)
	}
	sv.stop(t)

	// The notebook journaled the seats' joins and acts, and refuses other seats for this
	// world.
	book, err := notes.OpenReadOnly(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := book.Session("serve-arena-Heron")
	if err != nil {
		t.Fatal(err)
	}
	recs := sessionRecords(t, sess)
	book.Close()
	var journal []string
	for _, r := range recs {
		journal = append(journal, string(r.Data))
	}
	for _, want := range []string{"Heron joined with seat-test 1", `buy {\"item\":\"apple\",\"quantity\":2} → `, "send_message"} {
		if !strings.Contains(strings.Join(journal, "\n"), want) {
			t.Errorf("Heron's journal lacks %s: %s", want, journal)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"serve", "--data", data, "--seat", "Heron", "--seat", "Lark"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "has the seats Heron, Finch") {
		t.Errorf("served with other seats: exit %d, %s", code, errOut.String())
	}
}

// The universe served to ALPHA and BETA: each seat's observe_game shows its own ships,
// never the other's; ALPHA's accepted contract, its credits and its ship in orbit last a
// kill -9.
func TestServedUniverseSeatsSeeTheirOwnShips(t *testing.T) {
	env := []string{"COPLAY_SEAT_TOKEN_ALPHA=" + heronSeatToken, "COPLAY_SEAT_TOKEN_BETA=" + finchSeatToken}
	args := []string{"--game", "universe", "--mcp", "127.0.0.1:0", "--seat", "ALPHA", "--seat", "BETA", "--data", filepath.Join(t.TempDir(), "u.db")}
	sv := startServeProc(t, env, args...)
	for seat, tok := range map[string]string{"ALPHA": heronSeatToken, "BETA": finchSeatToken} {
		other := map[string]string{"ALPHA": "BETA", "BETA": "ALPHA"}[seat]
		out, isErr := seatCall(t, seatClient(t, sv.URL, tok, nil), "observe_game", nil)
		if isErr || !strings.Contains(out, seat+"-1") || strings.Contains(out, other+"-1") {
			t.Errorf("%s's observe_game: %s", seat, out)
		}
	}
	alpha := seatClient(t, sv.URL, heronSeatToken, nil)
	before, _ := seatCall(t, alpha, "observe_game", nil)
	contract := regexp.MustCompile(`(?m)^- (\w+) PROCUREMENT`).FindStringSubmatch(before)
	if contract == nil {
		t.Fatalf("no contract in %s", before)
	}
	for tool, args := range map[string]map[string]any{"accept_contract": {"contractId": contract[1]}, "orbit_ship": {"shipSymbol": "ALPHA-1"}} {
		if out, isErr := seatCall(t, alpha, tool, args); isErr {
			t.Fatalf("%s: %s", tool, out)
		}
	}
	after, _ := seatCall(t, alpha, "observe_game", nil)
	credits := regexp.MustCompile(`[\d,]+ credits`).FindString(after)
	sv.kill()
	sv = startServeProc(t, env, args...)
	again, _ := seatCall(t, seatClient(t, sv.URL, heronSeatToken, nil), "observe_game", nil)
	if credits == "" || credits == regexp.MustCompile(`[\d,]+ credits`).FindString(before) || !strings.Contains(again, credits) ||
		!strings.Contains(again, "ALPHA-1 (COMMAND) IN_ORBIT") {
		t.Errorf("after kill -9, ALPHA's world:\n%s\nbefore it:\n%s", again, after)
	}
}

// Two coplays join a served arena, each with a scripted OpenAI-wire model: Finch's
// observes coplay://world and waits; Heron's sends Finch a message; Finch's wakes with
// the message.received trigger a local Finch would read, and reads the message.
func TestCoplaysJoinAServedWorld(t *testing.T) {
	sv := startServeProc(t, seatEnv, "--game", "arena", "--mcp", "127.0.0.1:0", "--seat", "Heron", "--seat", "Finch", "--data", filepath.Join(t.TempDir(), "w.db"))
	joined := func(model *llmtest.Server, token, approve string) ([]string, []string) {
		args := []string{"--game", "mcp", "--mcp", sv.URL, "--mcp-header", "Authorization: Bearer " + token, "--mcp-observe", "coplay://world",
			"--model", "scripted", "--approve", approve, "--data", filepath.Join(t.TempDir(), "n.db")}
		env := []string{"OPENAI_BASE_URL=" + model.URL(), "OPENAI_API_KEY=sk-test-serve-0000", "XDG_CONFIG_HOME=" + t.TempDir()}
		return args, env
	}
	finchModel := llmtest.NewServer(&llmtest.Cassette{Name: "finch", Steps: []llmtest.Step{
		{Text: "Nothing to do until someone writes."},
		{Text: "A message came.", Calls: []llmtest.Call{scall("messages", `{}`)}},
		{Text: "Heron wants to meet."},
	}})
	defer finchModel.Close()
	heronModel := llmtest.NewServer(&llmtest.Cassette{Name: "heron", Steps: []llmtest.Step{
		{Text: "Write to Finch.", Calls: []llmtest.Call{scall("send_message", `{"to":"Finch","text":"meet me at the well"}`)}},
		{Text: "Sent."},
	}})
	defer heronModel.Close()

	// Heron plays once Finch waits: from Finch's event loop, which reads on after.
	var heronEvents []agent.Event
	// Finch asks before acting (only reads here), so an answer without calls ends its
	// turn and it waits for the world, as a person's coplay does.
	args, env := joined(finchModel, finchSeatToken, "ask")
	finchEvents := headlessRunEnv(t, append(args, "--steps", "3"), env, func(ev agent.Event, _ func(agent.Command)) {
		if ev.Type == agent.EventState && ev.State == agent.Idle && heronEvents == nil {
			args, env := joined(heronModel, heronSeatToken, "all")
			heronEvents = headlessRunEnv(t, append(args, "--steps", "2"), env, func(agent.Event, func(agent.Command)) {})
		}
	})
	sent := false
	for _, ev := range heronEvents {
		sent = sent || ev.Type == agent.EventResult && ev.Call.Tool == "send_message" && ev.Result.OK()
	}
	if !sent {
		t.Fatalf("Heron's coplay sent nothing: %s", eventSummary(heronEvents))
	}
	var woke, read bool
	for _, ev := range finchEvents {
		switch {
		case ev.Type == agent.EventTrigger && ev.Trigger.Type == "message.received" && strings.Contains(ev.Trigger.Text, "meet me at the well"):
			woke = true
		case ev.Type == agent.EventResult && ev.Call.Tool == "messages" && strings.Contains(ev.Result.Output, "meet me at the well"):
			read = true
		}
	}
	if !woke || !read {
		t.Errorf("Finch's coplay woke %v, read the message %v; events: %s", woke, read, eventSummary(finchEvents))
	}
}

// eventSummary lists events briefly, for a failure's message.
func eventSummary(evs []agent.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString(string(ev.Type))
		switch {
		case ev.Trigger != nil:
			b.WriteString("(" + ev.Trigger.String() + ")")
		case ev.Text != "":
			b.WriteString("(" + game.CutBytes(ev.Text, 80) + ")")
		}
		b.WriteString(" ")
	}
	return b.String()
}
