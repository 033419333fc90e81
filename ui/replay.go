package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
)

// The replay screen (coplay sessions replay NAME): the companion screen, read-only, fed
// from the journal. The panes are a Model that is given the session's events up to the
// end of the selected step: the log up to there, the notes and plan at that version,
// the tokens and cost so far; the world pane shows the world the step observed, and the
// Pending pane the step's calls with who decided what and why. Nothing is sent to a
// runner. One key forks at the selected step: the screen asks for a first piece of
// advice and hands the fork to its caller, which starts playing it.
//
// A league's replay has every seat's steps on one timeline, each step's events stamped
// with its seat (Event.Seat). Given the seats (Info.Seats), the screen keeps each seat's
// panes apart as the league's screen does (seats.go): the panes show the selected
// step's seat, the seat bar every seat as it stood at that point, and the timeline and
// status line name the seat. A step number typed to jump to is the selected seat's; the
// next-seat key shows the next seat at this point of the timeline. Forking forks the
// whole league as it stood when its first seat began its step at this point, the first
// advice going to the selected step's seat.

// ReplayChoice is what the person chose on the replay screen: to quit (Fork false), or
// to fork at Step with Advice as the first advice ("" for none). In a league's replay
// Step is the first seat's step (a league forks at the moment its first seat began a
// step: --fork LEAGUE@STEP) and Seat the seat the advice is for, the selected step's.
type ReplayChoice struct {
	Fork   bool
	Step   int
	Advice string
	Seat   string
}

// replayInput is what the replay screen's input line is for.
type replayInput int

const (
	inputNone   replayInput = iota
	inputGoto               // a step number to jump to
	inputAdvice             // the fork's first advice
)

// ReplayModel is the replay screen's root model. Use NewReplay.
type ReplayModel struct {
	rp   *agent.Replay
	info Info
	rk   *keymap.ReplayKeys

	idx   int    // the selected step, an index in rp.Steps
	m     *Model // the panes as they stood at the end of step built
	built int    // the step index m was fed up to; -1 when m is none

	width, height int
	input         textinput.Model
	inputFor      replayInput
	help          bool
	hint          string
	choice        ReplayChoice
}

// NewReplay returns the replay screen for rp, opened at its last step. info names the
// session and its game; its History is not used.
func NewReplay(rp *agent.Replay, info Info) *ReplayModel {
	info.History = nil
	rp = clean(rp) // a journal's strings drive no terminal either (sanitize.go)
	r := &ReplayModel{rp: rp, info: info, rk: keymap.DefaultReplay(), idx: len(rp.Steps) - 1, built: -1}
	r.input = textinput.New()
	r.input.CharLimit = 2000
	r.rebuild()
	return r
}

// RunReplay shows the replay screen until the person quits or forks, and says which.
func RunReplay(ctx context.Context, rp *agent.Replay, info Info, opts ...tea.ProgramOption) (ReplayChoice, error) {
	if len(rp.Steps) == 0 {
		return ReplayChoice{}, errors.New("the session has no steps to replay")
	}
	opts = append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)
	r := NewReplay(rp, info)
	if _, err := tea.NewProgram(r, opts...).Run(); err != nil {
		if ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
			return ReplayChoice{}, ctx.Err()
		}
		return ReplayChoice{}, fmt.Errorf("ui: %w", err)
	}
	return r.choice, nil
}

// Selected is the number of the step shown.
func (r *ReplayModel) Selected() int {
	if r.idx < 0 {
		return 0
	}
	return r.rp.Steps[r.idx].Step
}

// Init starts nothing: the journal is already read.
func (r *ReplayModel) Init() tea.Cmd { return nil }

