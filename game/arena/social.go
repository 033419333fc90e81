package arena

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
)

// postStanding is how long between channel messages that earn standing.
const postStanding = 30 * time.Minute

// recipient resolves send_message's "to": "channel" (or the channel's name) is the
// agent's community channel, anything else a member.
func (w *world) recipient(to string) (string, *member, *game.Error) {
	home := w.s.Agent.Community
	t := strings.TrimSpace(to)
	if strings.EqualFold(t, "channel") || strings.EqualFold(t, "community") || strings.HasPrefix(t, "#") {
		switch {
		case home == "":
			return "", nil, refuse(CodeNotAllowed, "you are in no community, so you have no channel: write to a member, or join_community")
		case strings.HasPrefix(t, "#") && !strings.EqualFold(t, channelOf(home)):
			return "", nil, refuse(CodeNotAllowed, "you are not in %s's channel %s: yours is %s", communityOfChannel(strings.ToLower(t)), t, channelOf(home))
		}
		return channelOf(home), nil, nil
	}
	if strings.EqualFold(t, w.me()) {
		return "", nil, refuse(CodeBadRequest, "%s is you: write to a member or to channel", w.me())
	}
	if p := w.peerNamed(t); p != "" {
		return p, nil, nil
	}
	m, err := w.memberNamed(t)
	if err != nil {
		return "", nil, err
	}
	return m.Name, m, nil
}

// messageByID returns a message the agent can see.
func (w *world) messageByID(id int) (*message, *game.Error) {
	for _, msg := range w.s.Messages {
		if msg.ID == id {
			return msg, nil
		}
	}
	if len(w.s.Messages) == 0 {
		return nil, refuse(CodeUnknown, "no message #%d: you have no messages yet", id)
	}
	return nil, refuse(CodeUnknown, "no message #%d (your messages are #%d to #%d)", id, w.s.Messages[0].ID, w.s.Messages[len(w.s.Messages)-1].ID)
}

// answered reports whether the agent already replied to message id.
func (w *world) answered(id int) bool {
	for _, msg := range w.s.Messages {
		if msg.From == w.me() && msg.ReplyTo == id {
			return true
		}
	}
	return false
}

// social is what a message of the agent's does to the member it concerns.
type social struct {
	who    *member
	trust  int
	memory string
	help   *message // a call for help it answers in time
	report *battle  // a battle it reports joining
}

// socialEffect decides what the agent's message to (to, m), answering replied, does.
func (w *world) socialEffect(to string, m *member, replied *message) social {
	var e social
	if replied != nil && !w.answered(replied.ID) && replied.From != w.me() {
		if who, err := w.memberNamed(replied.From); err == nil && (m == nil || m == who) {
			e.who = who
			switch replied.Kind {
			case kindHelp:
				if !replied.Settled && w.s.Now.Before(replied.Due) {
					e.trust, e.memory, e.help = 5, "you answered when I asked for help", replied
				}
			case kindComplaint:
				e.trust, e.memory = 3, "you answered my complaint"
			case kindHi, kindMention, kindCall:
				e.trust = 2
			}
		}
	}
	home := w.s.Agent.Community
	l := w.leaderOf(home)
	if l == nil || (m != l && to != channelOf(home)) {
		return e
	}
	for _, b := range w.s.Battles {
		if !b.Over && !b.Reported && w.agentSide(b) == home {
			if e.who != nil && e.who != l {
				break // one member's trust moves per message
			}
			e.who, e.report = l, b
			e.trust += 3
			e.memory = "you reported for " + b.ID
			break
		}
	}
	return e
}

// planSend decides a message to a member or to the community's channel.
func (w *world) planSend(a sendArgs) (outcome, *game.Error) {
	text := strings.TrimSpace(a.Text)
	if text == "" {
		return outcome{}, refuse(CodeBadRequest, "the message is empty")
	}
	if n := utf8.RuneCountInString(text); n > MaxMessageChars {
		return outcome{}, refuse(CodeBadRequest, "the message is %d characters long; at most %d", n, MaxMessageChars)
	}
	to, m, err := w.recipient(a.To)
	if err != nil {
		return outcome{}, err
	}
	var replied *message
	if a.ReplyTo != 0 {
		if replied, err = w.messageByID(a.ReplyTo); err != nil {
			return outcome{}, err
		}
	}
	e := w.socialEffect(to, m, replied)
	o := outcome{summary: "sends to " + to, effects: map[string]float64{EffectCost: 0, EffectEnergy: 0}}
	if replied != nil {
		o.summary += fmt.Sprintf(" (reply to #%d from %s)", replied.ID, replied.From)
		if m != nil && replied.From != m.Name && replied.From != w.me() {
			o.warning = fmt.Sprintf("#%d is from %s, not %s", replied.ID, replied.From, m.Name)
		}
	}
	o.summary += fmt.Sprintf(": %q", cut(text, 60))
	if e.who != nil && e.trust != 0 {
		o.summary += fmt.Sprintf("; %s's trust %+d", e.who.Name, e.trust)
	}
	o.apply = func() string { return w.send(to, m, text, replied, e) }
	return o, nil
}

// send posts the agent's message and applies what it does.
func (w *world) send(to string, m *member, text string, replied *message, e social) string {
	msg := &message{From: w.me(), To: to, Text: text, Kind: kindAgent}
	if replied != nil {
		msg.ReplyTo = replied.ID
		replied.Read = true
	}
	w.post(msg, true)
	if e.who != nil {
		w.remember(e.who, e.trust, e.memory)
	}
	if e.help != nil {
		e.help.Settled = true
	}
	if e.report != nil {
		e.report.Reported = true
	}
	out := fmt.Sprintf("Sent #%d to %s", msg.ID, to)
	if replied != nil {
		out += fmt.Sprintf(" (reply to #%d)", replied.ID)
	}
	out += "."
	a := &w.s.Agent
	w.tellPeers(letter{From: w.me(), To: to, Text: text})
	switch {
	case m != nil:
		w.answer(m, msg)
	case !strings.HasPrefix(to, "#"): // another seat: its own agent answers, or not
	case a.LastPost.IsZero() || w.s.Now.Sub(a.LastPost) >= postStanding:
		a.LastPost = w.s.Now
		a.Standing = clamp(a.Standing+1, 0, 100)
		out += " Standing +1 for speaking to your community."
	}
	if e.who != nil && e.trust != 0 {
		out += fmt.Sprintf(" %s's trust %+d (now %d).", e.who.Name, e.trust, e.who.Trust)
	}
	return out
}
