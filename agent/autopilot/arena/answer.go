package arena

import (
	"context"
	"maps"
	"strings"

	"github.com/coplayhq/coplay/agent/brain"
)

// answer is the arena autopilot's answer to the person's question (Request.ToolChoice
// none). It has no language model to read the question with, so it answers from its
// rules: what it is about to do and why (the reasons it writes on its calls: those
// waiting their turn or the person's decision, else what it would propose now), and what
// it leaves alone and why. It learns nothing from the request and proposes nothing.
func (b *Brain) answer(ctx context.Context, req brain.Request) brain.Reply {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := []string{"I play the arena by rules, with no language model, so I cannot read your question; here is what my rules say."}
	if waiting := brain.WaitingLines(req.Messages); waiting != nil {
		lines = append(lines, waiting...)
	} else {
		mem := b.mem // what a step would mark (a history read, a block gone stale) stays unmarked
		mem.checked, mem.blocks = maps.Clone(b.mem.checked), maps.Clone(b.mem.blocks)
		if v, err := b.src.View(ctx); err != nil {
			lines = append(lines, "I cannot see the world now ("+err.Error()+"), so I cannot say what I would do next.")
		} else {
			dec := decide(v, &mem)
			lines = append(lines, "What I would do next:")
			for _, a := range dec.calls {
				lines = append(lines, "- "+a.why)
			}
			if len(dec.calls) == 0 {
				lines = append(lines, "- Nothing now; waiting for "+strings.Join(dec.waits, "; ")+".")
			}
		}
	}
	if b.mem.noFight {
		lines = append(lines, "Battles: I stay out of them, as you said.")
	}
	var held []string
	for _, bl := range b.mem.blocks {
		held = append(held, bl.reason)
	}
	if s := brain.LeftAlone(held); s != "" {
		lines = append(lines, s)
	}
	return brain.Reply{Text: strings.Join(lines, "\n")}
}
