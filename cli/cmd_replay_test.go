package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// stepObservations maps each step of headless output to the observation that followed
// its step event.
func stepObservations(evs []agent.Event) map[int]*game.Observation {
	out := map[int]*game.Observation{}
	step := 0
	for _, ev := range evs {
		switch {
		case ev.Type == agent.EventStep:
			step = ev.Step
		case ev.Type == agent.EventObservation && step > 0 && out[step] == nil:
			out[step] = ev.Observation
		}
	}
	return out
}

func onlySession(t *testing.T, data string) []sessionJSON {
	t.Helper()
	var list []sessionJSON
	if err := json.Unmarshal([]byte(runInProcess(t, "sessions", "--json", "--data", data)), &list); err != nil {
		t.Fatal(err)
	}
	return list
}

// TestReplayForkAndEvalFrom plays a short autopilot session of each built-in world, then
// checks that replay --json gives every step with the journaled observation, that a
// fork begins with that step's world and plays on as a child of the original (whose
// export does not change), and that eval --from scores from that step.
func TestReplayForkAndEvalFrom(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays two short autopilot sessions")
	}
	for _, tc := range []struct {
		game        string
		steps, fork int
		metric      string
		flags       []string
	}{
		// Without --no-rate-limit the universe's 2 requests a second paced the play: 20 s.
		{"universe", 16, 8, "credits", []string{"--no-rate-limit"}},
		{"arena", 12, 6, "score", nil},
	} {
		t.Run(tc.game, func(t *testing.T) {
			t.Parallel()
			data := filepath.Join(t.TempDir(), "coplay.db")
			out := runInProcess(t, append([]string{"run", "--headless", "--game", tc.game, "--speed", "1000", "--approve", "all", "--steps", itoa(tc.steps), "--data", data}, tc.flags...)...)
			played := stepObservations(decodeEvents(t, strings.NewReader(out)))
			name := onlySession(t, data)[0].Name

			var steps []agent.ReplayStep
			for _, line := range strings.Split(strings.TrimSpace(runInProcess(t, "sessions", "replay", name, "--json", "--data", data)), "\n") {
				var st agent.ReplayStep
				if err := json.Unmarshal([]byte(line), &st); err != nil {
					t.Fatalf("bad replay line %q: %v", line, err)
				}
				steps = append(steps, st)
			}
			if len(steps) != tc.steps {
				t.Fatalf("replay gave %d steps, want %d", len(steps), tc.steps)
			}
			for i, st := range steps {
				want, _ := json.Marshal(played[i+1])
				got, _ := json.Marshal(st.Observation)
				if st.Step != i+1 || !bytes.Equal(got, want) {
					t.Fatalf("replay step %d (%d): observation\n%s\nwant the journaled\n%s", i+1, st.Step, got, want)
				}
			}

			export := runInProcess(t, "sessions", "export", name, "--data", data)
			fork := name + "@" + itoa(tc.fork)
			forked := decodeEvents(t, strings.NewReader(runInProcess(t, "run", "--headless", "--fork", fork, "--approve", "all", "--steps", "3", "--data", data)))
			first := stepObservations(forked)[tc.fork]
			if first == nil {
				t.Fatalf("the fork has no step %d: %v", tc.fork, forked)
			}
			if got, want := metrics(first), metrics(played[tc.fork]); got != want {
				t.Errorf("the fork begins with %s, want step %d's %s", got, tc.fork, want)
			}
			if got, want := withoutTimes(first.Summary), withoutTimes(played[tc.fork].Summary); got != want {
				t.Errorf("the fork begins with\n%s\nwant step %d's\n%s", got, tc.fork, want)
			}
			if again := runInProcess(t, "sessions", "export", name, "--data", data); again != export {
				t.Error("forking changed the original's export")
			}
			list := onlySession(t, data)
			var child *sessionJSON
			for i := range list {
				if list[i].Parent == fork {
					child = &list[i]
				}
			}
			if child == nil || child.Steps != tc.fork+2 {
				t.Fatalf("no fork of %s that played on in %+v", fork, list)
			}
			if table := runInProcess(t, "sessions", "--data", data); !strings.Contains(table, "└ "+child.Name) {
				t.Errorf("the table does not show the fork under its parent:\n%s", table)
			}

			var rep struct {
				Episodes []struct {
					From       string  `json:"from"`
					ScoreStart float64 `json:"score_start"`
					Steps      int     `json:"steps"`
				} `json:"episodes"`
			}
			if err := json.Unmarshal([]byte(runInProcess(t, "eval", "--from", fork, "--profile", "autopilot", "--steps", "3", "--json", "--data", data)), &rep); err != nil {
				t.Fatal(err)
			}
			if len(rep.Episodes) != 1 || rep.Episodes[0].From != fork || rep.Episodes[0].ScoreStart != metric(played[tc.fork], tc.metric) {
				t.Errorf("eval --from %s = %+v, want one episode from %v %s", fork, rep.Episodes, metric(played[tc.fork], tc.metric), tc.metric)
			}
		})
	}
}

func metrics(o *game.Observation) string {
	b, _ := json.Marshal(o.Metrics)
	return string(b)
}

func metric(o *game.Observation, name string) float64 {
	for _, m := range o.Metrics {
		if m.Name == name {
			return m.Value
		}
	}
	return -1
}

// withoutTimes drops the clock times of a universe summary (the fork's world is
// rewound to now: its times moved by as much as the time since), keeping the rest.
func withoutTimes(s string) string {
	var out []string
	for _, f := range strings.Fields(s) {
		if strings.Contains(f, ":") && strings.ContainsAny(f, "0123456789") && (strings.HasSuffix(f, "Z") || strings.Contains(f, "T")) {
			continue
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}

// TestForkMistakes: a bad --fork is refused before anything is created.
func TestForkMistakes(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "coplay.db")
	runInProcess(t, "run", "--headless", "--game", "arena", "--speed", "1000", "--approve", "all", "--steps", "2", "--data", data)
	name := onlySession(t, data)[0].Name
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fork", name}, "NAME@STEP"},
		{[]string{"--fork", name + "@9"}, "has no step 9 (its journal has steps 1 to 2)"},
		{[]string{"--fork", "nope@1"}, `no session "nope"`},
		{[]string{"--fork", name + "@1", "--resume"}, "use one of them"},
	} {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"run", "--headless", "--data", data}, tc.args...), &out, &errOut); code == 0 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, errOut.String(), tc.want)
		}
	}
	if n := len(onlySession(t, data)); n != 1 {
		t.Errorf("%d sessions after refused forks, want 1", n)
	}
}
