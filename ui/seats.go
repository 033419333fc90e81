package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
)

// A league is several agents (seats) in one world, one person steering them all. Its
// screen is the one-agent screen with a seat in focus: the panes, the status bar and the
// hint show the focused seat, the seat bar (seatbar.go) shows every seat, and the Pending
// pane shows the whole queue, every seat's calls oldest first, each labelled with its
// seat. The league stamps every event with its seat and names every call that waits by
// a league id, "SEAT/ID", so deciding a call needs no seat logic; advice and the other
// commands for "the agent" go to the focused seat (seatAgent), or with "@all " and
// "@NAME " to others.
//
// The code written for one agent keeps working unchanged: the Model's fields (the
// world, the notes, the log, the calls, …) always hold one seat's state, and seats.with
// swaps another seat's state in for as long as an event of that seat, or a decision on
// its call, is handled.

// SeatInfo is one seat of a league (Info.Seats).
type SeatInfo struct {
	Name  string // the seat's name: Heron, ALPHA
	Model string // what plays it, for the seat bar: "autopilot", "gpt-4o-mini", "script:x.json"
}

// seatPanes is one seat's part of the screen while it is not in the Model's fields:
// what its panes, its status bar and its notifications show, where they are scrolled.
type seatPanes struct {
	world               worldView
	notes               notesView
	log                 logView
	calls               callBook
	ask                 askPane
	run                 runState
	spend               spend
	rules               *ruleBook
	seq                 uint64    // history.seq: the last seq of the seat's journal
	lastArrival         time.Time // the seat's grace period
	stateText, loopText string    // what the notifier knows of the seat (notify.go)
}

// newSeatPanes is a seat's part of the screen before its first event.
func newSeatPanes(m *Model) seatPanes {
	p := seatPanes{calls: newCallBook(), rules: newRuleBook(&m.st, m.keys, m.info)}
	p.log.st = &m.st
	p.world.legendHint = m.world.legendHint
	p.ask.st, p.ask.km = &m.st, m.keys
	if m.info.Banner != "" {
		p.log.add(kindInfo, m.info.Banner)
	}
	return p
}

// swap exchanges p with the Model's fields.
func (p *seatPanes) swap(m *Model) {
	p.world, m.world = m.world, p.world
	p.notes, m.notes = m.notes, p.notes
	p.log, m.log = m.log, p.log
	p.calls, m.calls = m.calls, p.calls
	p.ask, m.ask = m.ask, p.ask
	p.run, m.run = m.run, p.run
	p.spend, m.spend = m.spend, p.spend
	p.rules, m.rules = m.rules, p.rules
	p.seq, m.history.seq = m.history.seq, p.seq
	p.lastArrival, m.lastArrival = m.lastArrival, p.lastArrival
	p.stateText, m.notify.stateText = m.notify.stateText, p.stateText
	p.loopText, m.notify.loopText = m.notify.loopText, p.loopText
}

// seat is one seat of the league and, while it is not in the Model's fields, its state.
type seat struct {
	SeatInfo
	panes seatPanes
}

// seats is a league's part of the Model; with no seats the screen is a lone agent's.
type seats struct {
	list     []seat
	focus    int    // the seat the panes show
	in       int    // the seat whose state is in the Model's fields: focus, except inside with
	sel      string // the selected call of the whole queue, by its league id
	arrivals uint64 // calls that came to wait so far: the queue's order
}

// newSeats makes a league's seats, the first one focused; its state is the Model's.
func newSeats(m *Model, infos []SeatInfo) seats {
	var s seats
	for i, si := range infos {
		st := seat{SeatInfo: si}
		if i > 0 { // the first seat's state is in the Model's fields
			st.panes = newSeatPanes(m)
			st.panes.rules.seat = si.Name
		} else {
			m.rules.seat = si.Name
		}
		s.list = append(s.list, st)
	}
	return s
}

// on says whether the screen is a league's.
func (s *seats) on() bool { return len(s.list) > 0 }

// index is the seat named name, -1 for none.
func (s *seats) index(name string) int {
	for i := range s.list {
		if s.list[i].Name == name {
			return i
		}
	}
	return -1
}

