package cli

// coplay run --headless, in-process: the autopilot, README's demo and scripted models
// playing unattended.

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// runInProcess runs coplay in-process with args and an empty stdin, and returns what it
// printed on stdout; a non-zero exit fails the test with its stderr.
func runInProcess(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	return out.String()
}

// headlessEvents runs `coplay run --headless` in-process with args and returns its
// events.
func headlessEvents(t *testing.T, args ...string) []agent.Event {
	t.Helper()
	out := runInProcess(t, append([]string{"run", "--headless", "--data", filepath.Join(t.TempDir(), "coplay.db")}, args...)...)
	return decodeEvents(t, strings.NewReader(out))
}

// decodeEvents reads headless events, one JSON object a line.
func decodeEvents(t *testing.T, out io.Reader) []agent.Event {
	t.Helper()
	var evs []agent.Event
	eachEvent(t, out, func(ev agent.Event, _ []byte) { evs = append(evs, ev) })
	return evs
}

// tail is the last n bytes of s, for a failure message.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestHeadlessAutopilotCompletesStartingContract plays `coplay run --headless
// --approve all` with the autopilot against the offline universe, the way a person
// would start it, and checks the starting contract is fulfilled and credits went up.
func TestHeadlessAutopilotCompletesStartingContract(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "coplay.db")
	out := runInProcess(t, "run", "--headless", "--approve", "all", "--data", data,
		"--no-rate-limit", "--speed", "400", "--steps", "40")

	var firstCredits, lastCredits float64
	fulfilled := false
	for _, ev := range decodeEvents(t, strings.NewReader(out)) {
		switch ev.Type {
		case agent.EventObservation:
			for _, m := range ev.Observation.Metrics {
				if m.Name == "credits" {
					if firstCredits == 0 {
						firstCredits = m.Value
					}
					lastCredits = m.Value
				}
			}
		case agent.EventResult:
			if ev.Call.Tool == "fulfill_contract" && ev.Result.OK() {
				fulfilled = true
			}
		}
	}
	if !fulfilled {
		t.Fatalf("the starting contract was not fulfilled in 40 steps; output:\n%s", tail(out, 3000))
	}
	if firstCredits == 0 || lastCredits <= firstCredits {
		t.Fatalf("credits did not go up: %v → %v", firstCredits, lastCredits)
	}
	t.Logf("credits %v → %v", firstCredits, lastCredits)
}

// demoCassette is the scripted model README's demo plays.
const demoCassette = "../testdata/cassettes/demo.cassette.json"

// TestReadmeDemoPlaysTheDefaultUniverse plays README's demo against the universe its
// line starts (seed 1, default speed), headless with --approve all, and checks that the
// game took every call: no tool result is an error and no error event appears. It stops
// after the cassette's last step with calls: the step after it only talks, which ends the
// turn and would wait for a person.
//
// The rate limit is off: approving everything at once sends the demo's 40 or so requests
// in three bursts, which drains the universe's burst pool, and an observation refused
// with a 429 is then an error event (a fault of the client's pacing, not of the script;
// a person approving by hand stays well inside the limit).
func TestReadmeDemoPlaysTheDefaultUniverse(t *testing.T) {
	t.Parallel()
	c, err := llmtest.Load(demoCassette)
	if err != nil {
		t.Fatal(err)
	}
	steps, calls := 0, 0
	for i, st := range c.Steps {
		if len(st.Calls) > 0 {
			steps = i + 1
		}
		calls += len(st.Calls)
	}
	data := filepath.Join(t.TempDir(), "coplay.db")
	out := runInProcess(t, "run", "--headless", "--approve", "all", "--data", data,
		"--no-rate-limit", "--brain", "script:"+demoCassette, "--steps", strconv.Itoa(steps))

	results, stopped := 0, ""
	for _, ev := range decodeEvents(t, strings.NewReader(out)) {
		switch ev.Type {
		case agent.EventError:
			t.Errorf("error event at seq %d: %s", ev.Seq, ev.Text)
		case agent.EventResult:
			results++
			if ev.Result == nil || !ev.Result.OK() {
				t.Errorf("%s %s: %s", ev.Call.Tool, ev.Call.Args, resultText(ev))
			}
		case agent.EventState:
			if ev.State == agent.Stopped {
				stopped = ev.Text
			}
		}
	}
	if results != calls {
		t.Errorf("%d tool results for the cassette's %d calls", results, calls)
	}
	if !strings.Contains(stopped, "step limit") {
		t.Errorf("the run stopped with %q, want the step limit", stopped)
	}
	if t.Failed() {
		t.Logf("events:\n%s", tail(out, 6000))
	}
}

