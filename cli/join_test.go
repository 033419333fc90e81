package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// serveArena serves an arena with the seats Heron and Finch on loopback, its world in
// a notebook of its own. It returns the server and the notebook's path.
func serveArena(t *testing.T) (*serveProc, string) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "world.db")
	sv := startServeProc(t, append([]string{"XDG_RUNTIME_DIR=" + t.TempDir()}, seatEnv...),
		"--game", "arena", "--mcp", "127.0.0.1:0", "--seat", "Heron", "--seat", "Finch", "--data", data)
	return sv, data
}

// startJoined starts `coplay run --headless --game arena --join URL` with the autopilot,
// every call allowed, the seat's token in COPLAY_JOIN_TOKEN and a notebook, config and
// runtime directory of its own; it returns the run and its notebook.
func startJoined(t *testing.T, url, token string, steps string) (*proc, string) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "seat.db")
	p := startProc(t, []string{"--game", "arena", "--join", url, "--approve", "all", "--steps", steps, "--data", data},
		[]string{"COPLAY_JOIN_TOKEN=" + token, "XDG_CONFIG_HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir()})
	return p, data
}

// actDone matches the result of a game call that changed the world.
func actDone(ev agent.Event) bool {
	return ev.Type == agent.EventResult && ev.Call != nil && ev.Call.Kind == game.Act && ev.Result != nil && ev.Result.OK()
}

// Two autopilots on their own coplays join one served arena, each as its seat by its
// token, and play: a message to a seat wakes its autopilot; each one's
// acts are in its own journal, and the server kept each as its own seat's (in the
// world's notebook); neither token is anywhere a coplay wrote.
func TestAutopilotsJoinAServedArena(t *testing.T) {
	t.Parallel()
	sv, world := serveArena(t)
	tokens := map[string]string{"Heron": heronSeatToken, "Finch": finchSeatToken}
	type seat struct {
		p    *proc
		data string
		act  agent.Event
	}
	seats := map[string]*seat{}
	for name, token := range tokens {
		p, data := startJoined(t, sv.URL, token, "100")
		seats[name] = &seat{p: p, data: data}
	}
	for name, s := range seats {
		s.act = s.p.next(name+"'s first act", actDone)
	}
	// Finch's player writes to Heron from another client of Finch's seat: Heron's
	// autopilot wakes with the trigger a local seat's would, and its next step sees it.
	const hello = "Heron, are you there? Please answer."
	if out, failed := seatCall(t, seatClient(t, sv.URL, finchSeatToken, nil), "send_message", map[string]any{"to": "Heron", "text": hello}); failed {
		t.Fatalf("send_message: %s", out)
	}
	heron := seats["Heron"].p
	heron.next("the trigger of Finch's message", func(ev agent.Event) bool {
		return ev.Type == agent.EventTrigger && ev.Trigger.Type == "message.received" && strings.Contains(ev.Trigger.Text, hello)
	})
	heron.next("a step of Heron's that sees Finch's message", func(ev agent.Event) bool {
		return ev.Type == agent.EventObservation && strings.Contains(ev.Observation.Summary, "Finch → you: "+hello)
	})
	for name, s := range seats {
		s.p.cmd.Process.Signal(syscall.SIGINT)
		evs, err := s.p.wait()
		if err != nil {
			t.Fatalf("%s's coplay: %v\nstderr: %s", name, err, s.p.stderr.String())
		}
		started := ""
		for _, ev := range evs {
			if ev.Type == agent.EventStarted {
				started = ev.Text
			}
		}
		if !strings.Contains(started, "autopilot playing Arena") || !strings.Contains(started, name) || !strings.Contains(started, "served at") {
			t.Errorf("%s's coplay started as %q, want the autopilot on the served arena's seat %s", name, started, name)
		}
		_, recs := readJournal(t, s.data)
		journaled := false
		for _, r := range recs {
			journaled = journaled || r.Type == record.TypeResult && r.CallID == s.act.Call.ID
		}
		if !journaled {
			t.Errorf("%s's journal has no result of its act %s (%s)", name, s.act.Call.Tool, s.act.Call.ID)
		}
		for other, token := range tokens {
			for what, where := range map[string]string{"stdout": eventsText(evs), "stderr": s.p.stderr.String(), "notebook": fileText(t, s.data)} {
				if strings.Contains(where, token) {
					t.Errorf("%s's coplay wrote %s's token in its %s", name, other, what)
				}
			}
		}
	}
	// The server's side: each seat's session in the world's notebook journals its acts.
	sv.stop(t)
	book, err := notes.Open(world, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	for name, s := range seats {
		sess, err := book.Session("serve-arena-" + name)
		if err != nil {
			t.Fatalf("the world has no session of seat %s: %v", name, err)
		}
		kept := false
		for _, r := range sessionRecords(t, sess) {
			if d, err := r.Decode(); err == nil && r.Type == record.TypeNotice && strings.HasPrefix(d.Text, s.act.Call.Tool+" ") {
				kept = true
			}
		}
		if !kept {
			t.Errorf("the world kept no %s act of seat %s (its coplay's act: %s %s)", s.act.Call.Tool, name, s.act.Call.Tool, s.act.Call.Args)
		}
	}
}

// eventsText is the events as their JSON lines, to search.
func eventsText(evs []agent.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		line, _ := json.Marshal(ev)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// fileText is a file's bytes as a string (a notebook, to search for what must not be in it).
func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Joining wrongly acts on nothing and leaves nothing behind: no token, a wrong token, a
// URL that serves nothing say so in a line and exit 1; --join with a game that is not
// served, a league or an option of a local world's is a usage error (exit 2).
func TestJoinRefusals(t *testing.T) {
	t.Parallel()
	sv, _ := serveArena(t)
	for _, tc := range []struct {
		name, token string
		args        []string
		code        int
		says        string
	}{
		{"no token", "", []string{"--game", "arena", "--join", sv.URL}, 1, "no seat token: set COPLAY_JOIN_TOKEN"},
		{"wrong token", "not-a-seat-token-0123456789", []string{"--game", "arena", "--join", sv.URL}, 1, "the server refused the token in $COPLAY_JOIN_TOKEN (401 Unauthorized)"},
		{"token in another variable", "", []string{"--game", "arena", "--join", sv.URL, "--join-token-env", "MY_SEAT"}, 1, "set MY_SEAT"},
		{"nothing served there", heronSeatToken, []string{"--game", "arena", "--join", "http://127.0.0.1:1/mcp"}, 1, "joining the served world at 127.0.0.1:1/mcp: nothing answers there (connection refused)"},
		{"not a URL", heronSeatToken, []string{"--game", "arena", "--join", "ftp://example.com"}, 1, "is not a served world's URL"},
		{"another game", heronSeatToken, []string{"--game", "mcp", "--join", sv.URL}, 2, "--join plays a world coplay serve serves"},
		{"the autopilot on a served universe", heronSeatToken, []string{"--game", "universe", "--join", sv.URL}, 2, "the autopilot plays a served arena"},
		{"a local world's option", heronSeatToken, []string{"--game", "arena", "--seed", "3", "--join", sv.URL}, 2, "--seed sets up a world of this machine's"},
		{"a league", heronSeatToken, []string{"--game", "arena", "--join", sv.URL, "--seat", "A=autopilot", "--seat", "B=autopilot"}, 2, "--join plays one seat"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := filepath.Join(t.TempDir(), "seat.db")
			env := []string{"COPLAY_JOIN_TOKEN=" + tc.token, "XDG_CONFIG_HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir()}
			var out, errOut bytes.Buffer
			code := runBinary(t, env, strings.NewReader(""), append([]string{"run", "--headless", "--steps", "2", "--data", data}, tc.args...), &out, &errOut)
			msg := strings.TrimSpace(errOut.String())
			if code != tc.code || !strings.Contains(msg, tc.says) || strings.Count(msg, "\n") > 0 {
				t.Errorf("exit %d, said %q; want exit %d and one line with %q", code, msg, tc.code, tc.says)
			}
			if out.Len() > 0 {
				t.Errorf("it played: %s", out.String())
			}
			if _, err := os.Stat(data); err == nil {
				if book, err := notes.Open(data, nil); err == nil {
					if list, _ := book.List(); len(list) > 0 {
						t.Errorf("it left sessions behind: %v", list)
					}
					book.Close()
				}
			}
		})
	}
	t.Cleanup(func() {
		if !strings.Contains(sv.stderr(), "refused") {
			t.Errorf("the server journaled no refusal of the wrong token:\n%s", sv.stderr())
		}
	})
}

// A served world that dies under a joined autopilot: the coplay says so and keeps
// trying, without a panic; stopped, it exits as any run does, its session whole.
func TestJoinedServerKilled(t *testing.T) {
	t.Parallel()
	sv, _ := serveArena(t)
	p, data := startJoined(t, sv.URL, heronSeatToken, "50")
	act := p.next("Heron's first act", actDone)
	sv.kill()
	p.next("word that the served world is gone", func(ev agent.Event) bool {
		return strings.Contains(ev.Text, "127.0.0.1") && (strings.Contains(ev.Text, "dropped") || strings.Contains(ev.Text, "does not answer"))
	})
	p.cmd.Process.Signal(syscall.SIGINT)
	evs, err := p.wait()
	if err != nil {
		t.Errorf("coplay on SIGINT after its world died: %v\nstderr: %s", err, p.stderr.String())
	}
	if s := p.stderr.String(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") {
		t.Errorf("stderr: %s", s)
	}
	if last := evs[len(evs)-1]; last.Type != agent.EventState || last.State != agent.Stopped {
		t.Errorf("the last event is %s %q, want the run stopped", last.Type, last.Text)
	}
	_, recs := readJournal(t, data)
	found := false
	for _, r := range recs {
		found = found || r.Type == record.TypeResult && r.CallID == act.Call.ID
	}
	if !found {
		t.Errorf("the journal lost the act %s made before the world died", act.Call.ID)
	}
}

// A joined session resumes by joining the same served world again, its token from the
// environment as before (never from the session); it cannot be forked, since its world
// is the server's.
func TestJoinedSessionResumes(t *testing.T) {
	t.Parallel()
	sv, _ := serveArena(t)
	data := filepath.Join(t.TempDir(), "seat.db")
	env := []string{"COPLAY_JOIN_TOKEN=" + finchSeatToken, "XDG_CONFIG_HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir()}
	headlessOpen(t, []string{"--game", "arena", "--join", sv.URL, "--approve", "all", "--steps", "1", "--data", data}, env, "")
	name, _ := readJournal(t, data)
	out := headlessOpen(t, []string{"--resume", "--approve", "all", "--steps", "1", "--data", data}, env, "")
	if !strings.Contains(out.String(), "Finch (served at") {
		t.Errorf("the resumed run did not join Finch's seat again: %.600s", out.String())
	}
	if strings.Contains(fileText(t, data), finchSeatToken) {
		t.Error("the notebook holds the seat's token")
	}
	var stdout, stderr bytes.Buffer
	code := runBinary(t, env, strings.NewReader(""), []string{"run", "--headless", "--fork", name + "@1", "--steps", "1", "--data", data}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "cannot be forked") {
		t.Errorf("forking a joined session: exit %d, %s", code, stderr.String())
	}
}
