package agent

import "strings"

// thinkingText joins the readable reasoning of a reply, for the thinking event: what the
// person sees dimmed in the Log. Redacted blocks have nothing to show.
func thinkingText(blocks []Thinking) string {
	var parts []string
	for _, b := range blocks {
		if t := strings.TrimSpace(b.Text); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// signedThinking keeps the blocks a provider sealed (a Signature or Redacted data): the
// only reasoning that goes back to a model, and only to the provider that sealed it,
// which needs it within a tool loop. Unsealed reasoning (<think>, reasoning_content) is
// never sent back: it would be paid for again at every request.
func signedThinking(blocks []Thinking) []Thinking {
	var out []Thinking
	for _, b := range blocks {
		if b.Signature != "" || b.Redacted != "" {
			out = append(out, b)
		}
	}
	return out
}