// README's demo plays its script to the end (its 10 answers; asked for 12 steps, it
// stops saying the script is over), and no step warns that the
// server cut the prompt: the scripted server reports the tokens it was sent, so the
// check that catches a server running the model with too small a context (Ollama's
// default) has nothing to say about our own demo.
func TestReadmeDemoGivesNoPromptCutWarning(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "coplay.db")
	// At 100 times the default speed the flights and cooldowns the demo waits for take a
	// fifth of a second, not 18 s; the prompts are the same.
	out := runInProcess(t, "run", "--headless", "--approve", "all", "--data", data,
		"--no-rate-limit", "--speed", "1000", "--brain", "script:"+demoCassette, "--steps", "12")
	steps := 0
	for _, ev := range decodeEvents(t, strings.NewReader(out)) {
		if ev.Type == agent.EventStep {
			steps = ev.Step
		}
		if strings.Contains(ev.Text, "cut the prompt") || strings.Contains(ev.Text, "OLLAMA_CONTEXT_LENGTH") {
			t.Errorf("step %d warns of a cut prompt: %s", ev.Step, ev.Text)
		}
	}
	if steps != 10 || !strings.Contains(out, "is over: its 10 answers are played") {
		t.Errorf("the demo played %d steps, want its script's 10 and the words that it is over; events:\n%s", steps, tail(out, 3000))
	}
}

// resultText is what a failed result said.
func resultText(ev agent.Event) string {
	b, _ := json.Marshal(ev.Result)
	return string(b)
}

// With --approve all, a model that answers in prose every third request plays on to
// --steps 30 without ever going idle, and every usage event carries the cached tokens
// the scripted endpoint reports.
func TestHeadlessProseDoesNotIdleUnattended(t *testing.T) {
	t.Parallel()
	out := runInProcess(t, "run", "--headless", "--data", filepath.Join(t.TempDir(), "coplay.db"),
		"--brain", "script:../testdata/cassettes/prose.cassette.json", "--approve", "all", "--steps", "30")
	var evs []agent.Event
	steps, usages, cached := 0, 0, 0
	eachEvent(t, strings.NewReader(out), func(ev agent.Event, line []byte) {
		evs = append(evs, ev)
		// The count is on the wire even when it is 0 (the first request has nothing
		// cached): a reader can tell "none cached" from "not reported".
		if ev.Type == agent.EventUsage && !bytes.Contains(line, []byte(`"cached_tokens":`)) {
			t.Errorf("usage event without cached_tokens: %s", line)
		}
		switch ev.Type {
		case agent.EventState:
			if ev.State == agent.Idle {
				t.Errorf("idle at step %d: %s", ev.Step, ev.Text)
			}
		case agent.EventStep:
			steps++
		case agent.EventUsage:
			usages++
			if ev.Usage.CachedTokens > 0 {
				cached++
			}
		}
	})
	if last := evs[len(evs)-1]; steps != 30 || !strings.Contains(last.Text, "step limit of 30") {
		t.Fatalf("%d steps, ended with %q", steps, last.Text)
	}
	if cached < usages-1 {
		t.Fatalf("%d of %d usage events carry cached tokens; all but the first should", cached, usages)
	}
}

