package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
)

func TestModelsListsPricedModels(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run([]string{"models", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got modelsOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	priced, claude := 0, 0
	var mini *modelEntry
	for i, m := range got.Models {
		if m.Window > 0 && m.Price.In > 0 {
			priced++
		}
		if strings.HasPrefix(m.ID, "claude-") && m.Provider == "anthropic" {
			claude++
		}
		if m.ID == "gpt-4o-mini" {
			mini = &got.Models[i]
		}
	}
	if priced < 50 || claude < 3 || mini == nil {
		t.Fatalf("%d priced models with a window, %d Claude, gpt-4o-mini %v; want ≥ 50, ≥ 3 and present", priced, claude, mini)
	}
	if mini.PriceFrom != "catalogue" || mini.Price.In != 0.15 {
		t.Errorf("gpt-4o-mini = %+v", *mini)
	}

	// config.toml's [prices] wins, and says so.
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[prices.\"gpt-4o-mini\"]\nprompt = 1\ncompletion = 2\n"), 0o600)
	out.Reset()
	if code := run([]string{"models", "--preset", "openai", "--config", cfg}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	line := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "gpt-4o-mini ") {
			line = l
		}
	}
	if f := strings.Fields(line); len(f) < 8 || f[3] != "1" || f[4] != "2" || f[len(f)-1] != "config" {
		t.Errorf("gpt-4o-mini with a config price: %q", line)
	}
	if strings.Contains(out.String(), "claude-") {
		t.Error("--preset openai listed Claude")
	}
	if code := run([]string{"models", "--preset", "gemeni"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "did you mean gemini?") {
		t.Errorf("a misspelt preset: exit %d, %q", code, errOut.String())
	}
}

func TestVersionAndFlagAgree(t *testing.T) {
	t.Parallel()
	var a, b, errOut bytes.Buffer
	if run([]string{"version"}, &a, &errOut) != 0 || run([]string{"--version"}, &b, &errOut) != 0 {
		t.Fatalf("version failed: %s", errOut.String())
	}
	if a.String() != b.String() || !strings.HasPrefix(a.String(), "coplay ") || !strings.Contains(a.String(), "go1.") {
		t.Errorf("version %q, --version %q", a.String(), b.String())
	}
}

// With no config.toml, --max-cost works for a model the catalogue prices: the run starts,
// counts the cost at the catalogue's price and stops at the cap, saying so.
func TestMaxCostFromTheCatalogue(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(&llmtest.Cassette{Name: "gpt-4o-mini", Repeat: true, Steps: []llmtest.Step{
		{Text: "Orbit.", Calls: []llmtest.Call{scall("orbit_ship", `{"shipSymbol":"COPLAY-1"}`)}},
		{Text: "Dock.", Calls: []llmtest.Call{scall("dock_ship", `{"shipSymbol":"COPLAY-1"}`)}},
	}})
	defer model.Close()
	home := t.TempDir() // no config.toml anywhere
	evs := headlessRunEnv(t, []string{"--data", filepath.Join(home, "c.db"), "--model", "gpt-4o-mini", "--model-url", model.URL(),
		"--max-cost", "0.003", "--approve", "all", "--steps", "100", "--no-rate-limit"},
		[]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "OPENAI_API_KEY=sk-test"},
		func(agent.Event, func(agent.Command)) {})
	var cost float64
	known := true
	for _, ev := range evs {
		if ev.Type == agent.EventUsage {
			cost += ev.Usage.Cost
			known = known && ev.Usage.CostKnown
		}
	}
	last := evs[len(evs)-1]
	if !known || cost < 0.003 || !strings.Contains(last.Text, "cost cap of $0.0030") || last.Step >= 100 {
		t.Fatalf("cost %g (known %v); ended at step %d with %q", cost, known, last.Step, last.Text)
	}
	t.Logf("stopped at step %d, $%.4f: %s", last.Step, cost, last.Text)
}
