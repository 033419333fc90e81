package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/eval"
)

// pacifistConfig is a config file with an autopilot profile that plays by other rules:
// it never joins a battle.
const pacifistConfig = `[profiles."pacifist/x"]
brain = "autopilot"
rules = ["deny join_battle: no fighting"]
`

// TestEvalLeagueArena is the check for the league eval, through the binary:
// the autopilot and a profile of the config file share an arena on seeds 1-3. Each
// episode lists its two seats (named after the profiles, each in a community, each
// having played its steps), the seats sit in another order on some seed, and each
// profile carries an OpenSkill rating with its uncertainty, a score with its standard
// error, and its rates.
func TestEvalLeagueArena(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays 3 arena leagues of 2 seats through the binary")
	}
	bin := coplayBinary(t)
	cmd := exec.Command(bin, "eval", "--game", "arena", "--league", "--profile", "autopilot", "--profile", "pacifist", "--seeds", "1-3", "--steps", "25", "--json")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+xdgConfig(t, pacifistConfig))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("coplay eval --league: %v\nstderr:\n%s", err, stderr.String())
	}
	var rep eval.LeagueReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("eval --league --json: %v\n%s", err, stdout.String())
	}
	if len(rep.Episodes) != 3 || len(rep.Profiles) != 2 || rep.Score != "score" || rep.RatingModel == "" {
		t.Fatalf("want 3 episodes, 2 profiles, scored by score and a rating model:\n%s", stdout.String())
	}
	var orders []string
	for i, e := range rep.Episodes {
		if e.Seed != int64(i+1) || e.Error != "" || len(e.Seats) != 2 {
			t.Fatalf("episode %d: seed %d, error %q, %d seats", i, e.Seed, e.Error, len(e.Seats))
		}
		var names []string
		for _, s := range e.Seats {
			names = append(names, s.Seat)
			want := map[string]string{"Autopilot": "autopilot/default", "Pacifist": "pacifist/x"}[s.Seat]
			if s.Profile != want || s.Community == "" || s.Steps != 25 || s.Acts == 0 || s.Proposed == 0 || s.Place == 0 || s.Error != "" {
				t.Errorf("seed %d seat %+v: want profile %q, a community, 25 steps, calls and acts, a place", e.Seed, s, want)
			}
		}
		orders = append(orders, strings.Join(names, ","))
	}
	if orders[0] == orders[1] && orders[1] == orders[2] {
		t.Errorf("the seats sat in the same order on every seed: %v", orders)
	}
	for _, p := range rep.Profiles {
		r := p.Rating
		if p.Episodes != 3 || p.Seats != 3 || !(r.Sigma > 0 && r.Sigma < 25.0/3) || r.Low != r.Ordinal || !(r.Low < r.Mu && r.Mu < r.High) {
			t.Errorf("profile %s: %d episodes, %d seats, rating %+v: want 3, 3 and mu inside an interval that shrank from sigma 8.33", p.Profile, p.Episodes, p.Seats, r)
		}
		if p.ScoreSE == nil || p.InvalidRate == nil || p.InterventionsPer100 == nil || *p.InterventionsPer100 != 0 {
			t.Errorf("profile %s: score s.e. %v, invalid-call rate %v, interventions per 100 actions %v: want all three (no person: 0 interventions)",
				p.Profile, p.ScoreSE, p.InvalidRate, p.InterventionsPer100)
		}
	}
	for _, key := range []string{`"rating": {`, `"mu": `, `"sigma": `, `"ordinal": `, `"score_se": `, `"invalid_call_rate": `, `"interventions_per_100_actions": `, `"community": `} {
		if !strings.Contains(stdout.String(), key) {
			t.Errorf("the JSON has no %s", key)
		}
	}
}

