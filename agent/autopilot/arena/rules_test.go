package arena

import (
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

func TestFightPreference(t *testing.T) {
	for _, c := range []struct {
		in        string
		fight, ok bool
	}{
		{"don't fight", false, true},
		{"Don’t fight for now, save your energy.", false, true},
		{"stay out of battles", false, true},
		{"no more battles please", false, true},
		{"avoid the battle with Tide", false, true},
		{"fight in the battles again", true, true},
		{"join every battle", true, true},
		{"go fight!", true, true},
		{"buy bread when it is cheap", false, false},
		{"", false, false},
		{"fight, or don't fight, whatever", false, false},
	} {
		fight, ok := fightPreference(c.in)
		if fight != c.fight || ok != c.ok {
			t.Errorf("%q: fight %v ok %v, want %v %v", c.in, fight, ok, c.fight, c.ok)
		}
	}
}

// Advice is read from this step's input as the runner writes it, not from older steps.
func TestNewAdviceReadsThisStepOnly(t *testing.T) {
	msgs := []agent.Message{
		{Role: agent.RoleUser, Content: "# Step 1\n\n## World\n\n...\n\n## Advice from the person\n\n> old advice\n"},
		{Role: agent.RoleAssistant, Content: "ok"},
		{Role: agent.RoleUser, Content: "# Step 2\n\n## World\n\n...\n\n## Advice from the person\n\n> don't fight\n> for a while\n> also reply to Mara\n\nFirst fold this advice into your notes."},
	}
	got := newAdvice(msgs)
	if len(got) != 1 || got[0] != "don't fight\nfor a while\nalso reply to Mara" {
		t.Fatalf("advice %q", got)
	}
	if got := newAdvice(msgs[:2]); len(got) != 0 {
		t.Fatalf("advice already answered read again: %q", got)
	}
}

// A vetoed call is not proposed again until new advice, a refused one for a few steps.
func TestVetoesAndRefusalsBlock(t *testing.T) {
	m := newMemory()
	m.step = 5
	m.issued["a"], m.issued["b"] = "join battle-1", "buy bread"
	m.absorb([]agent.Message{
		{Role: agent.RoleTool, ToolCallID: "a", Content: "not executed: vetoed by the person: not now. Do not repeat this call unchanged."},
		{Role: agent.RoleTool, ToolCallID: "b", Content: "game error 412: price changed: bread is now 8 gold"},
	})
	if why := m.blocked("join battle-1"); !strings.HasPrefix(why, "you vetoed") {
		t.Fatalf("veto: %q", why)
	}
	if why := m.blocked("buy bread"); !strings.Contains(why, "price changed") {
		t.Fatalf("refusal: %q", why)
	}
	m.step += refusalSteps + 1
	if m.blocked("buy bread") != "" || m.blocked("join battle-1") == "" {
		t.Fatal("a refusal blocks too long, or a veto too short")
	}
	m.absorb([]agent.Message{{Role: agent.RoleUser, Content: "## Advice from the person\n\n> fight now"}})
	if m.blocked("join battle-1") != "" || m.noFight {
		t.Fatal("new advice did not lift the veto")
	}
}
