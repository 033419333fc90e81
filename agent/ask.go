package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/coplayhq/coplay/agent/rules"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
)

// A game that is a party of its own asks the runner for more than calls (game.Host):
// a question for the person (an MCP server's elicitation), the model (sampling), a
// call's progress and its server's log. They come on the game's goroutines; each is
// handed to the Run goroutine as a command (hostMsg), which journals and shows it, and a
// question waits there, like a call waiting for a decision, for the person's answer
// command. While a question is open the running call's deadline stands still
// (deadlineMore).

// Elicitation is a game's question as the person sees it (events elicitation and
// elicitation_answered).
type Elicitation struct {
	ID      string          `json:"id"`
	Server  string          `json:"server,omitempty"`
	Message string          `json:"message,omitempty"`
	Schema  json.RawMessage `json:"schema,omitempty"`  // form mode
	URL     string          `json:"url,omitempty"`     // URL mode
	CallID  string          `json:"call_id,omitempty"` // the call that was running when it was asked
	NeedsOK bool            `json:"needs_ok,omitempty"`
	// The answer (elicitation_answered).
	Action  string          `json:"action,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
	By      string          `json:"by,omitempty"` // person, policy, runner (withdrawn)
	Reason  string          `json:"reason,omitempty"`
}

// askState is the desk: what the runner keeps of the questions and sampling requests
// put to the person, and of a running call's progress. It answers with events, which
// the Runner emits (onHost). mu guards open, which Send reads; the rest is the Run
// goroutine's.
type askState struct {
	mu   sync.Mutex
	open map[string]*asking

	next     int       // for ids
	openN    int       // questions open now
	since    time.Time // when the oldest question open now was put, or the last credit
	credit   time.Duration
	progress time.Time // the last progress report of the call running
	lastCall string    // the last call a progress report was on
	callAt   time.Time // when the call running began
	extended time.Duration
	progLast map[string]time.Time // call id → the last progress event shown
	logDrops int                  // server log lines dropped (the queue was full)
	sampled  map[string]int       // server → sampling requests served this run
	out      []Event              // what the desk made, for the Runner to emit (take)
}

// asking is one open question or sampling request.
type asking struct {
	id     string
	q      game.Question
	schema *jsonschema.Schema // form mode, resolved for validation
	sample *game.SampleRequest
	reply  chan game.Answer // buffered: the Run goroutine never blocks on it
	call   string           // the call running when it was asked
	// Under askState.mu: the event that put it to the person, as sent (for a screen
	// that attaches later), and where the answer that settled it was sent from.
	shown   Event
	claimed string
}

// hostMsg is a game's word for the Run goroutine, as a command.
type hostMsg struct {
	ask      *asking       // a question or a sampling request to put
	withdraw *asking       // a question whose asker went away (the call was cut short)
	progress *Progress     // a call's progress
	log      *game.LogLine // a server's log line
	sampled  *sampled      // a sampling request the model answered
	modelAns *modelAnswer  // a question the model answered (play unattended)
}

// host is the runner's game.Host, lent to the game in the context of every call.
type host struct{ r *Runner }

var _ game.Host = host{}

// Ask puts q to the person and waits for the answer, or for ctx to end (then the
// question is withdrawn and ctx's error returned).
func (h host) Ask(ctx context.Context, q game.Question) (game.Answer, error) {
	a := &asking{q: q, reply: make(chan game.Answer, 1)}
	if len(q.Schema) > 0 {
		s, err := elicitSchema(q.Schema)
		if err != nil {
			return game.Answer{}, err
		}
		a.schema = s
	}
	if err := h.r.enqueue(command{host: &hostMsg{ask: a}}); err != nil {
		return game.Answer{}, err
	}
	for {
		select {
		case ans := <-a.reply:
			if ans.Action != askTheModel {
				return ans, nil
			}
			h.modelAnswers(ctx, a) // unattended: the model answers; the answer comes next
		case <-ctx.Done():
			h.r.tryEnqueue(command{host: &hostMsg{withdraw: a}})
			return game.Answer{}, ctx.Err()
		}
	}
}

// Progress passes a call's progress to the Run goroutine, or drops it when the runner
// is too busy to take it (a later report says more).
func (h host) Progress(p game.Progress) {
	h.r.tryEnqueue(command{host: &hostMsg{progress: &Progress{Server: p.Server, Progress: p.Progress, Total: p.Total, Message: p.Message}}})
}

// Log passes a server's log line to the Run goroutine; a full queue drops it (counted,
// and said with the next line that gets through).
func (h host) Log(l game.LogLine) {
	if !h.r.tryEnqueue(command{host: &hostMsg{log: &l}}) {
		h.r.asks.mu.Lock()
		h.r.asks.logDrops++
		h.r.asks.mu.Unlock()
	}
}

// tryEnqueue queues c without waiting; false when the queue is full or the runner has
// stopped.
func (r *Runner) tryEnqueue(c command) bool {
	select {
	case <-r.done:
		return false
	default:
	}
	select {
	case r.cmds <- c:
		return true
	default:
		return false
	}
}

// elicitSchema reads a question's schema for validating answers.
func elicitSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("the question's schema cannot be read: %w", err)
	}
	return &s, nil
}

// deskView is what the desk (askState) reads of the runner while it handles a game's
// word or an answer: it answers with events (out), and the Runner emits them.
type deskView struct {
	step   int
	call   string // the call running, if any (calls run in the model's order)
	state  State  // the runner's state; the desk's state events change it
	capped string // the spend cap this run has reached, or ""
	model  bool   // the brain is a model, which may answer a question unattended
	brain  string
	policy *policy
	scrub  scrubber
}

// desk is the view the desk handles r's host messages and answers with.
func (r *Runner) desk() *deskView {
	ib, instant := r.cfg.Brain.(InstantBrain)
	return &deskView{step: r.at.step, call: r.calls.running(), state: r.at.state, capped: r.play.capReached(),
		model: !instant || !ib.Instant(), brain: r.cfg.Brain.Name(), policy: r.policy, scrub: r.scrub}
}

// onHost handles a game's word on the Run goroutine: the desk answers with events,
// which are emitted and committed before the game hears back from a sampling request.
func (r *Runner) onHost(m *hostMsg) {
	st, v := &r.asks, r.desk()
	switch {
	case m.ask != nil && m.ask.sample != nil:
		st.putSample(v, m.ask)
	case m.ask != nil:
		st.putQuestion(v, m.ask)
	case m.withdraw != nil:
		st.closeAsk(v, m.withdraw, game.Answer{Action: game.Cancel}, "runner", "the call it belongs to ended first")
	case m.progress != nil:
		st.onProgress(v, *m.progress)
	case m.log != nil:
		st.onServerLog(v, *m.log)
	case m.sampled != nil:
		st.onSampled(v, m.sampled)
	case m.modelAns != nil:
		st.onModelAnswer(v, m.modelAns)
	}
	r.emitAll(st.take())
	r.flush()
	if m.sampled != nil {
		close(m.sampled.done)
	}
}

// emit adds ev to what the desk hands the Runner.
func (st *askState) emit(ev Event) { st.out = append(st.out, ev) }

// setState asks the Runner to set its state (a state event in the desk's out).
func (st *askState) setState(v *deskView, s State, text string) {
	v.state = s
	st.emit(Event{Type: EventState, State: s, Text: text})
}

// take returns the events the desk made and forgets them.
func (st *askState) take() []Event {
	out := st.out
	st.out = nil
	return out
}

// putQuestion journals and shows a game's question, and answers it by policy when play
// is unattended (--approve all) or a rule allows it: accepted with the schema's defaults
// when every required field has one, declined otherwise. A URL question is declined
// unattended: nobody is there to open the page. A deny rule declines it; an ask rule
// puts it to the person even when play is handed over.
func (st *askState) putQuestion(v *deskView, a *asking) {
	st.next++
	a.id = fmt.Sprintf("ask_%d_%d", v.step, st.next)
	a.call = v.call
	a.q.Message = v.scrub.text(a.q.Message)
	rule, ruled, needsOK := v.policy.host(rules.Elicitation, a.q.Server, a.q.Message)
	ev := Elicitation{ID: a.id, Server: a.q.Server, Message: a.q.Message, Schema: a.q.Schema, URL: a.q.URL, CallID: a.call, NeedsOK: needsOK}
	st.emit(Event{Type: EventElicitation, Elicitation: &ev, Text: questionText(a)})
	st.track(a)
	if ruled && rule.Action == rules.Deny {
		st.closeAsk(v, a, game.Answer{Action: game.Decline}, "rule", "rule: "+rule.String())
		return
	}
	if !needsOK {
		ans, why := unattendedAnswer(a)
		if ans.Action == game.Decline && st.modelMayAnswer(v, a) {
			a.reply <- game.Answer{Action: askTheModel} // the asking goroutine asks the model (askmodel.go)
			return
		}
		st.closeAsk(v, a, ans, "policy", why)
		return
	}
	st.askWaits(v, a)
}

// askWaits puts the runner in the waiting_for_decision state while a question or request
// waits for the person (headless: stdin closed then stops the run, as for a call).
func (st *askState) askWaits(v *deskView, a *asking) {
	if v.state != Deciding {
		st.setState(v, Deciding, a.q.Server+" waits for the person's answer")
	}
}

// questionText is the one line the log shows for a question.
func questionText(a *asking) string {
	if a.q.URL != "" {
		return fmt.Sprintf("%s asks: %s (open %s)", a.q.Server, a.q.Message, a.q.URL)
	}
	return fmt.Sprintf("%s asks: %s", a.q.Server, a.q.Message)
}

// unattendedAnswer is the policy's answer to a question nobody is there to answer.
func unattendedAnswer(a *asking) (game.Answer, string) {
	if a.q.URL != "" {
		return game.Answer{Action: game.Decline}, "play is unattended: nobody to open the page"
	}
	content, err := game.SchemaDefaults(a.q.Schema, nil)
	if err != nil {
		return game.Answer{Action: game.Decline}, "play is unattended and " + err.Error()
	}
	if missing := missingRequired(a.schema, content); len(missing) > 0 {
		return game.Answer{Action: game.Decline}, "play is unattended and " + strings.Join(missing, ", ") + " has no default"
	}
	return game.Answer{Action: game.Accept, Content: content}, "play is unattended: the server's defaults"
}

// missingRequired lists the required properties content lacks.
func missingRequired(s *jsonschema.Schema, content json.RawMessage) []string {
	if s == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(content, &obj)
	var out []string
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// closeAsk answers an open question (or sampling request) and journals the answer; a
// question no longer open (answered already) is left alone.
func (st *askState) closeAsk(v *deskView, a *asking, ans game.Answer, by, reason string) {
	st.mu.Lock()
	_, open := st.open[a.id]
	delete(st.open, a.id)
	st.mu.Unlock()
	if !open {
		return
	}
	st.openN--
	if st.openN == 0 {
		st.credit += time.Since(st.since)
		if v.state == Deciding {
			st.setState(v, Running, "")
		}
	}
	a.reply <- ans
	if a.sample != nil {
		st.sampleDecided(v, a, ans, by, reason)
		return
	}
	ev := Elicitation{ID: a.id, Server: a.q.Server, Action: ans.Action, Content: ans.Content, By: by, Reason: reason, CallID: a.call}
	text := fmt.Sprintf("%s: %s", a.q.Server, ans.Action)
	if len(ans.Content) > 0 {
		text += " " + string(ans.Content)
	}
	if reason != "" {
		text += " (" + reason + ")"
	}
	st.emit(Event{Type: EventAnswered, Elicitation: &ev, Text: text})
}

// checkAnswer checks an answer command before it is queued: the question is open, the
// action fits it, and an accepted form's content, with the schema's defaults filled in
// for what it leaves out (SEP-1034), is valid against the schema. The content the
// command carries on is the filled-in one.
func (st *askState) checkAnswer(c command) (command, error) {
	st.mu.Lock()
	a := st.open[c.ID]
	st.mu.Unlock()
	if a == nil {
		return c, fmt.Errorf("answer: no question %q is waiting for an answer", c.ID)
	}
	if a.sample != nil {
		if c.Action == game.Cancel {
			c.Action = game.Decline
		}
		if len(c.Content) > 0 {
			return c, errors.New("answer: a sampling request is accepted or declined, without content")
		}
		return c, nil
	}
	if c.Action != game.Accept || a.q.URL != "" {
		if len(c.Content) > 0 {
			return c, fmt.Errorf("answer: content goes with accepting a form, not with %s", c.Action)
		}
		return c, nil
	}
	content, err := game.SchemaDefaults(a.q.Schema, c.Content)
	if err != nil {
		return c, fmt.Errorf("answer %s refused: %w", c.ID, err)
	}
	if a.schema != nil {
		if err := game.Validate("answer", a.schema, content); err != nil {
			return c, fmt.Errorf("answer %s refused, nothing sent: %w", c.ID, err)
		}
	}
	c.Content = content
	return c, nil
}

// claim settles an open question with an answer as it is sent, from via, before the
// runner applies it: an answer sent after it, from any screen, is refused at once, to
// its sender alone. release gives the question back if the answer never gets there.
func (st *askState) claim(id, via string) (release func(), err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	a := st.open[id]
	switch {
	case a == nil:
		return nil, fmt.Errorf("answer: no question %q is waiting for an answer", id)
	case a.claimed != "":
		return nil, fmt.Errorf("answer: question %q was answered already (by person on %s): this answer came second and is dropped", id, a.claimed)
	}
	if via == "" {
		via = "this screen"
	}
	a.claimed = via
	return func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		a.claimed = ""
	}, nil
}

// shown records the event that put an open question to the person, as sent.
func (st *askState) shown(ev Event) {
	id := ""
	switch {
	case ev.Elicitation != nil:
		id = ev.Elicitation.ID
	case ev.Sampling != nil:
		id = ev.Sampling.ID
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if a := st.open[id]; a != nil {
		a.shown = ev
	}
}

// waiting returns the events that put to the person the questions still waiting for
// an answer.
func (st *askState) waiting() []Event {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []Event
	for _, a := range st.open {
		if a.claimed == "" && a.shown.Type != "" {
			out = append(out, a.shown)
		}
	}
	return out
}

// answer is the answer command, checked by checkAnswer.
func (st *askState) answer(v *deskView, c command) {
	st.mu.Lock()
	a := st.open[c.ID]
	st.mu.Unlock()
	if a == nil {
		st.emit(errorEvent("answer: question %q was closed before the answer came", c.ID))
		return
	}
	var content json.RawMessage
	if c.Action == game.Accept && len(c.Content) > 0 && !bytes.Equal(bytes.TrimSpace(c.Content), []byte("null")) {
		content = c.Content
	}
	st.closeAsk(v, a, game.Answer{Action: c.Action, Content: content}, "person", "")
}

// checkAnswerShape checks an answer command's values, whoever built it.
func checkAnswerShape(c Command) error {
	if strings.TrimSpace(c.ID) == "" {
		return errors.New("command answer: id is empty")
	}
	switch c.Action {
	case game.Accept, game.Decline, game.Cancel:
	default:
		return fmt.Errorf("command answer: action %q is not accept, decline or cancel", c.Action)
	}
	if t := bytes.TrimSpace(c.Content); len(t) > 0 && t[0] != '{' {
		return errors.New("command answer: content must be a JSON object of the form's fields")
	}
	return nil
}

// track keeps a as open until it is answered, and starts the clock of open questions
// (the call's deadline does not count the time they wait).
func (st *askState) track(a *asking) {
	st.mu.Lock()
	if st.open == nil {
		st.open = map[string]*asking{}
	}
	st.open[a.id] = a
	st.mu.Unlock()
	if st.openN == 0 {
		st.since = time.Now()
	}
	st.openN++
}