// TestEvalLeagueOneProfileTwice: a profile named twice with --profile sits in two seats,
// as two --seat of it do, and both leagues agree.
func TestEvalLeagueOneProfileTwice(t *testing.T) {
	t.Parallel()
	env := []string{"XDG_CONFIG_HOME=" + xdgConfig(t, pacifistConfig)}
	seats := func(args ...string) []string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := runEnv(t, env, append([]string{"eval", "--game", "arena", "--seeds", "1", "--steps", "2", "--json"}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
		}
		var rep eval.LeagueReport
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Episodes) != 1 || len(rep.Profiles) != 1 {
			t.Fatalf("%q: %v, want one episode and one profile:\n%s", args, err, stdout.String())
		}
		var out []string
		for _, s := range rep.Episodes[0].Seats {
			out = append(out, s.Profile+" as "+s.Seat)
		}
		slices.Sort(out)
		return out
	}
	byProfile := seats("--league", "--profile", "autopilot", "--profile", "autopilot")
	bySeat := seats("--seat", "Autopilot=autopilot", "--seat", "Autopilot-2=autopilot")
	if !slices.Equal(byProfile, bySeat) || len(byProfile) != 2 {
		t.Fatalf("--profile twice seats %q, --seat twice %q: want the same two seats", byProfile, bySeat)
	}
}