// lookup is the seat named name with any case ("@heron" advises Heron), -1 for none.
func (s *seats) lookup(name string) int {
	for i := range s.list {
		if strings.EqualFold(s.list[i].Name, name) {
			return i
		}
	}
	return -1
}

// names lists the seats' names, for hints.
func (s *seats) names() string {
	var ns []string
	for _, st := range s.list {
		ns = append(ns, st.Name)
	}
	return strings.Join(ns, ", ")
}

// seatOf is the seat a league id names ("Finch/call_3" is Finch's), "" for none.
func (s *seats) seatOf(id string) string {
	if name, _, ok := strings.Cut(id, "/"); ok && s.index(name) >= 0 {
		return name
	}
	return ""
}

// inName is the name of the seat in the Model's fields ("" outside a league).
func (s *seats) inName() string {
	if !s.on() {
		return ""
	}
	return s.list[s.in].Name
}

// with runs fn with the named seat's state in the Model's fields, so that the code
// written for one agent (the event handlers, the decisions) works on any seat. "", or a
// seat the screen does not know, runs fn on the seat in the fields now.
func (s *seats) with(m *Model, name string, fn func()) { s.withIndex(m, s.index(name), fn) }

func (s *seats) withIndex(m *Model, j int, fn func()) {
	if j < 0 || j == s.in {
		fn()
		return
	}
	was := s.in
	s.list[was].panes.swap(m)
	s.list[j].panes.swap(m)
	s.in = j
	defer func() {
		s.list[j].panes.swap(m)
		s.list[was].panes.swap(m)
		s.in = was
	}()
	fn()
}

// each runs fn once for every seat with its state in the Model's fields; outside a
// league, once.
func (s *seats) each(m *Model, fn func()) {
	if !s.on() {
		fn()
		return
	}
	for i := range s.list {
		s.withIndex(m, i, fn)
	}
}

// event folds an agent event into its seat's state, and numbers the calls that came
// to wait, for the whole queue's order. A seat the screen was not told of gets a place
// of its own.
func (s *seats) event(m *Model, ev agent.Event) {
	if s.on() && ev.Seat != "" && s.index(ev.Seat) < 0 && !strings.Contains(ev.Seat, "/") {
		st := seat{SeatInfo: SeatInfo{Name: ev.Seat}, panes: newSeatPanes(m)}
		st.panes.rules.seat = ev.Seat
		s.list = append(s.list, st)
	}
	// The selection stays on its call while others come and go; a call decided leaves
	// it to the focused seat's oldest, else the oldest.
	s.pin(m)
	defer s.pin(m)
	s.with(m, ev.Seat, func() {
		m.handleEvent(ev)
		m.notify.observe(ev)
		for i := range m.calls.pending {
			if p := &m.calls.pending[i]; p.n == 0 {
				s.arrivals++
				p.n = s.arrivals
			}
		}
	})
}

// seatLook is what the seat bar, the queue and the notifier read of a seat, wherever
// its state is, without swapping it in.
type seatLook struct {
	calls               *callBook
	ask                 *askPane
	run                 *runState
	spend               *spend
	stateText, loopText *string
}

// lookAt is the look of the seat in the Model's fields.
func lookAt(m *Model) seatLook {
	return seatLook{&m.calls, &m.ask, &m.run, &m.spend, &m.notify.stateText, &m.notify.loopText}
}

func (s *seats) look(m *Model, i int) seatLook {
	if i == s.in {
		return lookAt(m)
	}
	p := &s.list[i].panes
	return seatLook{&p.calls, &p.ask, &p.run, &p.spend, &p.stateText, &p.loopText}
}

// waiting is how many of seat i's calls and questions wait for the person.
func (s *seats) waiting(m *Model, i int) int {
	l := s.look(m, i)
	return len(l.calls.pending) + len(l.ask.items)
}

// othersWait says whether a seat not in the Model's fields waits for the person.
func (s *seats) othersWait(m *Model) bool {
	for i := range s.list {
		if i != s.in && s.waiting(m, i) > 0 {
			return true
		}
	}
	return false
}

