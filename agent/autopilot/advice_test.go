package autopilot

import (
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
)

// The phrasings a person uses, both ways round. want is "mine", "buy", "none" (nothing
// about either: change nothing, say nothing was found) or "unclear" (speaks of both and
// cannot be told: change nothing, say so).
var advicePhrasings = []struct {
	in, want string
}{
	// The advice that sent the autopilot 112 units away to mine.
	{"prefer buying ore over mining whenever the market price is below 40", "buy"},
	{"Prefer buying ore over mining whenever the market price is below…", "buy"},
	{"prefer buying over mining", "buy"},
	{"prefer mining over buying", "mine"},
	{"prefer mining to buying", "mine"},
	{"I'd prefer you bought the ore to mining it", "buy"},
	// Plain.
	{"mine it yourself", "mine"},
	{"please buy the ore", "buy"},
	{"keep mining", "mine"},
	// Negations.
	{"don't mine", "buy"},
	{"Don’t buy, it is too dear", "mine"},
	{"never mine", "buy"},
	{"stop buying", "mine"},
	{"no more buying", "mine"},
	{"No mining!", "buy"},
	{"quit purchasing ore", "mine"},
	{"do not extract anything", "buy"},
	{"don't buy the ore, mine it", "mine"},
	{"stop mining and buy", "buy"},
	{"without buying anything, mine the ore", "mine"},
	// X instead of / rather than / over Y.
	{"mine instead of buying", "mine"},
	{"buy instead of mining", "buy"},
	{"instead of buying, mine", "mine"},
	{"buy rather than mine", "buy"},
	{"mine rather than buy", "mine"},
	{"rather than mining, buy the ore", "buy"},
	{"buy ore, not mine it", "buy"},
	{"mine, don't buy", "mine"},
	// Verdicts and comparisons.
	{"mining is a waste, buy", "buy"},
	{"buying is a waste of credits, mine", "mine"},
	{"mining is pointless", "buy"},
	{"buying is too expensive", "mine"},
	{"the ore is too expensive to buy", "mine"},
	{"buying is cheaper than mining", "buy"},
	{"mining is better than buying", "mine"},
	{"mining is slower than buying", "buy"},
	{"it's better to buy than to mine", "buy"},
	{"mining isn't worth it", "buy"},
	{"buying costs more than mining", "mine"},
	{"mining takes longer than buying", "buy"},
	{"don't stop mining", "mine"},
	{"never stop buying", "buy"},
	{"I'd rather you mined", "mine"},
	{"it is not worth mining", "buy"},
	// Nothing about either: no change.
	{"hello there", "none"},
	{"fly to the jump gate", "none"},
	{"use CRUISE, fuel is cheap", "none"},
	{"", "none"},
	// Both, and no telling which: no change, and it says so.
	{"mine or buy, whatever", "unclear"},
	{"should I mine or buy?", "unclear"},
	{"don't mine or buy anything yet", "unclear"},
	{"don't mine, don't buy", "unclear"},
	{"buy if it is cheap, otherwise mine", "unclear"},
}

func TestReadAdvice(t *testing.T) {
	t.Parallel()
	for _, c := range advicePhrasings {
		r := readAdvice(c.in)
		got := "none"
		switch {
		case r.ok && r.mine:
			got = "mine"
		case r.ok:
			got = "buy"
		case r.unclear:
			got = "unclear"
		}
		if got != c.want {
			t.Errorf("readAdvice(%q) = %s, want %s", c.in, got, c.want)
		}
		// The callers' contract: a preference only when the reading is clear.
		mine, ok := preference(c.in)
		if ok != (c.want == "mine" || c.want == "buy") || ok && mine != (c.want == "mine") {
			t.Errorf("preference(%q) = %v, %v; want %s", c.in, mine, ok, c.want)
		}
	}
}

func TestAdviceReadingSays(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"prefer buying over mining", "prefer buying to mining"},
		{"mine instead of buying", "prefer mining to buying"},
		{"mine or buy, whatever", "cannot tell"},
		{"fly to the gate", "no preference"},
	} {
		if got := readAdvice(c.in).says(); !strings.Contains(got, c.want) {
			t.Errorf("readAdvice(%q).says() = %q, want it to say %q", c.in, got, c.want)
		}
	}
}

// adviseBrain gives the brain one piece of advice after an observation and returns its
// reply text.
func adviseBrain(t *testing.T, b *Brain, advice string) string {
	t.Helper()
	msgs := []agent.Message{
		{Role: agent.RoleUser, Content: "# Observation (step 2)\n\n..."},
		{Role: agent.RoleUser, Content: "# Advice from the person\n\n> " + advice + "\n\nFirst fold this advice into your notes."},
	}
	reply, _ := step(t, b, msgs)
	return reply.Text
}

func TestBrainReadsComparisonTheRightWayRound(t *testing.T) {
	t.Parallel()
	f := newFake()
	b := newBrain(f, func() time.Time { return t0 })
	step(t, b, nil)
	b.mem.preferMine = true
	text := adviseBrain(t, b, "prefer buying ore over mining whenever the market price is below 40")
	if b.mem.preferMine {
		t.Errorf("after %q the autopilot still prefers mining", "prefer buying ore over mining")
	}
	if !strings.Contains(text, "prefer buying") {
		t.Errorf("the reply does not say it will prefer buying:\n%s", text)
	}
}

func TestBrainSaysWhenItCannotTell(t *testing.T) {
	t.Parallel()
	for _, before := range []bool{true, false} {
		f := newFake()
		b := newBrain(f, func() time.Time { return t0 })
		step(t, b, nil)
		b.mem.preferMine = before
		text := adviseBrain(t, b, "mine or buy, whatever you think")
		if b.mem.preferMine != before {
			t.Errorf("unclear advice changed the preference from %v", before)
		}
		if !strings.Contains(text, "cannot tell") || !strings.Contains(text, "changed nothing") {
			t.Errorf("the reply does not say it cannot tell:\n%s", text)
		}
	}
}
