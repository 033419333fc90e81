package notes

import (
	"encoding/json"
	"fmt"
)

// usage is what the notebook reads of a usage record's usage (the agent's brain.Usage,
// journaled as its own JSON): the tokens and cost a fork adds to its totals, and what the
// export says a model call cost.
type usage struct {
	Prompt     int64   `json:"prompt_tokens"`
	Completion int64   `json:"completion_tokens"`
	Cached     int64   `json:"cached_tokens"`
	Cost       float64 `json:"cost"`
	Chars      int64   `json:"prompt_chars"` // the prompt's size
}

// usageOf reads a usage record's usage (none: zero).
func usageOf(raw json.RawMessage) (usage, error) {
	var u usage
	if len(raw) == 0 {
		return u, nil
	}
	if err := json.Unmarshal(raw, &u); err != nil {
		return u, fmt.Errorf("usage: %w", err)
	}
	return u, nil
}