// rebuild makes the panes for the selected step: from the events already fed when it
// is later than the last one built, else from the start.
func (r *ReplayModel) rebuild() {
	if r.idx < 0 {
		return
	}
	if r.m == nil || r.idx < r.built {
		prev := r.m
		r.m = New(nil, r.info)
		if prev != nil {
			r.m.st, r.m.layout.tab = prev.st, prev.layout.tab
			r.m.cur().log.hideNotebook = prev.cur().log.hideNotebook
			r.m.applyStyles()
		}
		r.m.layout.width, r.m.layout.height = r.width, r.height
		r.built = -1
		r.feed(r.rp.Before)
	}
	for i := r.built + 1; i <= r.idx; i++ {
		r.feed(r.rp.Steps[i].Events)
	}
	r.built = r.idx
	st := &r.rp.Steps[r.idx]
	m := r.m
	if j := m.seats.index(stepSeat(st)); j >= 0 {
		m.seats.focusOn(m, j) // the panes show the step's seat
	}
	for _, v := range m.seats.list { // nothing waits in a replay, in any seat
		v.calls.pending, v.calls.sel, v.calls.executing = nil, 0, map[string]string{}
		v.ask.items = nil
	}
	at := st.Time
	m.Now = func() time.Time { return at } // countdowns as they stood at the step
	v := m.cur()
	if st.Observation != nil {
		v.world.observe(st.Observation)
	}
	v.run.step, v.run.wait = st.Step, nil
	m.replayStep = st
	v.notes.notes = agent.NotesView{Text: st.Notes.Text, Version: st.Notes.Version, Plan: st.Notes.Plan}
}

// feed folds journaled events into the panes, as a resumed screen folds its history.
func (r *ReplayModel) feed(evs []agent.Event) {
	m := r.m
	m.replaying = true
	defer func() { m.replaying = false }()
	for _, ev := range evs {
		if ev.Type == agent.EventTextDelta {
			continue
		}
		m.seats.event(m, ev) // into its seat's panes
	}
}

// Update handles keys, the window's size and the mouse.
func (r *ReplayModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		r.width, r.height = msg.Width, msg.Height
		r.input.SetWidth(max(msg.Width-20, 10))
		r.m.Update(msg)
		return r, nil
	case tea.BackgroundColorMsg, tea.MouseWheelMsg:
		r.m.Update(msg)
		return r, nil
	case tea.KeyPressMsg:
		return r, r.key(msg)
	}
	if r.inputFor != inputNone {
		var cmd tea.Cmd
		r.input, cmd = r.input.Update(msg)
		return r, cmd
	}
	return r, nil
}

// key handles one key press.
func (r *ReplayModel) key(msg tea.KeyPressMsg) tea.Cmd {
	rk, km := r.rk, r.m.keys
	r.hint = ""
	if r.inputFor != inputNone {
		return r.inputKey(msg)
	}
	if r.m.dlg != nil {
		return r.m.handleKey(msg) // the whole view or the legend, over the panes
	}
	if r.help {
		switch {
		case key.Matches(msg, rk.Help, rk.Close):
			r.help = false
		case key.Matches(msg, rk.Quit):
			return tea.Quit
		}
		return nil
	}
	switch {
	case key.Matches(msg, rk.Quit):
		return tea.Quit
	case key.Matches(msg, rk.Help):
		r.help = true
	case key.Matches(msg, rk.Back):
		r.move(r.idx - 1)
	case key.Matches(msg, rk.Forward):
		r.move(r.idx + 1)
	case key.Matches(msg, rk.First):
		r.move(0)
	case key.Matches(msg, rk.Last):
		r.move(len(r.rp.Steps) - 1)
	case key.Matches(msg, rk.Goto):
		if seat := r.seat(); seat != "" {
			return r.ask(inputGoto, seat+" step› ", "a step number of "+seat+"'s, enter to jump")
		}
		return r.ask(inputGoto, "step› ", fmt.Sprintf("a step number from %d to %d, enter to jump", r.rp.Steps[0].Step, r.rp.Steps[len(r.rp.Steps)-1].Step))
	case key.Matches(msg, rk.Fork):
		if seat := r.seat(); seat != "" && r.m.seats.on() {
			first := r.m.seats.list[0].Name
			return r.ask(inputAdvice, "advice for "+seat+"› ", fmt.Sprintf("forks the league at %s's step %d; enter plays, esc cancels", first, r.forkStep()))
		}
		return r.ask(inputAdvice, "first advice› ", fmt.Sprintf("advice for the fork at step %d (enter plays it, esc cancels)", r.Selected()))
	case r.m.seats.on() && key.Matches(msg, km.NextSeat):
		r.nextSeat()
	case r.jumpKey(msg):
	case key.Matches(msg, km.NextTab, km.PrevTab, km.FocusWorld, km.FocusNotes, km.FocusLog, km.ScrollUp, km.ScrollDown, km.Follow, km.ToggleNotebook,
		km.Details, km.Legend):
		r.m.paneKey(msg)
	case key.Matches(msg, km.Up):
		r.m.scrollPane(r.m.layout.tab, -1)
	case key.Matches(msg, km.Down):
		r.m.scrollPane(r.m.layout.tab, 1)
	}
	return nil
}

