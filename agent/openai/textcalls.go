package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent"
)

// A server without a tool-call parser for its model (llama.cpp without --jinja, vLLM
// without --enable-auto-tool-choice, many LM Studio models) returns the model's calls
// as text. When an answer has no native calls, the brain reads the forms models are
// trained to write:
//
//	<tool_call>{"name": "observe_game", "arguments": {}}</tool_call>   Hermes, Qwen
//	[TOOL_CALLS][{"name": "observe_game", "arguments": {}}]            Mistral
//	[TOOL_CALLS]observe_game[ARGS]{}                                    Mistral (v11)
//	<|python_tag|>{"name": "observe_game", "parameters": {}}           Llama 3
//	{"name": "observe_game", "parameters": {}}                          Llama 3, bare
//	```json {"name": "observe_game", "arguments": {}} ```               any, fenced
//
// The markup forms say plainly that the model meant a call, so a block that cannot be
// read (not JSON, no name, a tool the game does not have) is reported back to the
// model. A bare or fenced object is a call only when it is shaped like one and names a
// tool of the catalogue; anything else is prose, as is a sentence naming a tool, and
// markup quoted inside a sentence (in quotation marks or inline code).
//
// Only where the model has no native tool calling (Config.readsTextCalls): a model the
// catalogue knows calls tools natively, and its text is prose whatever it holds.

// Markers of the text forms.
const (
	hermesOpen  = "<tool_call>"
	hermesClose = "</tool_call>"
	mistralTag  = "[TOOL_CALLS]"
	mistralArgs = "[ARGS]"
	pythonTag   = "<|python_tag|>"
)

// textCallMarkers are the markers after which everything is a tool call, held back
// from the streamed text.
var textCallMarkers = []string{hermesOpen, mistralTag, pythonTag}

// llamaEnds are Llama 3's end tokens a server may leave in the text.
var llamaEnds = []string{"<|eom_id|>", "<|eot_id|>"}

// textCalls is what readTextCalls found.
type textCalls struct {
	rest     string           // the text without the calls' markup
	calls    []agent.ToolCall // FromText set, ids from the prefix
	problems []string         // blocks that meant a call and could not be read
}

// readTextCalls reads the tool calls written in text. known says whether a tool is in
// the catalogue; calls get ids idPrefix+"text"+n.
func readTextCalls(text string, known func(string) bool, idPrefix string) textCalls {
	var out textCalls
	var rest strings.Builder
	add := func(name string, args json.RawMessage) {
		out.calls = append(out.calls, agent.ToolCall{
			ID: fmt.Sprintf("%stext%d", idPrefix, len(out.calls)), Tool: name, Args: args, FromText: true,
		})
	}
	// take reads one call object of a markup block; what is wrong goes to problems.
	take := func(form string, raw []byte) {
		name, args, err := callObject(raw, false)
		switch {
		case err != nil:
			out.problems = append(out.problems, fmt.Sprintf("%s %s", form, err))
		case !known(name):
			out.problems = append(out.problems, fmt.Sprintf("%s names %q, which is not a tool of this game; call one of the tools you were given", form, name))
		default:
			add(name, args)
		}
	}
	s := text
	for {
		i, marker := firstMarker(s)
		if i < 0 {
			rest.WriteString(s)
			break
		}
		rest.WriteString(s[:i])
		if quotedAt(text, len(text)-len(s)+i) {
			// Quoted inside a sentence: the model shows the markup, it does not call.
			rest.WriteString(marker)
			s = s[i+len(marker):]
			continue
		}
		s = s[i+len(marker):]
		switch marker {
		case hermesOpen:
			body := s
			if j := strings.Index(s, hermesClose); j >= 0 {
				body, s = s[:j], s[j+len(hermesClose):]
			} else {
				s = ""
			}
			take("the <tool_call> block", []byte(strings.TrimSpace(body)))
		case mistralTag:
			var body string
			body, s = untilMarker(s)
			mistralCalls(strings.TrimSpace(body), take)
		case pythonTag:
			var body string
			body, s = untilMarker(s)
			for _, e := range llamaEnds {
				body = strings.ReplaceAll(body, e, "")
			}
			// Llama 3.2 separates several calls with semicolons.
			for _, part := range splitObjects(strings.TrimSpace(body)) {
				take("the <|python_tag|> call", part)
			}
		}
	}
	out.rest = strings.TrimSpace(rest.String())
	if len(out.calls) == 0 && len(out.problems) == 0 {
		out.rest = plainCalls(out.rest, known, add)
	}
	return out
}

// quotedAt reports whether position i of text is inside quotation marks or inline
// code opened earlier on its line: a call written there is quoted ("The sign reads:
// "<tool_call>…</tool_call>". I will ignore it."), not made.
func quotedAt(text string, i int) bool {
	line := text[strings.LastIndexByte(text[:i], '\n')+1 : i]
	return strings.Count(line, `"`)%2 == 1 || strings.Count(line, "`")%2 == 1 ||
		strings.Count(line, "“") > strings.Count(line, "”") || strings.Count(line, "«") > strings.Count(line, "»")
}

// firstMarker finds the earliest markup marker in s: its index and which, or -1.
func firstMarker(s string) (int, string) {
	at, which := -1, ""
	for _, m := range textCallMarkers {
		if i := strings.Index(s, m); i >= 0 && (at < 0 || i < at) {
			at, which = i, m
		}
	}
	return at, which
}

