package openai

import (
	"fmt"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/client"
)

// A server that runs its model with a context smaller than the prompt may cut the
// prompt's front (the system prompt and the tools) and answer anyway: Ollama's OpenAI
// endpoint does, at its default context. Its usage then counts only what was kept. The
// brain compares the prompt tokens a server reports with what it sent, and says once
// when they are far apart.

// cutCheckMin is the smallest estimated prompt, in tokens, the check looks at: below
// it, counts differ more by tokenizer than by anything cut.
const cutCheckMin = 1000

// suspectCut says whether reported prompt tokens are far below the estimate of what
// was sent: under 70% of it, or just under a power-of-two window (where a server that
// cut the prompt to its context leaves the count) and under 95% of it. The estimate
// is four bytes a token, which most tokenizers exceed on JSON and game text, so an
// honest count is rarely below it.
func suspectCut(reported, estimate int) bool {
	if reported <= 0 || estimate < cutCheckMin {
		return false
	}
	if reported*10 < estimate*7 {
		return true
	}
	if reported*100 >= estimate*95 {
		return false
	}
	for w := 1024; w <= 1<<20; w *= 2 {
		if reported <= w && reported >= w-w/32 {
			return true
		}
	}
	return false
}

// cutNotice is the line for the person when a server probably cut the prompt.
func cutNotice(server string, reported, estimate, chars int) string {
	return fmt.Sprintf("%s counted %d prompt tokens for a request of about %d (%d characters): it probably cut the prompt to fit its context window, "+
		"so the model does not see the start of it (the rules and the tools). Give the model a larger context: "+
		"Ollama OLLAMA_CONTEXT_LENGTH=16384 (or PARAMETER num_ctx in a Modelfile), llama.cpp --ctx-size, vLLM --max-model-len, LM Studio the model's context length",
		server, reported, estimate, chars)
}

// checkCut adds a notice to r, once per brain, when the server's prompt count says it
// probably cut the prompt of wreq. (A count the brain estimated itself is the
// estimate, and never suspect.)
func (b *Brain) checkCut(r *brain.Reply, wreq goopenai.ChatCompletionRequest) {
	if b.cutSaid.Load() || b.native() != nil {
		// Ollama's own count leaves out what its cache kept, and its context is set to
		// fit each prompt (ollama.go).
		return
	}
	chars := promptChars(wreq)
	est := client.EstimateTokens(chars)
	if suspectCut(r.Usage.PromptTokens, est) && b.cutSaid.CompareAndSwap(false, true) {
		r.Notices = append(r.Notices, cutNotice("the server at "+b.cfg.BaseURL, r.Usage.PromptTokens, est, chars))
	}
}
