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
