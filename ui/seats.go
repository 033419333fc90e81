package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

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
// commands for "the agent" go to the focused seat (Model.tell), or with "@all " and
// "@NAME " to others.
//
// Each seat's state is a view of its own (seatview.go); a lone run is a league of one
// view that shows no seat bar. An event is folded into its seat's view, a decision is
// sent for its call's seat's view, and the panes draw the focused view: nothing moves
// between the Model and a seat.

// SeatInfo is one seat of a league (Info.Seats).
type SeatInfo struct {
	Name  string // the seat's name: Heron, ALPHA
	Model string // what plays it, for the seat bar: "autopilot", "gpt-4o-mini", "script:x.json"
}

// seats are the views of the screen, one a seat (one for a lone run), and which one the
// panes show.
type seats struct {
	list     []*seatView
	league   bool   // Info.Seats was given: a seat bar, labelled calls, seated commands
	focus    int    // the view the panes show
	sel      string // in a league, the selected call of the whole queue, by its league id
	arrivals uint64 // calls that came to wait so far: the queue's order
}

// newSeats makes a view for each of a league's seats, the first one focused, or the one
// view of a lone run.
func newSeats(m *Model, infos []SeatInfo) seats {
	if len(infos) == 0 {
		return seats{list: []*seatView{newSeatView(m, SeatInfo{})}}
	}
	s := seats{league: true}
	for _, si := range infos {
		s.list = append(s.list, newSeatView(m, si))
	}
	return s
}

// on says whether the screen is a league's.
// on says whether the screen is a league's.
func (s *seats) on() bool { return s.league }

// cur is the view the panes show: the focused seat's, or the lone run's.
func (s *seats) cur() *seatView { return s.list[s.focus] }

// index is the seat named name, -1 for none.
func (s *seats) index(name string) int {
	for i, v := range s.list {
		if v.Name == name {
			return i
		}
	}
	return -1
}

// lookup is the seat named name with any case ("@heron" advises Heron), -1 for none.
func (s *seats) lookup(name string) int {
	for i, v := range s.list {
		if strings.EqualFold(v.Name, name) {
			return i
		}
	}
	return -1
}

// names lists the seats' names, for hints.
func (s *seats) names() string {
	var ns []string
	for _, v := range s.list {
		ns = append(ns, v.Name)
	}
	return strings.Join(ns, ", ")
}

// viewOf is the view of the seat named name; "", or a seat the screen does not know,
// is the focused one (a lone run's only view).
func (s *seats) viewOf(name string) *seatView {
	if j := s.index(name); j >= 0 && name != "" {
		return s.list[j]
	}
	return s.cur()
}

// callView is the view of the seat a call's id names ("Finch/call_3" is Finch's); outside
// a league, the one view.
func (s *seats) callView(id string) *seatView {
	if name, _, ok := strings.Cut(id, "/"); ok && s.on() {
		return s.viewOf(name)
	}
	return s.cur()
}

// event folds an agent event into its seat's view, and numbers the calls that came to
// wait, for the whole queue's order. A seat the screen was not told of gets a view of
// its own.
func (s *seats) event(m *Model, ev agent.Event) {
	ev = clean(ev) // nothing in it drives the terminal (sanitize.go)
	if s.on() && ev.Seat != "" && s.index(ev.Seat) < 0 && !strings.Contains(ev.Seat, "/") {
		v := newSeatView(m, SeatInfo{Name: ev.Seat})
		if m.info.Banner != "" {
			v.log.add(kindInfo, m.info.Banner)
		}
		s.list = append(s.list, v)
	}
	// The selection stays on its call while others come and go; a call decided leaves
	// it to the focused seat's oldest, else the oldest.
	s.pin()
	defer s.pin()
	v := s.viewOf(ev.Seat)
	m.handleEvent(v, ev)
	v.observe(ev)
	for i := range v.calls.pending {
		if p := &v.calls.pending[i]; p.n == 0 {
			s.arrivals++
			p.n = s.arrivals
		}
	}
}

// othersWait says whether a seat not in focus waits for the person.
func (s *seats) othersWait() bool {
	for i, v := range s.list {
		if i != s.focus && v.waiting() > 0 {
			return true
		}
	}
	return false
}

// queue is the whole queue: every seat's calls that wait for a decision, oldest first,
// each labelled with its seat. Outside a league it is the calls that wait.
func (s *seats) queue() []pendingCall {
	if !s.on() {
		return s.cur().calls.pending
	}
	var q []pendingCall
	for _, v := range s.list {
		for _, p := range v.calls.pending {
			p.seat = v.Name
			q = append(q, p)
		}
	}
	slices.SortStableFunc(q, func(a, b pendingCall) int { return cmp.Compare(a.n, b.n) })
	return q
}

// selIndex is where the selected call is in q: the one chosen, else the focused seat's
// oldest, else the oldest. Outside a league it is the callBook's selection.
func (s *seats) selIndex(q []pendingCall) int {
	if !s.on() {
		return min(s.cur().calls.sel, max(len(q)-1, 0))
	}
	first := -1
	for i, p := range q {
		if p.call.ID == s.sel {
			return i
		}
		if first < 0 && p.seat == s.cur().Name {
			first = i
		}
	}
	return max(first, 0)
}

// pin makes the selection the call selected now, so that a call that comes to wait does
// not move it.
func (s *seats) pin() {
	if !s.on() {
		return
	}
	if p, ok := s.selected(); ok {
		s.sel = p.call.ID
	}
}

