package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/notes"
)

// The command printed on quitting goes on with the session: the flags the run was given
// (values and all, quoted where a shell needs it), never --resume or --fork twice.
func TestResumeCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "coplay --resume universe-1"},
		{[]string{"--data", "my games.db", "--brain", "script:demo.json", "--approve=all", "--json-ignored"},
			"coplay --data 'my games.db' --brain script:demo.json --approve=all --resume universe-1"},
		{[]string{"--resume", "old", "--data", "x.db"}, "coplay --data x.db --resume universe-1"},
		{[]string{"--fork", "old@3", "--game", "arena"}, "coplay --game arena --resume universe-1"},
		{[]string{"-data", "x.db", "--resume=true", "--", "extra"}, "coplay -data x.db --resume universe-1"},
	} {
		fs := newPlayCmd().Flags()
		if got := resumeCommand(fs, c.args, "universe-1"); got != c.want {
			t.Errorf("resumeCommand(%q) =\n  %s\nwant\n  %s", c.args, got, c.want)
		}
	}
}

// A session played by a cassette is resumed with that cassette when the command line
// names no brain, from any directory; an old session that recorded only "script", or
// one played by another kind of brain, is resumed saying what changed and how to choose.
// Serial: it changes the working directory (t.Chdir) between the runs.
func TestResumeTakesTheSessionsBrain(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	cassette, err := filepath.Abs(filepath.Join("..", "testdata", "cassettes", "demo.cassette.json"))
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "coplay.db")
	runInProcess(t, "run", "--headless", "--data", data, "--brain", "script:"+cassette, "--approve", "all", "--steps", "1")

	t.Chdir(t.TempDir()) // the cassette's path is recorded whole
	var out, errOut bytes.Buffer
	code := run([]string{"run", "--headless", "--data", data, "--resume", "--approve", "all", "--steps", "2"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("resume: exit %d, %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), `"text":"scripted playing`) || errOut.Len() != 0 {
		t.Errorf("the resume did not play the cassette, or said something:\nstdout %.400s\nstderr %s", out.String(), errOut.String())
	}

	for _, c := range []struct{ recorded, kind, want string }{
		{"script", "autopilot", "was played by a cassette: this run plays it with the autopilot (--brain script:FILE"},
		{"script:/nowhere/gone.json", "autopilot", "the cassette /nowhere/gone.json, which is not there any more"},
		{"gpt-4o-mini", "autopilot", "was played by the model gpt-4o-mini: this run plays it with the autopilot (--model gpt-4o-mini"},
		{"autopilot", "model", "was played by the autopilot: this run plays it with the model from the environment (--brain autopilot"},
		{"autopilot", "autopilot", ""},
		{"gpt-4o-mini", "model", ""},
	} {
		var o options
		if got := o.resumeBrain(notes.SessionInfo{Name: "s1", Model: c.recorded}, c.kind); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("resumeBrain(%s, %s) = %q, want %q", c.recorded, c.kind, got, c.want)
		}
	}
	var o options
	o.brain = "autopilot"
	if got := o.resumeBrain(notes.SessionInfo{Name: "s1", Model: "script"}, "autopilot"); got != "" {
		t.Errorf("a brain chosen on the command line was questioned: %q", got)
	}

	list, err := sessions(t, "--json", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	var infos []notes.SessionInfo
	if err := json.Unmarshal([]byte(list), &infos); err != nil || len(infos) != 1 || infos[0].Model != "script:"+cassette {
		t.Errorf("the session recorded %+v, want model script:%s", infos, cassette)
	}
}

// Quitting the screen (in tmux, as a person would) leaves the session's name and the
// command that resumes it on the terminal.
func TestQuitSaysHowToResume(t *testing.T) {
	t.Parallel()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("no tmux on PATH")
	}
	bin := coplayBinary(t)
	dir := t.TempDir()
	cassette, _ := filepath.Abs(filepath.Join("..", "testdata", "cassettes", "demo.cassette.json"))
	name := fmt.Sprintf("coplay-quit-%d", os.Getpid())
	shell := fmt.Sprintf("cd %s && %s --data q.db --brain script:%s; echo EXITED; sleep 60", shellQuote(dir), shellQuote(bin), shellQuote(cassette))
	if out, err := exec.Command(tmux, "new-session", "-d", "-s", name, "-x", "250", "-y", "48", "env", "XDG_CONFIG_HOME="+dir, "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "sh", "-c", shell).CombinedOutput(); err != nil {
		t.Skipf("tmux cannot start a session here: %v %s", err, out)
	}
	defer exec.Command(tmux, "kill-session", "-t", name).Run()
	pane := func() string {
		out, _ := exec.Command(tmux, "capture-pane", "-p", "-t", name).Output()
		return string(out)
	}
	waitFor := func(what string, ok func(string) bool) string {
		deadline := time.Now().Add(2 * time.Minute)
		for {
			p := pane()
			if ok(p) {
				return p
			}
			if time.Now().After(deadline) {
				t.Fatalf("waited for %s; the screen shows:\n%s", what, p)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("the screen", func(p string) bool { return strings.Contains(p, "step 1") })
	exec.Command(tmux, "send-keys", "-t", name, "q").Run()
	p := waitFor("the quit", func(p string) bool {
		if strings.Contains(p, "Quit anyway?") {
			exec.Command(tmux, "send-keys", "-t", name, "y").Run()
		}
		return strings.Contains(p, "EXITED")
	})
	want := "coplay --data q.db --brain script:" + cassette + " --resume universe-"
	if !strings.Contains(p, "Session universe-") || !strings.Contains(strings.Join(strings.Fields(p), " "), want) {
		t.Errorf("after quitting the terminal shows:\n%s\nwant the session and %q", p, want)
	}
}

// A wrong --base-url is said at once, after a few tries, naming the flag; nothing is
// left in the notebook. And a --resume without a name passes over newer sessions that
// never played a step (a start that did not get going), saying so.
func TestUnreachableBaseURLAndEmptySessions(t *testing.T) {
	t.Parallel()
	env := []string{"SPACETRADERS_TOKEN=st-test-token-0000", "HTTP_PROXY=", "http_proxy="}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v2"
	ln.Close() // nothing listens there now
	data := filepath.Join(t.TempDir(), "coplay.db")
	var out, errOut bytes.Buffer
	code := runEnv(t, env, []string{"run", "--headless", "--data", data, "--game", "spacetraders", "--base-url", dead, "--steps", "1"}, &out, &errOut)
	msg := errOut.String()
	if code != 1 || !strings.Contains(msg, "cannot reach the game server at "+dead) || !strings.Contains(msg, "check --base-url") || strings.Count(msg, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("the failed start left a notebook: %v", err)
	}

	coplayRun(t, env, "", "run", "--headless", "--data", data, "--brain", "autopilot", "--approve", "all", "--steps", "1")
	book, err := notes.Open(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	played, _ := book.List()
	empty, err := book.Create("", "universe", "autopilot")
	if err != nil {
		t.Fatal(err)
	}
	book.Close()
	out.Reset()
	errOut.Reset()
	code = runEnv(t, env, []string{"run", "--headless", "--data", data, "--resume", "--approve", "all", "--steps", "2"}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "(session "+played[0].Name+")") {
		t.Errorf("--resume: exit %d, did not go on with %s:\n%.300s\n%s", code, played[0].Name, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "resuming "+played[0].Name+", the newest session that played a step (newer, without one: "+empty.Name()) {
		t.Errorf("--resume did not say which session it passed over: %q", errOut.String())
	}
}

// TestFinishedScriptIsOver: a cassette that ran out stops the run saying so, with no
// request past its last answer; resuming the session asks the script nothing and says
// it is over again.
func TestFinishedScriptIsOver(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "coplay.db")
	env := []string{"XDG_CONFIG_HOME=" + dir, "OPENAI_API_KEY=", "OPENAI_BASE_URL="}
	cassette := filepath.Join("..", "testdata", "cassettes", "arena-hello.cassette.json") // two answers
	count := func(out string) (usage int, last agent.Event) {
		eachEvent(t, strings.NewReader(out), func(ev agent.Event, _ []byte) {
			if ev.Type == agent.EventUsage {
				usage++
			}
			if ev.Type == agent.EventState {
				last = ev
			}
		})
		return usage, last
	}
	out, _ := coplayRun(t, env, "", "run", "--headless", "--data", db, "--game", "arena", "--scenario", "hello",
		"--brain", "script:"+cassette, "--approve", "all", "--steps", "50")
	usage, last := count(out)
	if usage != 2 || last.State != agent.Stopped || !strings.Contains(last.Text, "the script arena-hello.cassette.json is over") {
		t.Fatalf("first run: %d model answers, last state %+v", usage, last)
	}
	out, _ = coplayRun(t, env, "", "run", "--headless", "--data", db, "--resume", "--approve", "all", "--steps", "50")
	usage, last = count(out)
	if usage != 0 || !strings.Contains(last.Text, "is over") {
		t.Fatalf("resumed: %d model answers, last state %+v", usage, last)
	}
}
