package agent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// Bounds that keep the prompt flat over a long session. The notes and the observation
// are the agent's state and are sent whole up to these caps; history beyond the
// verbatim window is folded into at most summaryLines lines plus per-tool counts.
const (
	maxNotesChars  = 8000
	maxObsChars    = 8000
	maxTextChars   = 2000 // the model's text of one step, in the verbatim history
	maxResultChars = 2000 // one tool result, in the verbatim history
	maxAdviceChars = 2000
	summaryLines   = 16
	summaryLineLen = 200
)

// stepRecord is one step as the history keeps it: what the model was shown at the
// step (input, or full when the step opens the verbatim window), what it answered and
// what came of its calls. Rendering a record is a pure function of it, so a step's
// messages are byte-identical in every request that carries them: that is what lets a
// provider's prompt cache serve them.
type stepRecord struct {
	n int
	// input is the step's user message: its header, the world (or what changed in it
	// since the step before), the notes when they changed, advice, and the runner's
	// notices. full is the same with the whole world and the notes, sent instead when
	// the step is the first of the window (there is no step before it to compare with).
	// Both are empty for steps rebuilt from the journal on resume.
	input, full string
	advice      []string
	text        string
	calls       []ToolCall // as the brain sent them
	results     []toolResult
	// thinking is the reply's signed reasoning (Thinking with a Signature or Redacted
	// data), kept in memory for a provider that needs it back within a tool loop; it is
	// not journaled, so a resumed conversation goes on without it.
	thinking []Thinking
	// asked is the person's question when the record is a question and its answer (its
	// input asks it, its text answers it, it has no calls); moves counts the person's
	// moves its input carried. Both are for the summary line.
	asked string
	moves int
}

// toolResult is what the model was told about one call.
type toolResult struct {
	tool   string
	args   json.RawMessage // valid JSON (see showArgs)
	text   string
	ok     bool
	vetoed bool
}

// history keeps up to keep steps verbatim and folds older ones into a summary in
// blocks: when the window is full, all but its newest quarter fold at once. The
// conversation before the fold point then stays byte-identical for the next three
// quarters of a window, instead of changing at every step.
type history struct {
	keep   int
	recent []stepRecord
	sum    summary
}

func (h *history) add(s stepRecord) {
	h.recent = append(h.recent, s)
	if len(h.recent) > h.keep {
		h.fold(max(1, h.keep/4))
	}
}

// fold folds the oldest steps into the summary, keeping the newest n verbatim. A
// question never opens the window: the step that opens it shows the world whole, and
// a question has no world to show.
func (h *history) fold(n int) {
	for len(h.recent) > n || len(h.recent) > 1 && h.recent[0].asked != "" {
		h.sum.fold(h.recent[0])
		h.recent[0] = stepRecord{}
		h.recent = h.recent[1:]
	}
}

// summary is the folded part of the history: one line per recent folded step, and the
// oldest ones merged into counts. It is deterministic and costs no model call.
type summary struct {
	lines         []string
	merged        int // folded steps whose line was dropped; they live on in the counts
	calls         map[string]int
	failed, vetos int
	advice        int
}

func (s *summary) fold(st stepRecord) {
	s.lines = append(s.lines, stepLine(st))
	if len(s.lines) > summaryLines {
		s.lines = s.lines[1:]
		s.merged++
	}
	s.count(st)
}

// count keeps the totals of every folded step.
func (s *summary) count(st stepRecord) {
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	for _, r := range st.results {
		s.calls[r.tool]++
		switch {
		case r.vetoed:
			s.vetos++
		case !r.ok:
			s.failed++
		}
	}
	s.advice += len(st.advice)
}

