package agent

import (
	"context"
	"fmt"
	"github.com/coplayhq/coplay/agent/rules"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// A game's server may borrow the player's model (MCP sampling). The request is put to
// the person like a question (event sampling; the answer command accepts or declines
// it), approved by the policy under --approve all, capped per server and counted like
// any model call (a usage event, the run's spend caps).

// SamplesPerServer is how many sampling requests one server may have served in a run.
const SamplesPerServer = 20

// maxSampleChars bounds the messages of a sampling request the runner hands the model.
const maxSampleChars = 32 << 10

// Sampling is a sampling request as the person sees it (events sampling and
// sampling_answered).
type Sampling struct {
	ID        string               `json:"id"`
	Server    string               `json:"server,omitempty"`
	System    string               `json:"system,omitempty"`
	Messages  []game.SampleMessage `json:"messages,omitempty"`
	MaxTokens int                  `json:"max_tokens,omitempty"`
	CallID    string               `json:"call_id,omitempty"`
	NeedsOK   bool                 `json:"needs_ok,omitempty"`
	// The answer (sampling_answered): accept or decline, and the model's text.
	Action string `json:"action,omitempty"`
	By     string `json:"by,omitempty"` // person, policy, cap
	Reason string `json:"reason,omitempty"`
	Text   string `json:"text,omitempty"`
	Model  string `json:"model,omitempty"`
}

// sampled is what the model answered a sampling request.
type sampled struct {
	a     *asking
	text  string
	usage Usage
	err   error
	done  chan struct{} // closed once counted and journaled
}

// Sample puts a sampling request to the person and, once approved, has the model answer
// it. The model is asked on the caller's goroutine: the runner is then inside the game
// call that caused the request, so no step asks the model meanwhile.
func (h host) Sample(ctx context.Context, req game.SampleRequest) (game.SampleResult, error) {
	a := &asking{q: game.Question{Server: req.Server}, sample: &req, reply: make(chan game.Answer, 1)}
	if err := h.r.enqueue(command{host: &hostMsg{ask: a}}); err != nil {
		return game.SampleResult{}, err
	}
	var ans game.Answer
	select {
	case ans = <-a.reply:
	case <-ctx.Done():
		h.r.tryEnqueue(command{host: &hostMsg{withdraw: a}})
		return game.SampleResult{}, ctx.Err()
	}
	if ans.Action != game.Accept {
		return game.SampleResult{}, game.ErrDeclined
	}
	reply, err := h.r.cfg.Brain.Next(ctx, Request{Messages: sampleMessages(req)})
	text := h.r.scrub.text(reply.Text)
	// Counted and journaled before the server has the answer.
	done := make(chan struct{})
	if h.r.enqueue(command{host: &hostMsg{sampled: &sampled{a: a, text: text, usage: reply.Usage, err: err, done: done}}}) == nil {
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	if err != nil {
		return game.SampleResult{}, fmt.Errorf("the model failed: %v", h.r.scrub.text(err.Error()))
	}
	return game.SampleResult{Text: text, Model: h.r.cfg.Brain.Name(), StopReason: "endTurn"}, nil
}

// sampleMessages is a sampling request as the model's conversation.
func sampleMessages(req game.SampleRequest) []Message {
	system := req.System
	if system == "" {
		system = "You answer a request of the MCP server " + req.Server + ", on behalf of the player."
	}
	msgs := []Message{{Role: RoleSystem, Content: system}}
	left := maxSampleChars
	for _, m := range req.Messages {
		role := RoleUser
		if m.Role == "assistant" {
			role = RoleAssistant
		}
		text := m.Text
		if len(text) > left {
			text = text[:left] + "\n[cut: the request was longer than coplay hands a model]"
		}
		left -= len(text)
		msgs = append(msgs, Message{Role: role, Content: text})
	}
	return msgs
}

// putSample journals and shows a sampling request and decides it at once when it can:
// over the server's cap, or without a model, it is declined; under --approve all it is
// approved by the policy. Otherwise it waits for the person's answer.
func (st *askState) putSample(v *deskView, a *asking) {
	st.next++
	a.id = fmt.Sprintf("sample_%d_%d", v.step, st.next)
	a.call = v.call
	req := a.sample
	for i := range req.Messages {
		req.Messages[i].Text = v.scrub.text(req.Messages[i].Text)
	}
	req.System = v.scrub.text(req.System)
	rule, ruled, needsOK := v.policy.host(rules.Sampling, req.Server, "")
	ev := Sampling{ID: a.id, Server: req.Server, System: req.System, Messages: req.Messages, MaxTokens: req.MaxTokens,
		CallID: a.call, NeedsOK: needsOK}
	st.emit(Event{Type: EventSampling, Sampling: &ev, Text: sampleText(a)})
	st.track(a)
	if st.sampled == nil {
		st.sampled = map[string]int{}
	}
	switch {
	case st.sampled[req.Server] >= SamplesPerServer:
		st.closeAsk(v, a, game.Answer{Action: game.Decline}, "cap", fmt.Sprintf("%s has had its %d sampling requests of this run", req.Server, SamplesPerServer))
	case v.capped != "":
		st.closeAsk(v, a, game.Answer{Action: game.Decline}, "cap", v.capped)
	case ruled && rule.Action == rules.Deny:
		st.closeAsk(v, a, game.Answer{Action: game.Decline}, "rule", "rule: "+rule.String())
	case ruled && rule.Action == rules.Allow:
		st.closeAsk(v, a, game.Answer{Action: game.Accept}, "rule", "rule: "+rule.String())
	case !needsOK:
		st.closeAsk(v, a, game.Answer{Action: game.Accept}, "policy", "play is unattended")
	default:
		st.askWaits(v, a)
	}
}

// sampleText is the one line the log shows for a sampling request.
func sampleText(a *asking) string {
	last := ""
	if n := len(a.sample.Messages); n > 0 {
		last = a.sample.Messages[n-1].Text
	}
	if len(last) > 120 {
		last = last[:120] + "…"
	}
	return fmt.Sprintf("%s asks to use the model (%d messages, up to %d tokens): %s", a.sample.Server,
		len(a.sample.Messages), a.sample.MaxTokens, strings.ReplaceAll(last, "\n", " "))
}

// sampleDecided journals a sampling request's decision; an approved one is counted
// against its server's cap now, so requests in flight cannot pass it together.
func (st *askState) sampleDecided(v *deskView, a *asking, ans game.Answer, by, reason string) {
	if ans.Action == game.Accept {
		st.sampled[a.sample.Server]++
	}
	ev := Sampling{ID: a.id, Server: a.sample.Server, Action: ans.Action, By: by, Reason: reason, CallID: a.call}
	text := fmt.Sprintf("%s's sampling request: %s", a.sample.Server, ans.Action)
	if reason != "" {
		text += " (" + reason + ")"
	}
	st.emit(Event{Type: EventSampled, Sampling: &ev, Text: text})
}

// onSampled journals the model's answer to a sampling request and counts what it cost.
func (st *askState) onSampled(v *deskView, s *sampled) {
	u := s.usage
	st.emit(Event{Type: EventUsage, Usage: &u})
	ev := Sampling{ID: s.a.id, Server: s.a.sample.Server, Action: game.Accept, Text: s.text, Model: v.brain, CallID: s.a.call}
	text := fmt.Sprintf("the model answered %s (%d tokens)", s.a.sample.Server, u.PromptTokens+u.CompletionTokens)
	if s.err != nil {
		ev.Text, ev.Reason = "", v.scrub.text(s.err.Error())
		text = fmt.Sprintf("the model failed to answer %s: %s", s.a.sample.Server, ev.Reason)
	}
	st.emit(Event{Type: EventSampled, Sampling: &ev, Text: text})
}