// selected is the call the decision keys act on, and whether one waits.
func (s *seats) selected() (pendingCall, bool) {
	q := s.queue()
	if len(q) == 0 {
		return pendingCall{}, false
	}
	return q[s.selIndex(q)], true
}

// selectedID is the id of the selected call, "" when none waits.
func (s *seats) selectedID() string {
	p, _ := s.selected()
	return p.call.ID
}

// focusOn shows seat j in the panes, its oldest call selected when it has one.
func (s *seats) focusOn(m *Model, j int) {
	s.focus = j
	name := s.list[j].Name
	for _, p := range s.queue() {
		if p.seat == name {
			s.sel = p.call.ID
			break
		}
	}
	s.placeholder(m)
}

// follow shows the selected call's seat in the panes, once the person chose the call:
// what they decide on is what they see. Calls that come and go never move the panes
// under the person's eyes; the Pending pane's title says when they show another seat
// (seats.elsewhere).
func (s *seats) follow(m *Model) {
	p, ok := s.selected()
	if j := s.index(p.seat); ok && j >= 0 && j != s.focus {
		s.focus = j
		s.placeholder(m)
	}
}

// elsewhere names the seat the panes show when the selected call is another seat's,
// "" when they show the selected call's seat (or outside a league).
func (s *seats) elsewhere() string {
	if p, ok := s.selected(); ok && s.on() && p.seat != s.cur().Name {
		return s.cur().Name
	}
	return ""
}

// placeholder says in the empty advice input where advice goes.
func (s *seats) placeholder(m *Model) {
	if s.on() {
		m.advice.input.Placeholder = "advice for " + s.cur().Name + "; @all or @NAME for others, enter to send"
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
	q := s.queue()
	if len(q) == 0 {
		return nil, false
	}
	i := s.selIndex(q)
	switch {
	case key.Matches(msg, km.Up):
		s.sel = q[max(i-1, 0)].call.ID
		s.follow(m)
	case key.Matches(msg, km.Down):
		s.sel = q[min(i+1, len(q)-1)].call.ID
		s.follow(m)
	case key.Matches(msg, km.Unfold):
		s.cur().calls.unfold = !s.cur().calls.unfold
	case key.Matches(msg, km.ApproveAll): // every seat's calls, each seat's grace period its own
		var done []string
		for _, p := range q {
			if !slices.Contains(done, p.seat) {
				done = append(done, p.seat)
				m.decisionKey(s.viewOf(p.seat), msg)
			}
		}
	case key.Matches(msg, km.Approve, km.Veto, km.Edit, km.AlwaysAllow):
		p := q[i]
		s.sel = p.call.ID
		v := s.viewOf(p.seat)
		v.calls.sel = max(slices.IndexFunc(v.calls.pending, func(c pendingCall) bool { return c.call.ID == p.call.ID }), 0)
		cmd = m.decisionKey(v, msg)
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
		if s.list[j].waiting() == 0 {
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
	targets := []*seatView{s.cur()}
	if s.on() && strings.HasPrefix(text, "@") {
		name, rest, _ := strings.Cut(text[1:], " ")
		rest = strings.TrimSpace(rest)
		switch j := s.lookup(name); {
		case strings.EqualFold(name, "all"):
			targets = s.list
		case j < 0:
			m.hint = fmt.Sprintf("no seat %q (seats: %s, or @all); nothing sent", name, s.names())
			return
		default:
			targets = []*seatView{s.list[j]}
		}
		if rest == "" {
			m.hint = "no advice after @" + name + "; nothing sent"
			return
		}
		text = rest
	}
	for _, v := range targets {
		if err := m.tell(v, agent.Command{Cmd: agent.CmdAdvise, Text: text}); err != nil {
			v.log.add(kindError, "sending advice: "+err.Error())
			if s.on() {
				m.hint = "advice not sent to " + v.Name + ": " + err.Error()
			}
			return
		}
		m.advice.sentOK(text)
		m.logAdvice(v, text)
	}
	// Advice for seats the panes do not show is logged in theirs: say here that it went.
	switch {
	case len(targets) > 1:
		m.hint = "advice sent to every seat (" + s.names() + "): " + text
	case targets[0] != s.cur():
		m.hint = "advice sent to " + targets[0].Name + " (its log and notes show it): " + text
	}
}

// busy counts the calls running or waiting, in every seat.
func (s *seats) busy() int {
	n := 0
	for _, v := range s.list {
		n += len(v.calls.pending) + len(v.calls.executing)
	}
	return n
}

// needed is what the person is needed for in a league: the seat of the oldest call
// waiting, else the first seat that needs them; the words name the seat ("Heron waits
// for your decision: navigate_ship").
func (s *seats) needed() (key, text string) {
	order := make([]int, 0, len(s.list))
	for _, p := range s.queue() {
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
		k, t := needOf(s.list[j])
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
	info.Brain = strings.Join(nonEmpty(s.cur().Name, s.cur().Model), " · ")
	return &info
}

// tell sends c for the seat of view v. A command for "the agent" (pause, resume, keep
// playing, a rule, advice) names v's seat, so that a league routes it there; outside a
// league the name is empty. Stop (every seat) and the commands that name a call by its
// league id are the league's to route as they are.
func (m *Model) tell(v *seatView, c agent.Command) error {
	switch c.Cmd {
	case agent.CmdPause, agent.CmdResume, agent.CmdKeepPlaying, agent.CmdRule, agent.CmdUnrule, agent.CmdAdvise,
		agent.CmdPlay, agent.CmdAsk, agent.CmdTakeOver:
		if c.Seat == "" {
			c.Seat = v.Name
		}
	}
	return m.agent.Send(c)
}
