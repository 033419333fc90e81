package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// callBook is what the screen knows of the model's calls: the ones waiting for a
// decision (the Pending pane, with its selection), the ones running, and the tool of
// every call seen, for the log. Its methods take the log they write to.
type callBook struct {
	pending   []pendingCall
	sel       int
	unfold    bool              // the selected call's long arguments are shown whole
	reason    string            // the model's text of this step, the why of its calls
	executing map[string]string // call ID → tool, between tool_started and tool_result
	tools     map[string]string // call ID → tool of every call proposed, for the log
	notes     map[string]bool   // call IDs of note tools, the log's hideable bookkeeping
}

func newCallBook() callBook {
	return callBook{executing: map[string]string{}, tools: map[string]string{}, notes: map[string]bool{}}
}

// pendingCall is a call waiting for the person's decision.
type pendingCall struct {
	call   agent.Call
	at     time.Time // when it appeared, for the grace period
	reason string    // the model's text of the step that proposed it
	// revising: edited arguments were sent and the runner's check (tool_updated) has not
	// come back yet; edited: the arguments are the person's, awaiting approval.
	revising, edited bool
	before           *agent.Call // the call as it was before a revision still out
	// In a league: seat labels the call in the whole queue (seats.queue), and n is its
	// place in the order calls came to wait, across seats.
	seat string
	n    uint64
}

// name is how the Pending pane names the call: its tool, after its seat in a league.
func (p *pendingCall) name() string {
	if p.seat != "" {
		return p.seat + ": " + p.call.Tool
	}
	return p.call.Tool
}

// find is the pending call id, or nil.
func (b *callBook) find(id string) *pendingCall {
	for i := range b.pending {
		if b.pending[i].call.ID == id {
			return &b.pending[i]
		}
	}
	return nil
}

// logCall adds a log entry about call id, as notebook bookkeeping when the call is a
// note tool's, and returns it (nil when the log is muted).
func (b *callBook) logCall(l *logView, id string, k kind, text string) *entry {
	if b.notes[id] {
		return l.addNotebook(k, text)
	}
	return l.add(k, text)
}

// isNoteCall says whether c is the notebook's bookkeeping rather than a move in the game.
func isNoteCall(c agent.Call) bool {
	if c.Kind == game.Note {
		return true
	}
	switch c.Tool {
	case agent.ToolUpdateNotes, agent.ToolSetPlan, agent.ToolUpdateStep:
		return true
	}
	return false
}

// propose logs a call the model proposed.
func (b *callBook) propose(l *logView, c agent.Call) {
	text := c.Tool + " " + readableJSON(c.Args)
	if len(c.Problems) > 0 {
		var ps []string
		for _, p := range c.Problems {
			ps = append(ps, p.String())
		}
		text += "\ninvalid, not run: " + strings.Join(ps, "; ")
	}
	if c.FromText {
		text += "\nread from the model's text (the server returned no tool call)"
	}
	if c.Deferred {
		text += "\ndecided when its turn comes: a rule with a condition needs the world the earlier calls leave"
	}
	b.tools[c.ID] = c.Tool
	if isNoteCall(c) {
		b.notes[c.ID] = true
	}
	b.logCall(l, c.ID, kindCall, text)
}

// wait adds a call waiting for a decision to the pending list, once, with the model's
// words of this step; it says whether it was added (the grace period starts again).
func (b *callBook) wait(c agent.Call, now time.Time) bool {
	if !c.NeedsOK || b.find(c.ID) != nil {
		return false
	}
	why := b.reason // the model's words of this step: the why of all its calls
	if c.Why != "" {
		why = c.Why // the brain gave this call a reason of its own (the autopilot)
	}
	b.pending = append(b.pending, pendingCall{call: c, at: now, reason: why})
	return true
}

// updated takes a waiting call's new arguments and dry run (the world changed, or a
// revision was applied). It says whether the call now predicts a different outcome, so
// that a key meant for the old prediction does not decide the new one; found is false
// for a call not pending.
func (b *callBook) updated(l *logView, c agent.Call) (changed, found bool) {
	p := b.find(c.ID)
	if p == nil {
		return false, false
	}
	if len(c.Args) > 0 && compactJSON(c.Args) != compactJSON(p.call.Args) {
		p.call.Args = c.Args
		l.add(kindInfo, fmt.Sprintf("%s now has arguments %s", p.call.Tool, spacedJSON(c.Args)))
	}
	changed = fails(p.call.Simulation) != fails(c.Simulation)
	p.call.Simulation = c.Simulation
	p.call.Problems = c.Problems
	p.revising = false
	return changed, true
}

// fails says whether a dry run predicts the call fails.
func fails(s *game.Simulation) bool { return s != nil && s.Fails }

// remove drops a decided call from the pending list; it says whether it was there.
func (b *callBook) remove(id string) bool {
	for i, p := range b.pending {
		if p.call.ID == id {
			b.pending = append(b.pending[:i], b.pending[i+1:]...)
			if b.sel >= len(b.pending) {
				b.sel = max(len(b.pending)-1, 0)
			}
			return true
		}
	}
	return false
}

// toolOf finds the tool of a call the screen has seen pending or running.
func (b *callBook) toolOf(id string) string {
	if p := b.find(id); p != nil {
		return p.call.Tool
	}
	if t, ok := b.executing[id]; ok {
		return t
	}
	if t, ok := b.tools[id]; ok {
		return t
	}
	return id
}

// revised shows the edited arguments sent for review: until the runner answers, the
// Pending pane shows them with "the runner is checking it" and approving waits.
func (b *callBook) revised(p *pendingCall, args json.RawMessage) {
	before := p.call
	p.before = &before
	p.call.Args = args
	p.call.Simulation = nil
	p.call.Problems = nil
	p.revising, p.edited = true, true
}

// refused puts back the arguments of calls whose revision the runner refused (an error
// event while a revision was out).
func (b *callBook) refused(l *logView) {
	for i := range b.pending {
		p := &b.pending[i]
		if p.revising && p.before != nil {
			p.call = *p.before
			p.revising, p.edited, p.before = false, false, nil
			l.add(kindError, "the edit of "+p.call.Tool+" was not taken; its arguments are as before")
		}
	}
}

// finished ends a running call and logs its outcome.
func (b *callBook) finished(l *logView, c *agent.Call, res *game.Result) {
	tool, id := "", ""
	if c != nil {
		tool, id = c.Tool, c.ID
		delete(b.executing, c.ID)
		if c.Kind == game.Note {
			b.notes[id] = true
		}
	}
	if res != nil {
		k, text, full := describeResult(tool, res)
		if e := b.logCall(l, id, k, text); e != nil && full != text {
			e.full = full
		}
	}
}
