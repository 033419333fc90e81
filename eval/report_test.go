package eval

import (
	"strings"
	"testing"
)

// An episode restored from a session's step has no seed the person chose: the tables
// and the report say where it started ("from NAME@5"), never "seed 0".
func TestReportNamesTheStepAnEpisodeStartedFrom(t *testing.T) {
	from := Report{Episodes: []Episode{{Profile: "autopilot", Version: "v1", From: "universe-1@5", Steps: 2, Error: "stopped", ModelFailures: 1, ModelError: "down"}}}
	var tables strings.Builder
	WriteTables(&tables, from)
	md := markdown(from, []string{"--from", "universe-1@5"})
	for name, text := range map[string]string{"tables": tables.String(), "report.md": md} {
		if strings.Contains(text, "seed") {
			t.Errorf("%s says seed for an episode from a session step:\n%s", name, text)
		}
		for _, want := range []string{"from", "universe-1@5", "autopilot from universe-1@5 ended early", "autopilot from universe-1@5: the model call failed"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
	}

	seeded := Report{Episodes: []Episode{{Profile: "autopilot", Version: "v1", Seed: 3, Steps: 2, Error: "stopped"}}}
	tables.Reset()
	WriteTables(&tables, seeded)
	if !strings.Contains(tables.String(), "seed") || !strings.Contains(tables.String(), "autopilot seed 3 ended early") {
		t.Errorf("a seeded episode's table does not name its seed:\n%s", tables.String())
	}
}

// The arena's tables have no SpaceTraders columns (contracts, game requests), and a
// report of the built-in autopilot's profiles fits 160 columns; the universe's keep them.
func TestArenaTablesDropSpaceTradersColumns(t *testing.T) {
	t.Parallel()
	eps := []Episode{
		{Profile: "autopilot/careful", Version: "af9f0d54", Seed: 1, Steps: 200, Score: "score", ScoreStart: 50, ScoreEnd: 218, ScorePer1000: 840, WallSeconds: 12.3},
		{Profile: "autopilot/careful", Version: "af9f0d54", Seed: 2, Steps: 200, Score: "score", ScoreStart: 50, ScoreEnd: 266, ScorePer1000: 1080, WallSeconds: 11.9},
	}
	arena := Report{Episodes: eps, Profiles: Summarize([]ProfileID{{"autopilot/careful", "af9f0d54"}}, eps)}
	var tables strings.Builder
	WriteTables(&tables, arena)
	md := markdown(arena, []string{"--game", "arena"})
	for name, text := range map[string]string{"tables": tables.String(), "report.md": md} {
		for _, gone := range []string{"contracts", "requests"} {
			if strings.Contains(text, gone) {
				t.Errorf("the arena's %s has %q:\n%s", name, gone, text)
			}
		}
		if !strings.Contains(text, "score start") {
			t.Errorf("the arena's %s does not name its score:\n%s", name, text)
		}
	}
	for _, line := range strings.Split(tables.String(), "\n") {
		if n := len([]rune(line)); n > 160 {
			t.Errorf("a line of %d columns:\n%s", n, line)
		}
	}
	for i := range eps {
		eps[i].Score = "credits"
	}
	tables.Reset()
	WriteTables(&tables, Report{Episodes: eps})
	if !strings.Contains(tables.String(), "contracts") || !strings.Contains(tables.String(), "requests") {
		t.Errorf("the universe's tables lost contracts or requests:\n%s", tables.String())
	}
}