// replayJump is a key that jumps to the next or previous step with a mark.
type replayJump struct {
	b    key.Binding
	mark string
	dir  int
}

// jumpKey jumps to the next or previous step with a mark when msg is one of the keys
// for that; it says whether it was.
func (r *ReplayModel) jumpKey(msg tea.KeyPressMsg) bool {
	rk := r.rk
	for _, j := range []replayJump{
		{rk.NextDecision, agent.MarkDecision, 1}, {rk.PrevDecision, agent.MarkDecision, -1},
		{rk.NextVeto, agent.MarkVeto, 1}, {rk.PrevVeto, agent.MarkVeto, -1},
		{rk.NextAdvice, agent.MarkAdvice, 1}, {rk.PrevAdvice, agent.MarkAdvice, -1},
		{rk.NextTrigger, agent.MarkTrigger, 1}, {rk.PrevTrigger, agent.MarkTrigger, -1},
		{rk.NextError, agent.MarkError, 1}, {rk.PrevError, agent.MarkError, -1},
	} {
		if key.Matches(msg, j.b) {
			r.jump(j.mark, j.dir)
			return true
		}
	}
	return false
}

// ask opens the input line for what.
func (r *ReplayModel) ask(what replayInput, prompt, placeholder string) tea.Cmd {
	r.inputFor = what
	r.input.Prompt, r.input.Placeholder = prompt, placeholder
	r.input.SetValue("")
	return r.input.Focus()
}

// inputKey handles a key while the input line is open.
func (r *ReplayModel) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, r.rk.Close):
		r.inputFor = inputNone
		r.input.Blur()
		return nil
	case msg.String() == "enter":
		text := strings.TrimSpace(r.input.Value())
		what := r.inputFor
		r.inputFor = inputNone
		r.input.Blur()
		if what == inputAdvice {
			r.choice = ReplayChoice{Fork: true, Step: r.forkStep(), Advice: text}
			if r.m.seats.on() {
				r.choice.Seat = r.seat()
			}
			return tea.Quit
		}
		n, err := strconv.Atoi(text)
		if err != nil {
			r.hint = fmt.Sprintf("%q is not a step number", text)
			return nil
		}
		r.move(r.stepIndex(n))
		if r.Selected() != n {
			r.hint = fmt.Sprintf("no step %d; showing step %d", n, r.Selected())
		}
		return nil
	}
	var cmd tea.Cmd
	r.input, cmd = r.input.Update(msg)
	return cmd
}

// move selects the step at index i (kept within the session).
func (r *ReplayModel) move(i int) {
	i = min(max(i, 0), len(r.rp.Steps)-1)
	if i == r.idx {
		if i == 0 {
			r.hint = "this is the first step"
		} else {
			r.hint = "this is the last step"
		}
		return
	}
	r.idx = i
	r.rebuild()
}

