package autopilot

import (
	"context"
	"maps"
	"strings"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
)

// answer is the autopilot's answer to the person's question (Request.ToolChoice none).
// It has no language model to read the question with, so it answers from its rules:
// what it is about to do and why (the reasons it writes on its calls: those waiting
// their turn or the person's decision, else what it would propose now), and what it
// will not do and why (the flight modes asked for, vetoes, refusals). It learns
// nothing from the request and proposes nothing.
func (b *Brain) answer(ctx context.Context, req brain.Request) (brain.Reply, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := []string{"I play by rules, with no language model, so I cannot read your question; here is what my rules say."}
	if waiting := brain.WaitingLines(req.Messages); waiting != nil {
		lines = append(lines, waiting...)
	} else {
		w, err := b.read(ctx)
		if err != nil {
			return brain.Reply{}, err
		}
		mem := *b.mem // a block gone stale stays for the next step to drop
		mem.blocks = maps.Clone(b.mem.blocks)
		dec := (&decider{w: w, mem: &mem, tools: game.ToolSet(req.Tools)}).decide()
		lines = append(lines, "What I would do next:")
		for _, a := range dec.calls {
			lines = append(lines, "- "+a.why)
		}
		for _, wt := range dec.waits {
			lines = append(lines, "- Waiting: "+wt.why+".")
		}
		if len(dec.calls)+len(dec.waits) == 0 {
			lines = append(lines, "- Nothing I can do now; advise me or resume when things change.")
		}
	}
	if says := b.mem.modes.says(); says != "" {
		lines = append(lines, "Flight modes: I "+says+", as you said.")
	}
	var held []string
	for _, bl := range b.mem.blocks {
		held = append(held, bl.reason)
	}
	if s := brain.LeftAlone(held); s != "" {
		lines = append(lines, s)
	}
	return brain.Reply{Text: strings.Join(lines, "\n")}, nil
}
