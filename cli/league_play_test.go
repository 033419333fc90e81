package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game"
)

// leagueRun is a headless league played by the built binary, read as its events come.
type leagueRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	events chan agent.Event
	seen   []agent.Event
	stderr *bytes.Buffer
}

// startLeague starts `coplay run` with args and streams its events.
func startLeague(t *testing.T, env []string, args ...string) *leagueRun {
	t.Helper()
	cmd := exec.Command(coplayBinary(t), append([]string{"run"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	lr := &leagueRun{t: t, cmd: cmd, events: make(chan agent.Event, 1024), stderr: &bytes.Buffer{}}
	in, out := startPiped(t, cmd, lr.stderr)
	lr.in = in
	go func() {
		defer close(lr.events)
		eachEvent(t, out, func(ev agent.Event, _ []byte) { lr.events <- ev })
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return lr
}

// send writes one command line.
func (lr *leagueRun) send(c string) {
	lr.t.Helper()
	if _, err := io.WriteString(lr.in, c+"\n"); err != nil {
		lr.t.Fatal(err)
	}
}

// until reads events until done says the run has shown what it should, and fails,
// saying what is missing, when the run ends first or three minutes pass.
func (lr *leagueRun) until(what string, done func([]agent.Event) bool) {
	lr.t.Helper()
	limit := time.After(3 * time.Minute)
	for !done(lr.seen) {
		select {
		case ev, ok := <-lr.events:
			if !ok {
				lr.t.Fatalf("the run ended before %s; stderr:\n%s", what, lr.stderr)
			}
			lr.seen = append(lr.seen, ev)
		case <-limit:
			lr.t.Fatalf("no %s after 3 minutes (%d events); stderr:\n%s", what, len(lr.seen), lr.stderr)
		}
	}
}

// finish stops every seat (a stop that names no seat is for all) and reads the rest.
func (lr *leagueRun) finish() {
	lr.t.Helper()
	lr.send(`{"cmd":"stop"}`)
	lr.in.Close()
	for ev := range lr.events {
		lr.seen = append(lr.seen, ev)
	}
	if err := lr.cmd.Wait(); err != nil {
		lr.t.Fatalf("coplay run: %v; stderr:\n%s", err, lr.stderr)
	}
}

// committedActs counts, by seat, the game actions that ran and succeeded.
func committedActs(evs []agent.Event) map[string]int {
	out := map[string]int{}
	for _, ev := range evs {
		if ev.Type == agent.EventResult && ev.Call != nil && ev.Call.Kind == game.Act && ev.Result != nil && ev.Result.Err == nil && !ev.Result.Unknown {
			out[ev.Seat]++
		}
	}
	return out
}

// larkCassette is a model that writes to Heron once, works a shift, then waits.
func larkCassette(t *testing.T) *llmtest.Cassette {
	return &llmtest.Cassette{Name: "lark", Model: "lark-model", Repeat: true, Steps: []llmtest.Step{
		{Text: "Heron is my neighbour: a word first, then work.", Calls: []llmtest.Call{
			scall("send_message", `{"to": "Heron", "text": "Heron, Lark here: shall we fight together?"}`),
			scall("work", `{"job": "farm", "shifts": 1}`),
		}},
		{Text: "Nothing more to do until my shift ends."},
	}}
}

// leagueConfig writes a config.toml with a profile "lark" whose model is served by srv,
// and returns the environment that points coplay at it.
func leagueConfig(t *testing.T, srv *llmtest.Server, extra string) []string {
	t.Helper()
	dir := t.TempDir()
	conf := fmt.Sprintf("[profiles.\"lark/default\"]\nmodel = \"lark-model\"\nbase_url = %q\napi_key_env = \"LARK_KEY\"\n%s", srv.URL(), extra)
	if err := os.MkdirAll(filepath.Join(dir, "coplay"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coplay", "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"XDG_CONFIG_HOME=" + dir, "LARK_KEY=sk-lark-test-0000", "OPENAI_API_KEY=", "OPENAI_BASE_URL="}
}

func TestLeagueArenaThreeSeats(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(larkCassette(t))
	defer srv.Close()
	env := leagueConfig(t, srv, "")
	data := filepath.Join(t.TempDir(), "league.db")
	lr := startLeague(t, env, "--game", "arena", "--approve", "all", "--data", data,
		"--seat", "Heron=autopilot", "--seat", "Finch=autopilot", "--seat", "Lark=lark")
	lr.send(`{"cmd":"advise","seat":"Finch","text":"Finch: keep your energy above 40"}`)
	heardLark := func(evs []agent.Event) bool {
		for _, ev := range evs {
			if ev.Seat == "Heron" && ev.Type == agent.EventTrigger && strings.Contains(ev.Text+fmt.Sprint(ev.Trigger), "Lark") {
				return true
			}
		}
		return false
	}
	lr.until("every seat's committed action and Lark's message as Heron's trigger", func(evs []agent.Event) bool {
		acts := committedActs(evs)
		return acts["Heron"] > 0 && acts["Finch"] > 0 && acts["Lark"] > 0 && heardLark(evs)
	})
	lr.finish()

	ids := map[string]string{}
	for _, ev := range lr.seen {
		if ev.Seat != "Heron" && ev.Seat != "Finch" && ev.Seat != "Lark" {
			t.Fatalf("event without its seat: %+v", ev)
		}
		if ev.Call != nil {
			if !strings.HasPrefix(ev.Call.ID, ev.Seat+"/") {
				t.Errorf("call id %q of seat %s does not name its seat", ev.Call.ID, ev.Seat)
			}
			if other, ok := ids[ev.Call.ID]; ok && other != ev.Seat {
				t.Errorf("call id %q is used by %s and %s", ev.Call.ID, other, ev.Seat)
			}
			ids[ev.Call.ID] = ev.Seat
		}
		if ev.Type == agent.EventAdvice && ev.Seat != "Finch" {
			t.Errorf("advice for Finch reached %s: %q", ev.Seat, ev.Text)
		}
	}
	advised := 0
	for _, ev := range lr.seen {
		if ev.Type == agent.EventAdvice && ev.Seat == "Finch" && strings.Contains(ev.Text, "energy above 40") {
			advised++
		}
	}
	if advised != 1 {
		t.Errorf("Finch's advice arrived %d times, want once", advised)
	}
}

func TestLeagueApproveAskDecidesOneSeat(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "league.db")
	lr := startLeague(t, []string{"XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_API_KEY=", "OPENAI_BASE_URL="},
		"--game", "arena", "--approve", "ask", "--data", data, "--seat", "Heron=autopilot", "--seat", "Finch=autopilot")
	waiting := func(evs []agent.Event, seat string) *agent.Call {
		var c *agent.Call
		for _, ev := range evs {
			if ev.Seat == seat && ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK {
				c = ev.Call
			}
			if ev.Seat == seat && ev.Type == agent.EventDecision && c != nil && ev.Decision.CallID == c.ID {
				c = nil
			}
		}
		return c
	}
	lr.until("a call of Heron's and one of Finch's waiting", func(evs []agent.Event) bool {
		return waiting(evs, "Heron") != nil && waiting(evs, "Finch") != nil
	})
	heron, finch := waiting(lr.seen, "Heron"), waiting(lr.seen, "Finch")
	lr.send(fmt.Sprintf(`{"cmd":"decide","call_id":%q,"decision":"approve"}`, finch.ID))
	lr.until("Finch's approved call to run", func(evs []agent.Event) bool {
		for _, ev := range evs {
			if ev.Type == agent.EventResult && ev.Call != nil && ev.Call.ID == finch.ID {
				return true
			}
		}
		return false
	})
	for _, ev := range lr.seen {
		if ev.Call != nil && ev.Call.ID == heron.ID && (ev.Type == agent.EventToolStart || ev.Type == agent.EventResult) {
			t.Fatalf("Heron's call %s ran without a decision: %+v", heron.ID, ev)
		}
	}
	if waiting(lr.seen, "Heron") == nil {
		t.Fatal("Heron's call no longer waits after Finch's was approved")
	}
	lr.send(`{"cmd":"decide","call_id":"Wren/x","decision":"approve"}`)
	lr.until("the refusal of a call of no seat", func(evs []agent.Event) bool {
		for _, ev := range evs {
			if ev.Type == agent.EventError && strings.Contains(ev.Text, `no seat "Wren"`) && strings.Contains(ev.Text, "Heron, Finch") {
				return true
			}
		}
		return false
	})
	lr.finish()
}

func TestLeagueUniverseSeatsHaveTheirOwnAgents(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "league.db")
	lr := startLeague(t, []string{"XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_API_KEY=", "OPENAI_BASE_URL="},
		"--game", "universe", "--approve", "all", "--data", data, "--seat", "ALPHA=autopilot", "--seat", "BETA=autopilot")
	lr.until("both seats' committed actions", func(evs []agent.Event) bool {
		acts := committedActs(evs)
		return acts["ALPHA"] > 0 && acts["BETA"] > 0
	})
	lr.finish()
	for _, ev := range lr.seen {
		if ev.Type != agent.EventObservation || ev.Observation == nil {
			continue
		}
		own, other := ev.Seat+"-1", "BETA-1"
		if ev.Seat == "BETA" {
			other = "ALPHA-1"
		}
		if !strings.Contains(ev.Observation.Summary, own) || strings.Contains(ev.Observation.Summary, other) {
			t.Fatalf("seat %s sees (want its own ship %s, not %s):\n%s", ev.Seat, own, other, ev.Observation.Summary)
		}
	}
}

// runLeagueToEnd runs `coplay run ARGS` with nothing on stdin, to its end, and returns
// its events.
func runLeagueToEnd(t *testing.T, env []string, args ...string) []agent.Event {
	t.Helper()
	cmd := exec.Command(coplayBinary(t), append([]string{"run"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("coplay run %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return decodeEvents(t, &out)
}

// leagueSessions reads `coplay sessions --json`, by session name.
func leagueSessions(t *testing.T, env []string, data string) map[string]map[string]any {
	t.Helper()
	cmd := exec.Command(coplayBinary(t), "sessions", "--json", "--data", data)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("coplay sessions --json: %v", err)
	}
	var list []map[string]any
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	byName := map[string]map[string]any{}
	for _, s := range list {
		byName[s["name"].(string)] = s
	}
	return byName
}

// firstStep is the first step each seat played in evs.
func firstStep(evs []agent.Event) map[string]int {
	out := map[string]int{}
	for _, ev := range evs {
		if ev.Type == agent.EventStep {
			if _, ok := out[ev.Seat]; !ok {
				out[ev.Seat] = ev.Step
			}
		}
	}
	return out
}

func TestLeagueResumesAndForksEverySeat(t *testing.T) {
	t.Parallel()
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_API_KEY=", "OPENAI_BASE_URL="}
	data := filepath.Join(t.TempDir(), "league.db")
	// At 600 times the clock the seats' shifts end in a blink: at the default speed the
	// resume waited on them for 12 s.
	first := runLeagueToEnd(t, env, "--game", "arena", "--speed", "600", "--approve", "all", "--steps", "2", "--data", data,
		"--seat", "Heron=autopilot", "--seat", "Finch=autopilot")
	if got := firstStep(first); got["Heron"] != 1 || got["Finch"] != 1 {
		t.Fatalf("first steps %v, want 1 for both seats", got)
	}
	sessions := leagueSessions(t, env, data)
	if len(sessions) != 2 {
		t.Fatalf("%d sessions, want one a seat: %v", len(sessions), sessions)
	}
	var leagueName string
	for name, s := range sessions {
		seat, _ := s["seat"].(string)
		leagueName, _ = s["league"].(string)
		if leagueName == "" || name != leagueName+"-"+seat {
			t.Fatalf("session %s records league %q and seat %q", name, leagueName, seat)
		}
	}

	// --resume of one seat's session resumes the whole league, each seat where it was.
	resumed := runLeagueToEnd(t, env, "--resume", leagueName+"-Finch", "--speed", "600", "--approve", "all", "--steps", "4", "--data", data)
	if got := firstStep(resumed); got["Heron"] != 3 || got["Finch"] != 3 {
		t.Fatalf("resumed first steps %v, want 3 for both seats", got)
	}
	if n := len(leagueSessions(t, env, data)); n != 2 {
		t.Fatalf("the resume made new sessions: %d, want 2", n)
	}

	// --fork LEAGUE@2 forks every seat into a new league.
	forked := runLeagueToEnd(t, env, "--fork", leagueName+"@2", "--speed", "600", "--approve", "all", "--steps", "3", "--data", data)
	got := firstStep(forked)
	if got["Heron"] == 0 || got["Heron"] > 2 || got["Finch"] == 0 || got["Finch"] > 2 {
		t.Fatalf("forked first steps %v, want each seat back at step 2 or before", got)
	}
	after := leagueSessions(t, env, data)
	if len(after) != 4 {
		t.Fatalf("%d sessions after the fork, want 4", len(after))
	}
	forks := 0
	for _, s := range after {
		if parent, _ := s["parent"].(string); parent != "" {
			forks++
			if l, _ := s["league"].(string); l == "" || l == leagueName || !strings.HasPrefix(parent, leagueName+"-"+s["seat"].(string)+"@") {
				t.Fatalf("forked seat %v: want a new league, its parent the same seat of %s", s, leagueName)
			}
		}
	}
	if forks != 2 {
		t.Fatalf("%d forked seats, want 2", forks)
	}
}

func TestLeagueRulesAndApprovalPerSeat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := "[league]\nrules = [\"allow work\"]\n\n[profiles.\"eager/default\"]\nbrain = \"autopilot\"\napprove = \"all\"\n"
	if err := os.MkdirAll(filepath.Join(dir, "coplay"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coplay", "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + dir, "OPENAI_API_KEY=", "OPENAI_BASE_URL="}
	lr := startLeague(t, env, "--game", "arena", "--data", filepath.Join(t.TempDir(), "l.db"),
		"--seat", "Heron=autopilot", "--seat", "Finch=eager")
	ruled := func(evs []agent.Event, seat string) bool {
		for _, ev := range evs {
			if ev.Seat == seat && ev.Type == agent.EventDecision && ev.Decision.By == "rule" && ev.Decision.Rule == "allow work" {
				return true
			}
		}
		return false
	}
	lr.until("both seats' work approved by the league's rule", func(evs []agent.Event) bool {
		return ruled(evs, "Heron") && ruled(evs, "Finch")
	})
	lr.finish()
	handedOver := map[string]bool{}
	for _, ev := range lr.seen {
		if ev.Type == agent.EventKeepPlaying && ev.KeepPlaying != nil {
			handedOver[ev.Seat] = *ev.KeepPlaying
		}
	}
	if !handedOver["Finch"] || handedOver["Heron"] {
		t.Fatalf("play handed over %v: want Finch's (its profile's approve = all), not Heron's (ask)", handedOver)
	}
}

// TestLeagueRefusesAGhostSeat is issue 47's check: in an arena league, a command for a
// seat the league does not have, or for another spelling of one, is refused to its
// sender, and no event carries that seat.
func TestLeagueRefusesAGhostSeat(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "league.db")
	lr := startLeague(t, []string{"XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_API_KEY=", "OPENAI_BASE_URL="},
		"--game", "arena", "--approve", "ask", "--data", data, "--seat", "Heron=autopilot", "--seat", "Finch=autopilot")
	var heron string
	lr.until("a call of Heron's waiting", func(evs []agent.Event) bool {
		for _, ev := range evs {
			if ev.Seat == "Heron" && ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK {
				heron = ev.Call.ID
				return true
			}
		}
		return false
	})
	refused := func(line int, want string) func([]agent.Event) bool {
		return func(evs []agent.Event) bool {
			for _, ev := range evs {
				if ev.Type == agent.EventError && strings.HasPrefix(ev.Text, fmt.Sprintf("stdin line %d: ", line)) && strings.Contains(ev.Text, want) {
					return true
				}
			}
			return false
		}
	}
	lr.send(`{"cmd":"advise","seat":"Ghost","text":"x"}`)
	lr.until("the refusal of seat Ghost", refused(1, `no seat "Ghost" in this league (seats: Heron, Finch)`))
	lower := "heron/" + strings.TrimPrefix(heron, "Heron/")
	lr.send(`{"cmd":"decide","call_id":"` + lower + `","decision":"veto"}`)
	lr.until("the refusal of seat heron", refused(2, `no seat "heron"`))
	lr.send(`{"cmd":"decide","call_id":"` + heron + `","decision":"approve"}`)
	lr.until("Heron's call approved", func(evs []agent.Event) bool {
		for _, ev := range evs {
			if ev.Type == agent.EventDecision && ev.Decision.CallID == heron {
				return true
			}
		}
		return false
	})
	lr.finish()
	for _, ev := range lr.seen {
		if ev.Seat != "Heron" && ev.Seat != "Finch" && !(ev.Seat == "" && ev.Type == agent.EventError) {
			t.Errorf("an event carries the seat %q: %+v", ev.Seat, ev)
		}
		if ev.Type == agent.EventDecision && ev.Decision.CallID == heron && ev.Decision.Decision != agent.Approve {
			t.Errorf("Heron's call was decided %s", ev.Decision.Decision)
		}
	}
}

func TestLeagueAttachDecidesASeatsCall(t *testing.T) {
	t.Parallel()
	runtime := t.TempDir()
	data := filepath.Join(t.TempDir(), "league.db")
	lr := startLeague(t, []string{"XDG_CONFIG_HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + runtime, "OPENAI_API_KEY=", "OPENAI_BASE_URL="},
		"--game", "arena", "--approve", "ask", "--data", data, "--seat", "Heron=autopilot", "--seat", "Finch=autopilot")
	var finch string
	lr.until("a call of Finch's waiting", func(evs []agent.Event) bool {
		for _, ev := range evs {
			if ev.Seat == "Finch" && ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK {
				finch = ev.Call.ID
				return true
			}
		}
		return false
	})
	seen, err := attachAndApproveWith(t, []string{"XDG_RUNTIME_DIR=" + runtime}, data, finch)
	if err != nil {
		t.Fatalf("attach: %v", err)
	}
	seats := map[string]bool{}
	for _, ev := range seen {
		seats[ev.Seat] = true
	}
	if !seats["Heron"] || !seats["Finch"] {
		t.Fatalf("the attached client saw seats %v, want both", seats)
	}
	lr.until("Finch's call decided via attach", func(evs []agent.Event) bool {
		for _, ev := range evs {
			if ev.Type == agent.EventDecision && ev.Decision.CallID == finch {
				return ev.Decision.Via == "attach" && ev.Decision.By == "person"
			}
		}
		return false
	})
	lr.finish()
}

func TestLeagueBadSeatsAreRefusedAndLeaveNothing(t *testing.T) {
	t.Parallel()
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_API_KEY=", "OPENAI_BASE_URL="}
	data := filepath.Join(t.TempDir(), "l.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--seat", "Heron=nosuch", "--seat", "Finch=autopilot"}, `--seat Heron=nosuch: no profile "nosuch"`},
		{[]string{"--seat", "Heron=autopilot", "--seat", "heron=autopilot"}, `seat "heron" is given twice`},
		{[]string{"--seat", "He/ron=autopilot"}, `cannot hold a '/'`},
		{[]string{"--seat", "Heron"}, `want NAME=PROFILE`},
		{[]string{"--game", "openapi", "--seat", "A=autopilot"}, `--game openapi cannot hold a league (--seat); the games that can: arena, spacetraders, universe`},
		{[]string{"--game", "universe", "--seat", "A=autopilot", "--seat", "BETA=autopilot"}, `seat "A" cannot be a SpaceTraders agent`},
		// Names a screen would print wrong, or that mean something else.
		{[]string{"--seat", "He\u200bron=autopilot", "--seat", "Finch=autopilot"}, `seat name "He\u200bron" holds an invisible or control character (U+200B)`},
		{[]string{"--seat", "Heron\x1b[2J=autopilot", "--seat", "Finch=autopilot"}, `seat name "Heron\x1b[2J" holds an invisible or control character (U+001B)`},
		{[]string{"--seat", "all=autopilot", "--seat", "Finch=autopilot"}, `seat name "all" is reserved`},
		{[]string{"--approve", "sometimes", "--seat", "Heron=autopilot", "--seat", "Finch=autopilot"}, `--approve must be ask or all, not "sometimes"`},
	} {
		var out, errOut bytes.Buffer
		code := runEnv(t, env, append([]string{"run", "--data", data, "--game", "arena"}, tc.args...), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", tc.args, code, errOut.String(), tc.want)
		}
	}
	if _, err := os.Stat(data); err == nil {
		if list := leagueSessions(t, []string{"XDG_CONFIG_HOME=" + t.TempDir()}, data); len(list) != 0 {
			t.Fatalf("refused leagues left sessions: %v", list)
		}
	}
}