func (s *summary) String() string {
	if len(s.lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Earlier steps (summary)\n\n")
	if s.merged > 0 {
		fmt.Fprintf(&b, "Before that: %d older steps.", s.merged)
	}
	var names []string
	for k := range s.calls {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, s.calls[k]))
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, " All folded steps: calls %s; %d failed, %d vetoed; %d advice.\n",
			strings.Join(parts, ", "), s.failed, s.vetos, s.advice)
	}
	for _, l := range s.lines {
		b.WriteString("- ")
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// stepLine is one folded step in a line.
func stepLine(st stepRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %d:", st.n)
	if st.asked != "" {
		fmt.Fprintf(&b, " the person asked %q;", clip(oneLine(st.asked), 60))
	}
	if st.moves > 0 {
		fmt.Fprintf(&b, " the person played %d move(s);", st.moves)
	}
	for _, a := range st.advice {
		fmt.Fprintf(&b, " advice %q;", clip(oneLine(a), 60))
	}
	if st.text != "" {
		fmt.Fprintf(&b, " said %q;", clip(oneLine(st.text), 60))
	}
	for _, r := range st.results {
		status := "ok"
		switch {
		case r.vetoed:
			status = "vetoed"
		case !r.ok:
			status = "failed"
		}
		fmt.Fprintf(&b, " %s%s → %s: %s;", r.tool, clip(string(r.args), 60), status, clip(oneLine(r.text), 50))
	}
	if len(st.results) == 0 && st.text == "" && st.asked == "" && st.moves == 0 {
		b.WriteString(" (nothing)")
	}
	return clip(strings.TrimSuffix(b.String(), ";"), summaryLineLen)
}

// NotesReader is what the prompt reads of the notebook: the notes and the plan.
// *notes.Session satisfies it.
type NotesReader interface {
	Notes() (notes.Notes, error)
	Plan() ([]notes.PlanStep, error)
}

// prompter is the prompt: the step's input (what the model is shown of the world, the
// notes, advice, notices and triggers) and the messages within the window (the
// history). It sends nothing and emits nothing: the Runner hands it what a step saw
// and sends the brain what it returns. Owned by the Run goroutine.
type prompter struct {
	game  game.Game
	notes NotesReader
	hist  history
	// budget is Config.PromptBudget, fitted says it was narrowed to the model's window
	// (window.go); the Runner sets both again when a brain reports its window.
	budget int
	fitted bool
	// The model's view (input.go): the world and notes as the step before showed them.
	prevWorld     string
	prevWorldStep int // 0: the next step shows the world whole
	prevNotes     string
	notices       []string // the runner's word to the model at the next step
	advice        []string // the person's advice for the next step
	// fresh is set when advice arrives and cleared when advice goes to the model:
	// advice handed back after a model failure does not skip the wait that follows.
	fresh bool
	// The person's own moves since the model's last request (person.go), and those the
	// last request carried (given back when the model failed).
	moves, sentMoves []playedMove
	// open is the step whose calls are on their way (nil between batches): a question
	// asked meanwhile is answered after it; after are those questions with their
	// answers, added to the history once the step is.
	open  *stepRecord
	after []stepRecord
}

// advise queues the person's advice for the next step.
func (p *prompter) advise(text string) {
	p.advice = append(p.advice, text)
	p.fresh = true
}

// takeAdvice returns the advice for this step and clears it.
func (p *prompter) takeAdvice() []string {
	a := p.advice
	p.advice, p.fresh = nil, false
	return a
}

// giveBack puts advice the model never read before what came since.
func (p *prompter) giveBack(advice []string) { p.advice = append(advice, p.advice...) }

func newPrompter(g game.Game, n NotesReader, cfg Config) *prompter {
	p := &prompter{game: g, notes: n, hist: history{keep: cfg.HistorySteps}}
	p.size(cfg)
	if cfg.Notice != "" {
		p.notice(cfg.Notice)
	}
	return p
}

// size takes the prompt budget from cfg (after fitWindow).
func (p *prompter) size(cfg Config) { p.budget, p.fitted = cfg.PromptBudget, cfg.windowFitted() }

// notice queues the runner's word to the model for the next step's input.
func (p *prompter) notice(text string) { p.notices = append(p.notices, text) }

// forget makes the next step show the world and the notes whole, and carry the person's
// moves again: the step before never reached the model.
func (p *prompter) forget() {
	p.prevWorldStep, p.prevNotes = 0, ""
	p.giveBackMoves()
}

// done adds a step that ended to the history, then the questions answered while its
// calls were on their way.
func (p *prompter) done(rec stepRecord) {
	p.hist.add(rec)
	for _, q := range p.after {
		p.hist.add(q)
	}
	p.open, p.after = nil, nil
}

// question is the history record of the person's question q at step n, not yet
// answered: its input asks it, after the person's moves since the model's last
// request (delivered with it).
func (p *prompter) question(n int, q string) stepRecord {
	moves := p.takeMoves()
	return stepRecord{n: n, input: askingText(moves, q), asked: q, moves: len(moves)}
}

// ask builds the request that asks a question: the conversation as the last request
// had it (the prompt cache serves it), then the step whose calls are on their way when
// there is one (open, with the results so far), then the question.
func (p *prompter) ask(open *stepRecord, q stepRecord, index string) []Message {
	msgs := p.render(q, index)
	if open != nil {
		last := msgs[len(msgs)-1]
		msgs = append(msgs[:len(msgs)-1], stepMessages(*open, len(p.hist.recent) == 0)...)
		msgs = append(msgs, last)
	}
	first := 1
	if p.hist.sum.String() != "" {
		first = 2
	}
	msgs, _ = fitMeasured(msgs, p.promptBudget(), first, len(msgs)-1, p.measure)
	return msgs
}

// answered keeps an answered question in the history: at once, or after the step whose
// calls are on their way (inStep).
func (p *prompter) answered(q stepRecord, inStep bool) {
	if inStep {
		p.after = append(p.after, q)
		return
	}
	p.hist.add(q)
}

// prompt builds the messages for one step, append-only: the system prompt (game,
// rules, how to play, the index of deferred tools), the summary of folded steps, then
// the steps of the window one after another as the conversation had them, and last cur,
// this step's input. What changes from one step to the next is only ever added at the
// end, except when the window folds. Over the prompt budget (Config.PromptBudget) the
// window folds early; if that is not enough, the oldest verbatim steps go, then the
// longest messages are cut.
//
// index is the catalogue's index of the tools not sent whole (tools.go), "" for none.
func (p *prompter) prompt(cur stepRecord, index string) []Message {
	msgs := p.render(cur, index)
	if budget := p.promptBudget(); p.measure(msgs) > budget && len(p.hist.recent) > 1 {
		p.hist.fold(max(1, len(p.hist.recent)/4))
		msgs = p.render(cur, index)
	}
	first := 1
	if p.hist.sum.String() != "" {
		first = 2
	}
	msgs, _ = fitMeasured(msgs, p.promptBudget(), first, len(msgs)-1, p.measure)
	return msgs
}

// render lays out the messages of a step (see prompt).
func (p *prompter) render(cur stepRecord, index string) []Message {
	msgs := []Message{{Role: RoleSystem, Content: p.systemPrompt(index)}}
	if s := p.hist.sum.String(); s != "" {
		msgs = append(msgs, Message{Role: RoleUser, Content: s})
	}
	for i, st := range p.hist.recent {
		msgs = append(msgs, stepMessages(st, i == 0)...)
	}
	return append(msgs, stepMessages(cur, len(p.hist.recent) == 0)...)
}

// promptBudget is the configured budget, or the default.
func (p *prompter) promptBudget() int {
	switch b := p.budget; {
	case b <= 0:
		return DefaultPromptBudget
	case p.fitted:
		return max(b, minWindowPrompt) // the model's window: a larger prompt would be cut
	case b < minPromptBudget:
		return minPromptBudget
	default:
		return b
	}
}

// stepMessages renders a step as the conversation had it: its input (the whole of it
// when the step opens the window), then the model's answer and what came of its calls.
func stepMessages(st stepRecord, opens bool) []Message {
	var msgs []Message
	input := st.input
	if opens && st.full != "" {
		input = st.full
	}
	if input != "" {
		msgs = append(msgs, Message{Role: RoleUser, Content: input})
	} else if len(st.advice) > 0 {
		msgs = append(msgs, Message{Role: RoleUser, Content: adviceText(st.advice)})
	}
	if st.text == "" && len(st.calls) == 0 && len(st.thinking) == 0 {
		return msgs
	}
	am := Message{Role: RoleAssistant, Content: clip(st.text, maxTextChars), Thinking: st.thinking}
	for _, c := range st.calls {
		if !json.Valid(c.Args) {
			// Keep the conversation well formed for the endpoint; the tool message
			// tells the model what was wrong with what it sent.
			c.Args = json.RawMessage("{}")
		}
		c.Args = clipArgs(c.Args)
		am.ToolCalls = append(am.ToolCalls, c)
	}
	msgs = append(msgs, am)
	for i, c := range st.calls {
		msgs = append(msgs, Message{Role: RoleTool, ToolCallID: c.ID, Content: cutText(st.results[i].text, maxResultChars, "this result")})
	}
	return msgs
}

// notesText is the notebook as the model reads it.
func (p *prompter) notesText() string {
	var b strings.Builder
	n, err := p.notes.Notes()
	if err != nil {
		fmt.Fprintf(&b, "## Your notes\n\n(could not be read: %v)\n", err)
	} else {
		text := n.Text
		if utf8.RuneCountInString(text) > maxNotesChars {
			text = cutText(text, maxNotesChars, "your notes") + "\n(keep your notes shorter with update_notes)"
		}
		fmt.Fprintf(&b, "## Your notes (version %d)\n\n%s\n", n.Version, strings.TrimSpace(text))
	}
	b.WriteString("\n## Your plan\n\n")
	plan, err := p.notes.Plan()
	switch {
	case err != nil:
		fmt.Fprintf(&b, "(could not be read: %v)\n", err)
	case len(plan) == 0:
		b.WriteString("(no plan yet: make one with set_plan)\n")
	}
	for _, s := range plan {
		fmt.Fprintf(&b, "%d. [%s] %s\n", s.ID, s.Status, clip(oneLine(s.Text), 200))
	}
	return strings.TrimSpace(b.String())
}

// systemPrompt explains the game, the tools and the approval rules, and ends with the
// index of the tools not sent whole.
func (p *prompter) systemPrompt(index string) string {
	info := p.game.Info()
	var b strings.Builder
	fmt.Fprintf(&b, "You are playing %s, as a co-pilot of the person at the keyboard.\n\n", info.Title)
	b.WriteString("# Game rules\n\n")
	b.WriteString(strings.TrimSpace(info.Rules))
	b.WriteString(`

# How to play

- The conversation is the game so far, one step after another. Each step starts with a message from the runner: the step's number and time, the world (whole when the conversation starts, afterwards only the lines that changed since the step before), your notes and plan (when they changed), and advice from the person. Answer with tool calls; when you send several, they run in the order you give them, once each is decided.
- Read tools only look and run at once. Note tools (update_notes, set_plan, update_step, wait) change only your notebook or your pace and run at once. Act tools change the game: the person approves, vetoes or edits each one, unless one of the person's approval rules decides it (a call a rule denies is not executed, and you are told why).
- A vetoed call did not run: read the reason, and do not send the same call again unchanged. An edited call ran with the person's arguments; you are told exactly what changed.
- Arguments are checked against each tool's schema before anything runs; a refused call lists every problem. Fix them; the same failing call three times in a row ends your turn.
- Older steps are folded into a summary now and then. Your notes and plan are your memory: keep them current (what you know, what you are doing, what you are waiting on, lessons learned).
- Advice from the person comes first: fold it into your notes with update_notes, then act on it.
- When nothing is worth doing now (everything is travelling or cooling down), call wait with the seconds until something can act; play goes on by itself afterwards. An answer without tool calls hands the turn back to the person, or, when they have handed play over, costs a pause.
`)
	b.WriteString(index)
	return b.String()
}

// promptChars is the size of a prompt in characters: every message's content, tool call
// names and arguments. The tool catalogue is not counted: it is the same every step.
func promptChars(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += utf8.RuneCountInString(m.Content)
		for _, c := range m.ToolCalls {
			n += utf8.RuneCountInString(c.Tool) + utf8.RuneCount(c.Args)
		}
	}
	return n
}

// clip cuts s to at most n characters, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return string(rs[:n]) + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// sortedUnion returns the keys of a and b, sorted.
func sortedUnion[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}