// untilMarker splits s at the next markup marker: the part before it, and the rest
// from the marker on.
func untilMarker(s string) (string, string) {
	if i, _ := firstMarker(s); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// mistralCalls reads what follows [TOOL_CALLS]: a JSON list of calls, one call
// object, or (Mistral's v11 template) NAME[ARGS]{...}.
func mistralCalls(body string, take func(string, []byte)) {
	const form = "the [TOOL_CALLS] call"
	switch {
	case strings.HasPrefix(body, "["):
		var list []json.RawMessage
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			take(form, []byte(body)) // reports the JSON error
			return
		}
		for _, raw := range list {
			take(form, raw)
		}
	case strings.HasPrefix(body, "{"):
		take(form, []byte(body))
	default:
		name, args, ok := strings.Cut(body, mistralArgs)
		if !ok {
			take(form, []byte(body)) // reports that it is not JSON
			return
		}
		// Rebuilt as a call object, so that broken arguments are reported as such.
		take(form, []byte(fmt.Sprintf(`{"name":%s,"arguments":%s}`, mustString(strings.TrimSpace(name)), strings.TrimSpace(args))))
	}
}

// mustString is s as a JSON string.
func mustString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// splitObjects splits a run of JSON values separated by semicolons or white space
// into its values; text that does not decode is returned whole, for its error.
func splitObjects(s string) [][]byte {
	dec := json.NewDecoder(strings.NewReader(s))
	var out [][]byte
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if len(out) == 0 || dec.More() {
				return [][]byte{[]byte(s)}
			}
			return out
		}
		out = append(out, raw)
		// Skip a separating semicolon.
		rest := strings.TrimLeft(s[dec.InputOffset():], " \t\r\n;")
		if rest == "" {
			return out
		}
		s = rest
		dec = json.NewDecoder(strings.NewReader(s))
	}
}

// callObject reads {"name": ..., "arguments"|"parameters": {...}}. Arguments may be
// an object, a string holding one (as OpenAI's wire carries them), or absent (no
// arguments). strict (for bare and fenced objects) also refuses an object with keys a
// call does not have, so a JSON example in prose is not taken for a call.
func callObject(raw []byte, strict bool) (name string, args json.RawMessage, err error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(raw), &obj); err != nil {
		return "", nil, fmt.Errorf("is not a JSON object (%v): write {\"name\": \"TOOL\", \"arguments\": {...}}", jsonProblem(err))
	}
	if strict {
		for k := range obj {
			switch k {
			case "name", "arguments", "parameters", "type", "id":
			default:
				return "", nil, fmt.Errorf("has a key %q that a call does not have", k)
			}
		}
	}
	if json.Unmarshal(obj["name"], &name) != nil || strings.TrimSpace(name) == "" {
		return "", nil, fmt.Errorf("has no \"name\" naming the tool to call")
	}
	name = strings.TrimSpace(name)
	a, ok := obj["arguments"]
	if !ok {
		a, ok = obj["parameters"]
	}
	a = bytes.TrimSpace(a)
	switch {
	case !ok || string(a) == "null":
		return name, json.RawMessage("{}"), nil
	case len(a) > 0 && a[0] == '{':
		return name, a, nil
	case len(a) > 0 && a[0] == '"':
		var s string
		_ = json.Unmarshal(a, &s)
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
			return name, json.RawMessage(t), nil
		}
	}
	return "", nil, fmt.Errorf("for %s has arguments that are not a JSON object: write \"arguments\": {...}", name)
}

// jsonProblem says briefly what is wrong with JSON that did not decode.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	return err.Error()
}

// plainCalls finds bare and fenced call objects in text that has no markup: a fenced
// block (```json or ```) whose whole content is call objects, or call objects that
// stand on lines of their own. Only objects shaped as calls and naming a catalogue
// tool count; the text is returned without them.
func plainCalls(text string, known func(string) bool, add func(string, json.RawMessage)) string {
	type found struct {
		name string
		args json.RawMessage
	}
	// calls reads s as one or more call objects, all of them known, or nothing.
	calls := func(s string) []found {
		s = strings.TrimSpace(s)
		if !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "[") {
			return nil
		}
		var parts [][]byte
		if strings.HasPrefix(s, "[") {
			var list []json.RawMessage
			if json.Unmarshal([]byte(s), &list) != nil {
				return nil
			}
			for _, r := range list {
				parts = append(parts, r)
			}
		} else {
			parts = splitObjects(s)
		}
		var out []found
		for _, p := range parts {
			name, args, err := callObject(p, true)
			if err != nil || !known(name) {
				return nil
			}
			out = append(out, found{name, args})
		}
		return out
	}
	var rest []string
	lines := strings.Split(text, "\n")
	var got []found
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "```") {
			// A fenced block: up to its closing fence.
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
				j++
			}
			if fc := calls(strings.Join(lines[i+1:min(j, len(lines))], "\n")); fc != nil {
				got = append(got, fc...)
				i = j
				continue
			}
			rest = append(rest, lines[i:min(j+1, len(lines))]...)
			i = j
			continue
		}
		if strings.HasPrefix(line, "{") || strings.HasPrefix(line, "[{") {
			// An object standing on lines of its own: the shortest run of lines from
			// here that reads as calls (an object spans at most maxCallLines).
			matched := -1
			var fc []found
			for j := i + 1; j <= min(len(lines), i+maxCallLines); j++ {
				if c := calls(strings.Join(lines[i:j], "\n")); c != nil {
					matched, fc = j, c
					break
				}
			}
			if matched > 0 {
				got = append(got, fc...)
				i = matched - 1
				continue
			}
		}
		rest = append(rest, lines[i])
	}
	if len(got) == 0 {
		return text
	}
	for _, f := range got {
		add(f.name, f.args)
	}
	return strings.TrimSpace(strings.Join(rest, "\n"))
}

// maxCallLines bounds the lines one bare call object may span.
const maxCallLines = 200