// The model calls wait for 3 s: a waiting event with its countdown, and the next model
// request comes by itself.
func TestHeadlessWaitThenPlayGoesOn(t *testing.T) {
	t.Parallel()
	evs := headlessEvents(t, "--brain", "script:../testdata/cassettes/wait.cassette.json", "--approve", "all", "--steps", "2")
	var waited *agent.Event
	for i, ev := range evs {
		if ev.Type == agent.EventWaiting && ev.Wait != nil && !ev.Wait.Until.IsZero() {
			waited = &evs[i]
		}
		if ev.Type == agent.EventStep && ev.Step == 2 {
			if waited == nil {
				t.Fatal("step 2 came without a wait before it")
			}
			if d := ev.Time.Sub(waited.Time); d < 2500*time.Millisecond || d > 10*time.Second {
				t.Fatalf("step 2 came %v after the wait began, want about 3 s", d)
			}
			return
		}
	}
	t.Fatal("no step 2 after the wait")
}

// --max-tokens stops a long unattended run early and names the cap.
func TestHeadlessTokenCapStopsEarly(t *testing.T) {
	t.Parallel()
	evs := headlessEvents(t, "--brain", "script:../testdata/cassettes/prose.cassette.json", "--approve", "all", "--steps", "200", "--max-tokens", "20000")
	last := evs[len(evs)-1]
	if last.State != agent.Stopped || !strings.Contains(last.Text, "token cap of 20000") || last.Step >= 200 {
		t.Fatalf("ended at step %d with %q", last.Step, last.Text)
	}
}

// Stdin ends while the run waits for a person (a prose answer with --approve ask): the
// run stops, saying why once. Serial: the in-process run reads a stdin of its own.
func TestHeadlessStdinClosedSaysSoOnce(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	setStdin(t, inR)
	code := make(chan int, 1)
	go func() {
		var errOut bytes.Buffer
		c := run([]string{"run", "--headless", "--data", filepath.Join(t.TempDir(), "coplay.db"),
			"--brain", "script:../testdata/cassettes/prose.cassette.json", "--approve", "ask", "--steps", "30"}, outW, &errOut)
		outW.Close()
		code <- c
	}()
	var evs []agent.Event
	said := 0
	eachEvent(t, outR, func(ev agent.Event, _ []byte) {
		evs = append(evs, ev)
		if ev.Type == agent.EventState && (ev.State == agent.Idle || ev.State == agent.Deciding) {
			inW.Close() // nobody is left to answer
		}
		if ev.Type == agent.EventError && strings.Contains(ev.Text, "stdin") && strings.Contains(ev.Text, "stopping") {
			said++
		}
	})
	if c := <-code; c != 0 || len(evs) == 0 {
		t.Fatalf("exit %d with %d events", c, len(evs))
	}
	last := evs[len(evs)-1]
	if said != 1 || last.State != agent.Stopped || !strings.Contains(last.Text, "stdin closed") {
		t.Errorf("%d error events say the run stops for stdin, ended with %q (%s); want 1 and a stop because stdin closed", said, last.Text, last.State)
	}
}

// The demo cassette prices its tokens (like a small hosted model), so a new user's
// scripted run shows a bill; config.toml's price for the model wins over it.
func TestDemoCassetteShowsACost(t *testing.T) {
	t.Parallel()
	cost := func(evs []agent.Event) (float64, bool) {
		total, known := 0.0, true
		for _, ev := range evs {
			if ev.Type == agent.EventUsage {
				total += ev.Usage.Cost
				known = known && ev.Usage.CostKnown && !ev.Usage.CostUpper
			}
		}
		return total, known
	}
	play := func(config string) []agent.Event {
		return headlessRunEnv(t, []string{"--data", filepath.Join(t.TempDir(), "coplay.db"), "--brain", "script:../testdata/cassettes/demo.cassette.json", "--approve", "all", "--steps", "3"},
			[]string{"XDG_CONFIG_HOME=" + config}, func(agent.Event, func(agent.Command)) {})
	}
	demo, known := cost(play(t.TempDir()))
	if demo <= 0 || !known {
		t.Fatalf("the demo's usage costs $%g (known %v), want a known cost above 0", demo, known)
	}
	priced, _ := cost(play(xdgConfig(t, "[prices.scripted]\nprompt = 150\ncompletion = 600\ncached_prompt = 75\n")))
	if r := priced / demo; r < 900 || r > 1100 {
		t.Errorf("with config.toml's price 1000 times the cassette's, the run cost $%g against $%g", priced, demo)
	}
}
