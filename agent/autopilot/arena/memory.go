package arena

import (
	"regexp"
	"strings"

	"github.com/coplayhq/coplay/agent/brain"
)

// How long, in steps, a key stays blocked after the person vetoed its call, and after
// the game refused it or its arguments were invalid.
const (
	vetoSteps    = 10
	refusalSteps = 3
)

// memory is what the autopilot keeps between steps; the world itself is read afresh.
type memory struct {
	step      int
	issued    map[string]string // call id → key
	answered  map[string]bool   // call ids whose results were read
	blocks    map[string]block  // key → why it is not proposed for now
	checked   map[string]int    // members whose history was read: their bad memories then, plus one
	advice    []string
	adviceNew bool
	noFight   bool // the person asked it to stay out of battles
	t         temper
	said      string
}

// block keeps a key from being proposed until a step.
type block struct {
	until  int
	reason string
}

func newMemory() memory {
	return memory{issued: map[string]string{}, answered: map[string]bool{}, blocks: map[string]block{}, checked: map[string]int{}, t: tempers[""]}
}

// blocked returns why key must not be proposed now, or "".
func (m *memory) blocked(key string) string {
	b, ok := m.blocks[key]
	if !ok {
		return ""
	}
	if m.step > b.until {
		delete(m.blocks, key)
		return ""
	}
	return b.reason
}

var gameErrorRe = regexp.MustCompile(`game error (\d+): ([^\n]*)`)

// absorb reads the results of the autopilot's calls and the person's new advice out of
// the conversation.
func (m *memory) absorb(msgs []brain.Message) {
	for _, msg := range msgs {
		if msg.Role != brain.RoleTool || m.answered[msg.ToolCallID] {
			continue
		}
		m.answered[msg.ToolCallID] = true
		key, mine := m.issued[msg.ToolCallID]
		if !mine {
			continue
		}
		delete(m.issued, msg.ToolCallID)
		m.result(key, msg.Content)
	}
	m.adviceNew = false
	for _, a := range newAdvice(msgs) {
		m.advice = append(m.advice, a)
		m.adviceNew = true
		if fight, ok := fightPreference(a); ok {
			m.noFight = !fight
		}
	}
	if m.adviceNew {
		for k, b := range m.blocks {
			if strings.HasPrefix(b.reason, "you vetoed") {
				delete(m.blocks, k) // the person may have explained: think again
			}
		}
	}
}

// result learns from one call's outcome, as the runner words it.
func (m *memory) result(key, text string) {
	switch {
	case strings.HasPrefix(text, "not executed: vetoed"), strings.HasPrefix(text, "not executed: a rule says"):
		m.blocks[key] = block{until: m.step + vetoSteps, reason: "you vetoed " + key}
	case strings.HasPrefix(text, "not executed"):
		m.blocks[key] = block{until: m.step + refusalSteps, reason: key + " was not valid"}
	case gameErrorRe.MatchString(text):
		sm := gameErrorRe.FindStringSubmatch(text)
		m.blocks[key] = block{until: m.step + refusalSteps, reason: "the game refused " + key + ": " + sm[2]}
	}
}