// queue is the whole queue: every seat's calls that wait for a decision, oldest first,
// each labelled with its seat. Outside a league it is the calls that wait.
func (s *seats) queue(m *Model) []pendingCall {
	if !s.on() {
		return m.calls.pending
	}
	var q []pendingCall
	for i := range s.list {
		for _, p := range s.look(m, i).calls.pending {
			p.seat = s.list[i].Name
			q = append(q, p)
		}
	}
	slices.SortStableFunc(q, func(a, b pendingCall) int { return cmp.Compare(a.n, b.n) })
	return q
}

// selIndex is where the selected call is in q: the one chosen, else the focused seat's
// oldest, else the oldest. Outside a league it is the callBook's selection.
func (s *seats) selIndex(m *Model, q []pendingCall) int {
	if !s.on() {
		return min(m.calls.sel, max(len(q)-1, 0))
	}
	first := -1
	for i, p := range q {
		if p.call.ID == s.sel {
			return i
		}
		if first < 0 && p.seat == s.list[s.focus].Name {
			first = i
		}
	}
	return max(first, 0)
}

// pin makes the selection the call selected now, so that a call that comes to wait does
// not move it.
func (s *seats) pin(m *Model) {
	if !s.on() {
		return
	}
	if p, ok := s.selected(m); ok {
		s.sel = p.call.ID
	}
}

// selected is the call the decision keys act on, and whether one waits.
func (s *seats) selected(m *Model) (pendingCall, bool) {
	q := s.queue(m)
	if len(q) == 0 {
		return pendingCall{}, false
	}
	return q[s.selIndex(m, q)], true
}

// focusOn shows seat j in the panes, its oldest call selected when it has one.
func (s *seats) focusOn(m *Model, j int) {
	if j != s.focus {
		s.list[s.focus].panes.swap(m)
		s.list[j].panes.swap(m)
		s.focus, s.in = j, j
	}
	name := s.list[j].Name
	for _, p := range s.queue(m) {
		if p.seat == name {
			s.sel = p.call.ID
			break
		}
	}
	s.placeholder(m)
}

// placeholder says in the empty advice input where advice goes.
func (s *seats) placeholder(m *Model) {
	if s.on() {
		m.advice.input.Placeholder = "advice for " + s.inName() + "; @all or @NAME for others, enter to send"
	}
}

// key handles a league's keys: the seat keys, and moving along and deciding the whole
// queue; ok says whether msg was one of them.
func (s *seats) key(m *Model, msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	if !s.on() {
		return nil, false
	}
	km := m.keys
	switch {
	case key.Matches(msg, km.NextSeat):
		s.focusOn(m, (s.focus+1)%len(s.list))
		return nil, true
	case key.Matches(msg, km.NextWaiting):
		s.nextWaiting(m)
		return nil, true
	}
	q := s.queue(m)
	if len(q) == 0 {
		return nil, false
	}
	i := s.selIndex(m, q)
	switch {
	case key.Matches(msg, km.Up):
		s.sel = q[max(i-1, 0)].call.ID
	case key.Matches(msg, km.Down):
		s.sel = q[min(i+1, len(q)-1)].call.ID
	case key.Matches(msg, km.Unfold):
		m.calls.unfold = !m.calls.unfold
	case key.Matches(msg, km.ApproveAll): // every seat's calls, each seat's grace period its own
		var done []string
		for _, p := range q {
			if !slices.Contains(done, p.seat) {
				done = append(done, p.seat)
				s.with(m, p.seat, func() { m.decisionKey(msg) })
			}
		}
	case key.Matches(msg, km.Approve, km.Veto, km.Edit, km.AlwaysAllow):
		p := q[i]
		s.sel = p.call.ID
		s.with(m, p.seat, func() {
			m.calls.sel = max(slices.IndexFunc(m.calls.pending, func(c pendingCall) bool { return c.call.ID == p.call.ID }), 0)
			cmd = m.decisionKey(msg)
		})
	default:
		return nil, false
	}
	return cmd, true
}

// nextWaiting focuses the next seat after the focused one that waits for the person.
func (s *seats) nextWaiting(m *Model) {
	n := len(s.list)
	for k := 1; k <= n; k++ {
		j := (s.focus + k) % n
		if s.waiting(m, j) == 0 {
			continue
		}
		if j == s.focus {
			m.hint = "only " + s.list[j].Name + " waits for you"
		}
		s.focusOn(m, j)
		return
	}
	m.hint = "no seat waits for you"
}

