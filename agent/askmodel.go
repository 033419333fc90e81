package agent

import (
	"context"
	"fmt"

	"github.com/coplayhq/coplay/game"
)

// Unattended (--approve all), a server's question that the schema's defaults cannot
// answer (a required field without a default) goes to the model, through a tool that
// carries the requested schema: answer_question with the form's fields, or
// decline_question. Its answer is checked like the person's (defaults filled in, then
// the schema); one that does not fit is a decline. The model is asked on the asking
// goroutine, inside the game call, and counted like any model call.

// askTheModel is the reply that tells the asking goroutine to ask the model.
const askTheModel = "model"

// modelAnswer is the model's answer to a question.
type modelAnswer struct {
	a     *asking
	ans   game.Answer
	why   string
	usage Usage
}

// modelMayAnswer says whether the model is asked a question nobody else can answer: a
// form, a brain that is a model (not the autopilot), and the spend caps not reached.
func (st *askState) modelMayAnswer(v *deskView, a *asking) bool {
	if a.q.URL != "" || a.schema == nil || v.capped != "" {
		return false
	}
	return v.model
}

// modelAnswers asks the model to answer a's question and hands its answer to the Run
// goroutine, which sends it on.
func (h host) modelAnswers(ctx context.Context, a *asking) {
	tools := []game.Tool{
		{Name: "answer_question", Kind: game.Note, Schema: a.schema,
			Description: "Answer the game server's question with these fields, on the player's behalf."},
		{Name: "decline_question", Kind: game.Note, Schema: game.SchemaFor[struct{}](),
			Description: "Decline to answer the game server's question."},
	}
	msgs := []Message{
		{Role: RoleSystem, Content: "You play a game for a person who is away. The game server " + a.q.Server +
			" asks a question that needs an answer from the player. Answer it in the player's interest with answer_question, or decline it with decline_question."},
		{Role: RoleUser, Content: a.q.Server + " asks: " + a.q.Message},
	}
	reply, err := h.r.cfg.Brain.Next(ctx, Request{Messages: msgs, Tools: tools})
	m := &modelAnswer{a: a, ans: game.Answer{Action: game.Decline}, why: "play is unattended and the model gave no answer", usage: reply.Usage}
	if err != nil {
		m.why = "play is unattended and the model failed: " + h.r.scrub.text(err.Error())
	}
	for _, c := range reply.Calls {
		if c.Tool == "decline_question" {
			m.why = "play is unattended and the model declined"
			break
		}
		if c.Tool != "answer_question" {
			continue
		}
		content, err := game.SchemaDefaults(a.q.Schema, c.Args)
		if err == nil {
			err = game.Validate("answer_question", a.schema, content)
		}
		if err != nil {
			m.why = fmt.Sprintf("play is unattended and the model's answer does not fit the form: %v", err)
			break
		}
		m.ans, m.why = game.Answer{Action: game.Accept, Content: content}, "play is unattended: the model answered"
		break
	}
	h.r.enqueue(command{host: &hostMsg{modelAns: m}})
}

// onModelAnswer counts the model's call and sends its answer (Run goroutine).
func (st *askState) onModelAnswer(v *deskView, m *modelAnswer) {
	if m.usage != (Usage{}) {
		u := m.usage
		st.emit(Event{Type: EventUsage, Usage: &u})
	}
	st.closeAsk(v, m.a, m.ans, "model", m.why)
}
