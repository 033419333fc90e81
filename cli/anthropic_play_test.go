package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// TestClaudePresetPlays plays the universe with --preset anthropic against the scripted
// model speaking the Messages API: calls go through the gate and run, the catalogue
// prices Claude with no config, and from the second request the usage shows cached tokens.
func TestClaudePresetPlays(t *testing.T) {
	t.Parallel()
	steps := []llmtest.Step{}
	for _, tool := range []string{"orbit_ship", "dock_ship", "orbit_ship", "dock_ship"} {
		steps = append(steps, llmtest.Step{Text: "Moving.", Calls: []llmtest.Call{scall(tool, `{"shipSymbol":"COPLAY-1"}`)}})
	}
	model := llmtest.NewServer(&llmtest.Cassette{Name: "claude", Steps: steps})
	defer model.Close()
	home := t.TempDir()
	evs := headlessRunEnv(t, []string{"--data", filepath.Join(home, "c.db"), "--preset", "anthropic", "--model", "claude-sonnet-4-6",
		"--model-url", model.URL(), "--steps", "4", "--approve", "all", "--no-rate-limit", "--max-cost", "1"},
		[]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "ANTHROPIC_API_KEY=sk-ant-test-key-0123456789", "ANTHROPIC_BASE_URL="},
		func(agent.Event, func(agent.Command)) {})
	var usage []agent.Usage
	ran := 0
	for _, ev := range evs {
		switch {
		case ev.Type == agent.EventUsage:
			usage = append(usage, *ev.Usage)
		case ev.Type == agent.EventResult && ev.Result != nil && ev.Result.OK():
			ran++
		case ev.Type == agent.EventError:
			t.Errorf("error: %s", ev.Text)
		}
	}
	if ran < 4 || len(usage) < 4 {
		t.Fatalf("%d calls ran, %d usage events; want 4 each", ran, len(usage))
	}
	for i, u := range usage {
		if !u.CostKnown || u.Cost <= 0 {
			t.Errorf("request %d: cost %g known %v; the catalogue prices claude-sonnet-4-6", i+1, u.Cost, u.CostKnown)
		}
		if i > 0 && u.CachedTokens == 0 {
			t.Errorf("request %d: no cached tokens", i+1)
		}
	}
	for _, ev := range evs {
		if strings.Contains(ev.Text, "sk-ant-test-key") {
			t.Errorf("the key reached an event: %s", ev.Text)
		}
	}
	t.Logf("usage: %+v", usage)
}

// --preset anthropic without its key names the variable, exit 1; --thinking is Claude's.
func TestClaudePresetNeedsItsKey(t *testing.T) {
	t.Parallel()
	env := []string{"ANTHROPIC_API_KEY=", "OPENAI_API_KEY=sk-other"}
	var out, errOut strings.Builder
	if code := runEnv(t, env, []string{"run", "--headless", "--preset", "anthropic", "--data", filepath.Join(t.TempDir(), "c.db")}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "ANTHROPIC_API_KEY") {
		t.Errorf("exit %d: %q", code, errOut.String())
	}
	errOut.Reset()
	if code := runEnv(t, env, []string{"run", "--headless", "--model", "gpt-4o-mini", "--thinking", "2048", "--data", filepath.Join(t.TempDir(), "c.db")}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "--thinking is for Claude") {
		t.Errorf("exit %d: %q", code, errOut.String())
	}
	errOut.Reset()
	withKey := []string{"ANTHROPIC_API_KEY=sk-ant-x", "OPENAI_API_KEY=sk-other"}
	if code := runEnv(t, withKey, []string{"run", "--headless", "--preset", "anthropic", "--thinking", "10", "--data", filepath.Join(t.TempDir(), "c.db")}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "1024 or more") {
		t.Errorf("--thinking 10: exit %d, %q", code, errOut.String())
	}
	for _, preset := range []string{"gemini", "deepseek", "mistral", "groq", "xai"} {
		errOut.Reset()
		code := runEnv(t, env, []string{"run", "--headless", "--preset", preset, "--data", filepath.Join(t.TempDir(), "c.db")}, &out, &errOut)
		want := strings.ToUpper(preset) + "_API_KEY"
		if code != 1 || !strings.Contains(errOut.String(), "set "+want) {
			t.Errorf("--preset %s without its key: exit %d, %q; want it to name %s", preset, code, errOut.String(), want)
		}
	}
}