// advise sends advice: to the agent outside a league; in one, to the focused seat, to
// every seat after a leading "@all ", or to one after "@NAME ". An unknown name sends
// nothing and says so; the input keeps the text to be corrected.
func (s *seats) advise(m *Model, text string) {
	targets := []int{s.in}
	if s.on() && strings.HasPrefix(text, "@") {
		name, rest, _ := strings.Cut(text[1:], " ")
		rest = strings.TrimSpace(rest)
		switch j := s.lookup(name); {
		case strings.EqualFold(name, "all"):
			targets = targets[:0]
			for i := range s.list {
				targets = append(targets, i)
			}
		case j < 0:
			m.hint = fmt.Sprintf("no seat %q (seats: %s, or @all); nothing sent", name, s.names())
			return
		default:
			targets = []int{j}
		}
		if rest == "" {
			m.hint = "no advice after @" + name + "; nothing sent"
			return
		}
		text = rest
	}
	for _, j := range targets {
		s.withIndex(m, j, func() {
			if err := m.agent.Send(agent.Command{Cmd: agent.CmdAdvise, Text: text, Seat: s.inName()}); err != nil {
				m.log.add(kindError, "sending advice: "+err.Error())
				if s.on() {
					m.hint = "advice not sent to " + s.inName() + ": " + err.Error()
				}
				return
			}
			m.advice.sentOK(text)
			m.logAdvice(text)
		})
	}
}

// busy counts the calls running or waiting, in every seat.
func (s *seats) busy(m *Model) int {
	if !s.on() {
		return len(m.calls.pending) + len(m.calls.executing)
	}
	n := 0
	for i := range s.list {
		c := s.look(m, i).calls
		n += len(c.pending) + len(c.executing)
	}
	return n
}

// needed is what the person is needed for in a league: the seat of the oldest call
// waiting, else the first seat that needs them; the words name the seat ("Heron waits
// for your decision: navigate_ship").
func (s *seats) needed(m *Model) (key, text string) {
	order := make([]int, 0, len(s.list))
	for _, p := range s.queue(m) {
		if j := s.index(p.seat); !slices.Contains(order, j) {
			order = append(order, j)
		}
	}
	for i := range s.list {
		if !slices.Contains(order, i) {
			order = append(order, i)
		}
	}
	others := 0
	for _, j := range order {
		k, t := needOf(s.look(m, j))
		switch {
		case k == "":
		case key != "":
			others++
		default:
			key, text = s.list[j].Name+":"+k, seatSays(s.list[j].Name, t)
		}
	}
	if others > 0 {
		text += fmt.Sprintf(" (and %d more seat(s))", others)
	}
	return key, text
}

// seatSays puts a seat's name in what the screen says of "the agent".
func seatSays(name, text string) string {
	switch {
	case strings.HasPrefix(text, "the agent "):
		return name + strings.TrimPrefix(text, "the agent")
	case strings.HasPrefix(text, "waiting for "):
		return name + " waits for " + strings.TrimPrefix(text, "waiting for ")
	}
	return name + ": " + text
}

// statusInfo is the Info the status bar shows: in a league, the focused seat's model
// in place of the brain.
func (s *seats) statusInfo(m *Model) *Info {
	if !s.on() {
		return &m.info
	}
	info := m.info
	info.Brain = strings.Join(nonEmpty(s.inName(), s.list[s.in].Model), " · ")
	return &info
}

// seatAgent is a league as the screen sends to it: a command for "the agent" (pause,
// resume, keep playing, a rule, advice) goes to the seat in the Model's fields, the
// focused one except while seats.with runs. Stop (every seat) and the commands that name
// a call by its league id are the league's to route.
type seatAgent struct {
	Agent
	s *seats
}

// Send stamps the command with its seat and sends it.
func (a seatAgent) Send(c agent.Command) error {
	switch c.Cmd {
	case agent.CmdPause, agent.CmdResume, agent.CmdKeepPlaying, agent.CmdRule, agent.CmdUnrule, agent.CmdAdvise:
		if c.Seat == "" {
			c.Seat = a.s.inName()
		}
	}
	return a.Agent.Send(c)
}
