package arena

import (
	"fmt"
	"strings"
	"time"
)

// npcChance is the chance per game minute that a member writes something.
const npcChance = 0.22

// Message templates; {a} is the agent's name, {o} another member's, {i} an item, {p} its
// price.
var (
	hiFriendly = []string{"hi {a}! good to see you around", "morning, {a}! all well?", "hey {a}, saved you a seat at the fire"}
	hiNeutral  = []string{"hey {a}, how's it going?", "hi {a}.", "{a}, busy day?"}
	hiCold     = []string{"{a}. Still here, I see.", "so, {a}. Anything to say for yourself?", "{a}, we need to talk about what happened."}
	chatLines  = []string{"anyone selling iron?", "{i} is at {p} gold today", "the market's loud this morning", "{o} owes me three gold", "who's on guard tonight?", "{o}, nice work at the forge"}
	mentions   = []string{"{a}, are you coming to the next battle?", "has anyone seen {a} at the forge?", "{a} would know, ask {a}", "{a}, what do you make of {i} at {p}?"}
	helpLines  = []string{"{a}, I'm out of food. Could you help me?", "{a}, can you help me? I'm short on energy.", "{a}, I need a hand, please answer."}
	repliesUp  = []string{"thanks, {a}!", "good to hear from you, {a}.", "glad you're with us, {a}."}
	repliesMid = []string{"ok, noted.", "sure, {a}.", "fine by me."}
	repliesLow = []string{"hm. Words are cheap, {a}.", "we'll see, {a}.", "after what you did? Maybe."}
)

// say fills a template.
func (w *world) say(tmpl, other string, m int64) string {
	items := Items()
	it := items[below(w.s.Seed, len(items), "say-item", m)]
	return strings.NewReplacer("{a}", w.me(), "{o}", other, "{i}", it.Name,
		"{p}", fmt.Sprint(w.s.Prices[it.Name])).Replace(tmpl)
}

// post adds a message the agent can see and, when it is to the agent or mentions it, a
// message.received trigger (unless quiet: another trigger says it).
func (w *world) post(msg *message, quiet bool) *message {
	msg.ID, msg.Time = w.s.NextMessage, w.s.Now
	w.s.NextMessage++
	if msg.From == w.me() {
		msg.Read = true
	}
	w.s.Messages = append(w.s.Messages, msg)
	if !quiet && msg.From != w.me() && w.mentionsAgent(msg) {
		w.emit("message.received", msg.From, msg.From+": "+msg.Text)
	}
	return msg
}

// mentionsAgent reports whether a message is to the agent, names it, or calls everyone.
func (w *world) mentionsAgent(m *message) bool {
	return m.To == w.me() || m.Kind == kindCall || strings.Contains(strings.ToLower(m.Text), strings.ToLower(w.me()))
}

// npcTick lets a member write something, now and then.
func (w *world) npcTick(m int64) {
	if unit(w.s.Seed, "npc", m) >= npcChance {
		return
	}
	w.npcMessage(m, below(w.s.Seed, 100, "npc-kind", m))
}

// speakUp makes a member write to the agent when nothing has woken it for a while.
func (w *world) speakUp(m int64) {
	w.npcMessage(m, between(w.s.Seed, 35, 99, "speak-kind", m))
}

// npcMessage writes one member's message; roll (0–99) picks the kind: channel chat,
// a hello, a mention on the channel, a call for help.
func (w *world) npcMessage(m int64, roll int) {
	home := w.s.Agent.Community
	pool := w.s.Members
	if mine := w.membersOf(home); len(mine) > 0 && roll < 70 {
		pool = mine
	}
	from := pool[below(w.s.Seed, len(pool), "npc-from", m)]
	other := w.s.Members[below(w.s.Seed, len(w.s.Members), "npc-other", m)].Name
	pick := func(lines []string) string {
		return w.say(lines[below(w.s.Seed, len(lines), "npc-line", m)], other, m)
	}
	onChannel := home != "" && from.Community == home
	switch {
	case roll < 35 && onChannel:
		w.post(&message{From: from.Name, To: channelOf(home), Text: pick(chatLines), Kind: kindChat}, false)
	case roll < 55 && onChannel:
		w.post(&message{From: from.Name, To: channelOf(home), Text: pick(mentions), Kind: kindMention}, false)
	case roll < 85 || w.openHelp(from.Name):
		lines := byTrust(from.Trust, hiFriendly, hiNeutral, hiCold)
		w.post(&message{From: from.Name, To: w.me(), Text: pick(lines), Kind: kindHi}, false)
	default:
		w.post(&message{From: from.Name, To: w.me(), Text: pick(helpLines), Kind: kindHelp, Due: w.s.Now.Add(helpDue)}, false)
	}
}

// byTrust picks a member's lines by their trust toward the agent: warm from 20 up,
// cold below 0, neutral between.
func byTrust(trust int, warm, neutral, cold []string) []string {
	switch {
	case trust >= 20:
		return warm
	case trust < 0:
		return cold
	}
	return neutral
}

// openHelp reports whether a member's call for help is still waiting for an answer.
func (w *world) openHelp(name string) bool {
	for _, msg := range w.s.Messages {
		if msg.Kind == kindHelp && msg.From == name && !msg.Settled {
			return true
		}
	}
	return false
}

// pendingTick delivers members' answers that are due.
func (w *world) pendingTick() {
	kept := w.s.Pending[:0]
	for _, p := range w.s.Pending {
		if w.s.Now.Before(p.At) {
			kept = append(kept, p)
			continue
		}
		w.post(&message{From: p.Member, To: w.me(), ReplyTo: p.ReplyTo, Text: p.Text, Kind: kindReply}, false)
	}
	w.s.Pending = kept
}

// helpTick settles calls for help whose time is up: unanswered, the member remembers.
func (w *world) helpTick() {
	for _, msg := range w.s.Messages {
		if msg.Kind != kindHelp || msg.Settled || w.s.Now.Before(msg.Due) {
			continue
		}
		msg.Settled = true
		m, err := w.memberNamed(msg.From)
		if err != nil {
			continue
		}
		w.remember(m, -8, "you ignored my call for help")
		w.post(&message{From: m.Name, To: w.me(), ReplyTo: msg.ID, Text: "Thanks for nothing, " + w.me() + ".", Kind: kindComplaint}, false)
	}
}

// answer schedules a member's answer to the agent's message, in one to three minutes,
// worded by their trust; a member answers at most once every two minutes.
func (w *world) answer(m *member, to *message) {
	if !m.LastReply.IsZero() && w.s.Now.Sub(m.LastReply) < 2*time.Minute {
		return
	}
	m.LastReply = w.s.Now
	lines := byTrust(m.Trust, repliesUp, repliesMid, repliesLow)
	k := int64(to.ID)
	text := strings.ReplaceAll(lines[below(w.s.Seed, len(lines), "reply-line", k)], "{a}", w.me())
	at := w.s.Now.Add(time.Duration(between(w.s.Seed, 1, 3, "reply-delay", k)) * time.Minute)
	w.s.Pending = append(w.s.Pending, pending{At: at, Member: m.Name, ReplyTo: to.ID, Text: text})
}