// jump selects the next (dir 1) or previous (-1) step that has mark.
func (r *ReplayModel) jump(mark string, dir int) {
	for i := r.idx + dir; i >= 0 && i < len(r.rp.Steps); i += dir {
		if r.rp.Steps[i].Has(mark) {
			r.idx = i
			r.rebuild()
			return
		}
	}
	where := "after"
	if dir < 0 {
		where = "before"
	}
	r.hint = fmt.Sprintf("no %s %s step %d", mark, where, r.Selected())
}

// View draws the panes, the timeline and the replay's status line.
func (r *ReplayModel) View() tea.View { return screenView(r.render()) }

func (r *ReplayModel) render() string {
	w, h := r.width, r.height
	if w <= 0 || h <= 0 {
		return ""
	}
	m := r.m
	m.layout.width, m.layout.height = w, h
	var bar []string
	if m.seats.on() && h > 3 {
		bar = []string{r.seatBar(w)}
	}
	ph := max(h-2-len(bar), 0)
	main := m.renderPanes(w, ph)
	if m.dlg != nil {
		main = overlay(main, m.dialogView(w, ph), w, ph)
	}
	if r.help {
		main = overlay(main, r.renderHelp(w, ph), w, ph)
	}
	lines := append(append(main, bar...), r.timeline(w), r.status(w))
	return strings.Join(block(lines, w, h), "\n")
}

// timeline is a line with the session's steps, the selected one marked, and the steps
// with a veto, an error, a trigger, advice or a decision marked where they are; or the
// input line while it is open; or a one-off message.
func (r *ReplayModel) timeline(w int) string {
	st := &r.m.st
	if r.inputFor != inputNone {
		return padLine(r.input.View(), w)
	}
	if r.hint != "" {
		return padLine(st.warn.Render("! "+r.hint), w)
	}
	steps := r.rp.Steps
	label := fmt.Sprintf("step %d/%d ", r.Selected(), steps[len(steps)-1].Step)
	if seat := r.seat(); seat != "" {
		label = fmt.Sprintf("%s step %d · %d/%d ", seat, r.Selected(), r.idx+1, len(steps))
	}
	bar := max(w-widthOf(label)-2, 4)
	marks := make([]rune, bar)
	for i := range marks {
		marks[i] = '─'
	}
	rank := map[rune]int{'─': 0, 'd': 1, 'a': 2, '↯': 3, '!': 4, '✗': 5}
	cell := func(i int) int { return i * bar / len(steps) }
	for i := range steps {
		s := &steps[i]
		var c rune
		switch {
		case s.Has(agent.MarkVeto):
			c = '✗'
		case s.Has(agent.MarkError):
			c = '!'
		case s.Has(agent.MarkTrigger):
			c = '↯'
		case s.Has(agent.MarkAdvice):
			c = 'a'
		case s.Has(agent.MarkDecision):
			c = 'd'
		default:
			continue
		}
		if p := cell(i); rank[c] > rank[marks[p]] {
			marks[p] = c
		}
	}
	var b strings.Builder
	b.WriteString(st.strong.Render(label))
	b.WriteString(st.muted.Render("├"))
	sel := cell(r.idx)
	for i, c := range marks {
		switch {
		case i == sel:
			b.WriteString(st.selected.Render("●"))
		case c == '✗' || c == '!':
			b.WriteString(st.bad.Render(string(c)))
		case c != '─':
			b.WriteString(st.warn.Render(string(c)))
		default:
			b.WriteString(st.muted.Render("─"))
		}
	}
	b.WriteString(st.muted.Render("┤"))
	return padLine(b.String(), w)
}

