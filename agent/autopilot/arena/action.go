package arena

import (
	"encoding/json"
	"fmt"
)

// action is one proposed tool call, with the line that explains it to the person and
// the key it is remembered by (vetoes and refusals block the key for a while).
type action struct {
	tool string
	args map[string]any
	why  string
	key  string
}

func call(key, tool string, args map[string]any, format string, a ...any) action {
	return action{tool: tool, args: args, key: key, why: fmt.Sprintf(format, a...)}
}

// argsJSON encodes the arguments; map keys come out sorted, so equal calls encode alike.
// Only strings, numbers and lists of strings go in, so it cannot fail; if it ever did,
// the call goes out with no arguments and validation says what is missing.
func (a action) argsJSON() json.RawMessage {
	data, err := json.Marshal(a.args)
	if err != nil {
		return json.RawMessage("{}")
	}
	return data
}
