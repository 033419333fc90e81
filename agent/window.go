package agent

import (
	"fmt"

	"github.com/coplayhq/coplay/agent/catalog"
)

// A model's context window bounds everything one request carries: the tools, the
// messages and the room the model needs for its answer. The runner counts characters,
// not tokens (it has no tokenizer for every model), so the window is turned into
// character budgets at a cautious rate: JSON and game symbols tokenize densely.
const (
	// charsPerToken is the characters the runner counts for one token of a window.
	// English prose is about 4, JSON and symbols like X1-DF55-A2 nearer 3.
	charsPerToken = 3
	// maxAnswerRoom is the most tokens kept free for the model's answer.
	maxAnswerRoom = 4096
	// minWindowPrompt is the fewest characters of messages a window-sized prompt gets.
	minWindowPrompt = 3_000
	// minWindow is the smallest window honoured: below it not even the system prompt
	// and one observation fit.
	minWindow = 2048
)

// windowBudgets sizes the prompt and the tools for a window of the given tokens: a
// quarter of the window (at most maxAnswerRoom) is kept for the answer, and of the rest
// two fifths may be tool definitions and the others messages. ok is false for an
// unknown window (0).
func windowBudgets(window int) (prompt, tools int, ok bool) {
	if window <= 0 {
		return 0, 0, false
	}
	window = max(window, minWindow)
	room := min(window/4, maxAnswerRoom)
	chars := (window - room) * charsPerToken
	tools = chars * 2 / 5
	return chars - tools, tools, true
}

// fitWindow narrows cfg's prompt and tool budgets to what the context window holds
// (Config.ContextWindow). A budget set smaller by the person stays; a window large
// enough for the defaults changes nothing, so a 200k model keeps today's prompt.
func fitWindow(cfg *Config) {
	if !cfg.windowFitted() {
		return // the defaults fit: a large window changes nothing, byte for byte
	}
	prompt, tools, _ := windowBudgets(cfg.ContextWindow)
	if cfg.PromptBudget <= 0 || cfg.PromptBudget > prompt {
		cfg.PromptBudget = min(prompt, DefaultPromptBudget)
	}
	if cur := cfg.ToolBudget; cur <= 0 && tools < catalog.DefaultBudget || cur > tools {
		cfg.ToolBudget = tools
	}
}

// windowFitted says the budgets are narrowed to ContextWindow (fitWindow): the window
// is known and too small for the defaults.
func (c *Config) windowFitted() bool {
	prompt, tools, ok := windowBudgets(c.ContextWindow)
	return ok && (prompt < DefaultPromptBudget || tools < catalog.DefaultBudget)
}

// prepare asks a brain that can (Preparer) about its model before the first request,
// and sizes the prompt to the window it reports when none was configured. Its notice
// and its failure are shown; neither stops play.
func (r *Runner) prepare() {
	p, ok := r.cfg.Brain.(Preparer)
	if !ok {
		return
	}
	prep, err := p.Prepare(r.ctx)
	if err != nil {
		if r.ctx.Err() == nil {
			r.emitError("asking %s about the model: %v", r.cfg.Brain.Name(), err)
		}
		return
	}
	if prep.Notice != "" {
		r.emitError("%s", prep.Notice)
	}
	if prep.Window <= 0 || r.cfg.ContextWindow > 0 {
		return
	}
	r.cfg.ContextWindow = prep.Window
	fitWindow(&r.cfg)
	r.prompt.size(r.cfg)
	if err := r.tools.resize(r.cfg); err != nil {
		r.emitError("sizing the tools to the model's window of %d tokens: %v", prep.Window, err)
		return
	}
	if cat := r.tools.cat; cat.Deferred() {
		r.emit(r.tools.catalogEvent(nil, fmt.Sprintf(
			"the model's window is %d tokens: %d of %d tools are sent, the model loads the others from an index (load_tools)",
			prep.Window, len(cat.Sent()), cat.Total())))
	}
}

// indexBudget is the characters the index of tools not sent may take in the system
// prompt: the default, or within a small window a quarter of the messages' budget.
func indexBudget(cfg Config) int {
	if !cfg.windowFitted() || cfg.PromptBudget <= 0 {
		return 0
	}
	return min(catalog.DefaultIndexBudget, max(cfg.PromptBudget/4, 600))
}

// measure is the size of a prompt as the budget counts it: its characters, or within a
// model's window the characters it takes on the wire (wireChars), which is what the
// window holds.
func (p *prompter) measure(msgs []Message) int {
	if p.fitted {
		return wireChars(msgs)
	}
	return promptChars(msgs)
}

// wireChars estimates the characters msgs take in a chat request's JSON: the content
// with its escapes, each message's keys, and each call's id, name and arguments as an
// escaped string. Over 30 messages the keys alone are a tenth of a small window.
func wireChars(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += promptChars([]Message{{Content: m.Content}}) + escapes(m.Content) + 32
		for _, c := range m.ToolCalls {
			n += len(c.Tool) + len(c.Args) + escapes(string(c.Args)) + len(c.ID) + 64
		}
		n += len(m.ToolCallID)
	}
	return n
}

// escapes counts the characters JSON writes as two: quotes, backslashes, newlines, tabs.
func escapes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\\', '\n', '\t', '\r':
			n++
		}
	}
	return n
}