// status is the bottom line: that this is a replay, of what, the step's time, the spend
// so far, and the keys.
func (r *ReplayModel) status(w int) string {
	st := &r.m.st
	s := &r.rp.Steps[r.idx]
	step := fmt.Sprintf("step %d", s.Step)
	if seat := stepSeat(s); seat != "" {
		step = seat + " " + step
	}
	left := []string{"REPLAY (read-only)", r.info.Session, step, s.Time.Local().Format("2006-01-02 15:04:05")}
	if tok := s.Spend.PromptTokens + s.Spend.CompletionTokens; tok > 0 {
		bill := ShortCount(tok) + " tok"
		switch {
		case s.Spend.CostUnknown:
			bill += " · cost unknown"
		default:
			bill += fmt.Sprintf(" · $%.4f", s.Spend.Cost)
		}
		left = append(left, bill)
	}
	keys := []key.Binding{r.rk.Back, r.rk.Forward, r.rk.Goto, r.rk.NextVeto, r.rk.Fork, r.rk.Help, r.rk.Quit}
	var kp []string
	for _, k := range keys {
		kp = append(kp, firstKey(k)+" "+k.Help().Desc)
	}
	right := " " + strings.Join(kp, " · ") + " "
	l := " " + strings.Join(left, " · ") + " "
	for len(left) > 2 && widthOf(l)+widthOf(right) > w {
		if widthOf(right) > widthOf(" ? help · q quit ") {
			right = " " + firstKey(r.rk.Help) + " help · " + firstKey(r.rk.Quit) + " quit "
			continue
		}
		left = append(left[:1], left[2:]...) // the session's name goes first
		l = " " + strings.Join(left, " · ") + " "
	}
	if widthOf(l)+widthOf(right) > w {
		return padLine(st.statusBar.Render(l), w)
	}
	return st.statusBar.Render(l + strings.Repeat(" ", w-widthOf(l)-widthOf(right)) + right)
}

// renderHelp lists the replay's keys and the panes' keys: two columns when they fit.
func (r *ReplayModel) renderHelp(w, h int) []string {
	st := &r.m.st
	km := r.m.keys
	titles := []string{"Move", "Jump to", "Fork & screen", "Panes"}
	groups := r.rk.FullHelp()
	var taken []string // keys the replay's own bindings take from the panes'
	for _, g := range groups {
		for _, b := range g {
			taken = append(taken, b.Keys()...)
		}
	}
	var panes []key.Binding
	all := []key.Binding{km.NextTab, km.PrevTab, km.FocusWorld, km.FocusNotes, km.FocusLog,
		withDesc(km.Up, "scroll up"), withDesc(km.Down, "scroll down"), km.ScrollUp, km.ScrollDown, km.ToggleNotebook,
		withDesc(km.Details, "the step's calls whole"), km.Legend}
	if r.m.seats.on() {
		all = append(all, withDesc(km.NextSeat, "next seat, at this step"))
	}
	for _, b := range all {
		if b = without(b, taken); len(b.Keys()) > 0 {
			panes = append(panes, b)
		}
	}
	groups = append(groups, panes)
	const keyW = 11
	group := func(i int) []string {
		out := []string{st.strong.Render(titles[i])}
		for _, b := range groups[i] {
			out = append(out, st.key.Render(padLine(b.Help().Key, keyW))+" "+b.Help().Desc)
		}
		return out
	}
	left := append(append(group(0), ""), group(1)...)
	right := append(append(group(2), ""), group(3)...)
	colW := 0
	for _, l := range append(append([]string{}, left...), right...) {
		colW = max(colW, widthOf(l))
	}
	var lines []string
	if 2*colW+2+2 <= w {
		n := max(len(left), len(right))
		lines = besides(block(left, colW+2, n), block(right, colW, n))
	} else {
		lines = append(append(left, ""), right...)
	}
	lines = append(lines, "", st.muted.Render("shown as it stood at the selected step; nothing is changed"))
	dw := min(w, max(widthOf(lines[0]), 60)+2)
	return box(st, "Replay help", lines[:min(len(lines), max(h-2, 1))], dw, min(len(lines)+2, h), frameFocus)
}

// without is b without the keys in taken, its help saying only the keys left.
func without(b key.Binding, taken []string) key.Binding {
	var keys []string
	for _, k := range b.Keys() {
		if !slices.Contains(taken, k) {
			keys = append(keys, k)
		}
	}
	var shown []string
	for _, k := range keys {
		if arrow, ok := map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→"}[k]; ok {
			k = arrow
		}
		shown = append(shown, k)
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(shown, "/"), b.Help().Desc))
}