// TestEvalLeagueSeatsAndOut names the seats with --seat (one profile in two of them)
// and writes the report: eval.json, report.md with both tables, and the rating chart.
func TestEvalLeagueSeatsAndOut(t *testing.T) {
	t.Parallel()
	env := []string{"XDG_CONFIG_HOME=" + xdgConfig(t, pacifistConfig)}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"eval", "--game", "arena", "--seat", "Heron=autopilot", "--seat", "Finch=pacifist", "--seat", "Lark=autopilot",
		"--seeds", "4", "--steps", "6", "--out", out}
	if code := runEnv(t, env, args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, w := range []string{"Profiles (rating: openskill", "Heron", "Finch", "Lark", "autopilot/default@", "pacifist/x@", "rating.png"} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("the tables have no %q:\n%s", w, stdout.String())
		}
	}
	var rep eval.LeagueReport
	data, err := os.ReadFile(filepath.Join(out, "eval.json"))
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil || len(rep.Episodes) != 1 || len(rep.Episodes[0].Seats) != 3 || len(rep.Profiles) != 2 || rep.Profiles[0].Seats != 2 {
		t.Fatalf("eval.json: %v\n%s", err, data)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !bytes.Contains(md, []byte("## Episodes")) || !bytes.Contains(md, []byte("| 4 | ")) || !bytes.Contains(md, []byte("(rating.png)")) {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	f, err := os.Open(filepath.Join(out, eval.LeagueChart))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if img, err := png.Decode(f); err != nil || img.Bounds().Dx() != eval.ChartWidth {
		t.Errorf("rating.png: %v", err)
	}
}

// TestEvalLeagueRefusals: what cannot make a league is refused before anything plays,
// a mistake in the command line with exit status 2.
func TestEvalLeagueRefusals(t *testing.T) {
	t.Parallel()
	env := []string{"XDG_CONFIG_HOME=" + xdgConfig(t, pacifistConfig)}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--league", "--profile", "autopilot"}, 2, "a league seats at least two profiles, not 1"},
		{[]string{"--league", "--profile", "autopilot", "--profile", "pacifst"}, 2, `no profile "pacifst"`},
		{[]string{"--league", "--profile", "autopilot", "--profile", "pacifist", "--from", "s@3"}, 2, "--league plays new worlds from --seeds"},
		{[]string{"--league", "--game", "openapi", "--profile", "autopilot", "--profile", "pacifist"}, 2, "eval plays the built-in seeded games"},
		{[]string{"--seat", "Heron=autopilot"}, 2, "at least two seats, not one"},
		{[]string{"--seat", "Heron=autopilot", "--seat", "Finch"}, 2, `want NAME=PROFILE (like Heron=autopilot, Lark=script:lark.json or Finch=fast/cheap), not "Finch"`},
		{[]string{"--seat", "Heron=autopilot", "--seat", "heron=pacifist"}, 2, "given twice"},
		{[]string{"--game", "arena", "--seat", "Mara=autopilot", "--seat", "Finch=pacifist"}, 2, "has a member's name"},
		{[]string{"--seat", "Heron=autopilot", "--seat", "Finch=nobody"}, 2, `--seat Finch=nobody: no profile "nobody"`},
		{[]string{"--seat", "Heron=autopilot", "--seat", "All=pacifist"}, 2, `seat name "All" is reserved`},
		{[]string{"--seat", "Heron=autopilot", "--profile", "pacifist"}, 2, "use one of them"},
		{[]string{"--game", "universe", "--seat", "Heron=autopilot", "--seat", "X=autopilot"}, 2, "cannot be a SpaceTraders agent"},
	} {
		var stdout, stderr bytes.Buffer
		code := runEnv(t, env, append([]string{"eval"}, c.args...), &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %s; want %d and %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}

// TestSeatOrder: seeds in blocks of n seat every seat once in every place, blocks are
// shuffled apart, and a seed's order is its own whatever else is played.
func TestSeatOrder(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3, 6} {
		firsts := map[string]bool{} // each block's first order
		for block := int64(-1); block < 4; block++ {
			places := make([]map[int]bool, n)
			for i := range places {
				places[i] = map[int]bool{}
			}
			for k := int64(1); k <= int64(n); k++ {
				seed := block*int64(n) + k
				o := seatOrder(n, seed)
				if !slices.Equal(o, seatOrder(n, seed)) || !isPerm(o) {
					t.Fatalf("n %d seed %d: %v is not a fixed order of the seats", n, seed, o)
				}
				for place, seat := range o {
					places[place][seat] = true
				}
				if k == 1 {
					firsts[fmt.Sprint(o)] = true
				}
			}
			for place, seats := range places {
				if len(seats) != n {
					t.Errorf("n %d block %d: place %d seated only %v", n, block, place, seats)
				}
			}
		}
		if n > 2 && len(firsts) < 2 {
			t.Errorf("n %d: every block starts the same: %v", n, firsts)
		}
	}
	if a, b, c := seatOrder(2, 1), seatOrder(2, 2), seatOrder(2, 3); slices.Equal(a, b) && slices.Equal(b, c) {
		t.Errorf("seeds 1-3 seat 2 the same way: %v", a)
	}
}

// isPerm reports whether o holds 0..len(o)-1 once each.
func isPerm(o []int) bool {
	s := slices.Sorted(slices.Values(o))
	for i, v := range s {
		if v != i {
			return false
		}
	}
	return true
}

// TestSeatBase: seat names derived from profiles are readable and fit every league.
func TestSeatBase(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"autopilot": "Autopilot", "looker/fast": "Looker-fast", "looker/fast@0a1b2c3d": "Looker-fast",
		"script:testdata/x.cassette.json": "Seat-x", "gpt-4o-mini/temperature-0": "Gpt-4o-mini", "a": "Seat-a", "été/x": "T-x",
		"autopilot/careful": "Careful", "autopilot/bold": "Bold",
	} {
		if got := seatBase(spec); got != want {
			t.Errorf("seatBase(%q) = %q, want %q", spec, got, want)
		}
	}
}

// The seat bar and the league's first line say what plays each seat: a built-in
// temperament by its whole name, a profile before the brain it chose.
func TestSeatPlayer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ profile, brain, want string }{
		{"autopilot/bold", "autopilot", "autopilot/bold"},
		{"autopilot/careful", "autopilot", "autopilot/careful"},
		{"autopilot", "autopilot", "autopilot"},
		{"", "autopilot", "autopilot"},
		{"calm", "autopilot", "calm (autopilot)"},
		{"lark/fast", "gpt-4o-mini", "lark (gpt-4o-mini)"},
		{"script:x.cassette.json", "script", "script"},
	} {
		if got := seatPlayer(seatSpec{name: "Heron", profile: c.profile}, c.brain); got != c.want {
			t.Errorf("seatPlayer(%q, %q) = %q, want %q", c.profile, c.brain, got, c.want)
		}
	}
}
