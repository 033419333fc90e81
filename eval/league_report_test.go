package eval

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/secret"
)

// leagueFixture is a small league of three seats over three seeds, one of which failed.
func leagueFixture(t *testing.T) LeagueReport {
	e1 := episode(1, "a", 12.0, "b", 3.5)
	e1.Seats[0].Proposed, e1.Seats[0].Invalid, e1.Seats[0].Acts, e1.Seats[0].Vetoes = 10, 1, 8, 2
	e2 := episode(2, "b", 4.0, "a", 9.0)
	e2.Seats[1].Error = "endpoint refused key sk-test-SECRET"
	e3 := episode(3, "a", 0.0, "b", 0.0)
	e3.Error = "the world did not start"
	return mustLeague(t, leagueAB, []LeagueEpisode{e3, e1, e2})
}

func TestWriteLeagueOut(t *testing.T) {
	dir := t.TempDir()
	rep := leagueFixture(t)
	args := []string{"--game", "arena", "--league", "--profile", "a", "--profile", "b", "--seeds", "1-3"}
	if err := WriteLeagueOut(dir, rep, args, secret.New("sk-test-SECRET")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("sk-test-SECRET")) {
		t.Errorf("eval.json holds the secret:\n%s", data)
	}
	// The JSON as a reader sees it: each episode lists its seats, each profile carries a
	// rating with its uncertainty.
	var got struct {
		Score    string `json:"score"`
		Episodes []struct {
			Seed  int64 `json:"seed"`
			Seats []struct {
				Seat, Profile string
				Place         int
			} `json:"seats"`
		} `json:"episodes"`
		Profiles []struct {
			Profile string
			Rating  map[string]float64
			ScoreSE *float64 `json:"score_se"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Episodes) != 3 || got.Episodes[0].Seed != 1 || got.Episodes[0].Seats[0].Seat != "Heron" || got.Episodes[0].Seats[0].Profile != "a" || got.Episodes[0].Seats[0].Place != 1 {
		t.Errorf("episodes %+v", got.Episodes)
	}
	for _, p := range got.Profiles {
		for _, k := range []string{"mu", "sigma", "ordinal", "low", "high"} {
			if _, ok := p.Rating[k]; !ok {
				t.Errorf("%s's rating has no %s: %v", p.Profile, k, p.Rating)
			}
		}
		if p.Rating["sigma"] <= 0 || p.Rating["sigma"] >= DefaultModel().Sigma || p.ScoreSE == nil {
			t.Errorf("%s: %+v", p.Profile, p)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`coplay eval --game arena --league", "| a@v1 | 1 |", "10.50 ± 1.50", "10.0% (1 of 10)", "25.0 (2 in 8)",
		"![rating over episodes](rating.png)", "| 1 | Heron | a@v1 | - | 12 | 1 | 0 | 10 | 1 | 8 | 2 | 0 | 0 |", "| 3 | Heron | a@v1 | - | 0 | - |",
		"seed 3 failed and is not rated: the world did not start", "seed 2, seat Finch (a) ended early: endpoint refused key [REDACTED]"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	f, err := os.Open(filepath.Join(dir, LeagueChart))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() != ChartWidth {
		t.Errorf("the chart: %v, %v", err, img)
	}
}

func TestWriteLeagueTables(t *testing.T) {
	var b strings.Builder
	WriteLeagueTables(&b, leagueFixture(t))
	out := b.String()
	for _, want := range []string{"Profiles (rating: openskill plackett-luce", "a@v1", "rating (mu-3σ)", "Episodes", "Finch", "seed 3 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the tables lack %q:\n%s", want, out)
		}
	}
}
