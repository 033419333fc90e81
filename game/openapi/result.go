package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/polite"
	"github.com/google/jsonschema-go/jsonschema"
)

// result turns a response into what the model reads.
func (g *Game) result(op *operation, r *response, tool string) game.Result {
	switch {
	case r.Status >= 200 && r.Status < 300:
		return game.Result{Output: successText(r, tool, outputLimit)}
	case op.Kind == game.Act && (r.Status == http.StatusBadGateway || r.Status == http.StatusGatewayTimeout):
		// A gateway gave up waiting: the server behind it may have done it.
		return game.Result{Unknown: true, Output: fmt.Sprintf(
			"outcome unknown: HTTP %d from a gateway; %s may or may not have happened. Read the state again before deciding.", r.Status, op.Name)}
	}
	res := game.Result{Err: errorFrom(r)}
	if r.Status == http.StatusTooManyRequests {
		until := polite.RetryAfter(r.Header, g.now())
		res.Wait = &game.Wait{Until: until, Reason: "rate limited by the server; nothing was done"}
	}
	return res
}

// successText summarises a 2xx body, saying when something was left out.
func successText(r *response, tool string, limit int) string {
	out, cut := summarize(r.Body, limit-200)
	if out == "" {
		out = fmt.Sprintf("HTTP %d: done (no content).", r.Status)
	}
	if cut || r.Truncated {
		out += fmt.Sprintf("\n(summarised: last_response {\"tool\": %q} shows the whole response)", tool)
	}
	if r.ReadErr != "" {
		out += "\n(the response was cut off: " + r.ReadErr + ")"
	}
	if r.Stream {
		out += fmt.Sprintf("\n(this is the start of a stream: what the server sent in its first %s, at most %d lines; coplay closed the connection. Calling again opens a new stream)",
			polite.DefaultStreamWindow, polite.DefaultStreamLines)
	}
	return out
}

// errorFrom reads an error response: {"error": {"code", "message", "data"}} (as
// SpaceTraders sends), {"message"} or RFC 7807 {"title", "detail"}; else the text.
func errorFrom(r *response) *game.Error {
	e := &game.Error{Code: r.Status}
	var msg string
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if dec.Decode(&body) == nil {
		inner, _ := body["error"].(map[string]any)
		if inner == nil {
			inner = body
		}
		msg = firstNonEmpty(str(inner["message"]), str(inner["detail"]), str(inner["title"]), str(body["error"]))
		if n, ok := inner["code"].(json.Number); ok {
			if c, err := n.Int64(); err == nil {
				e.Code = int(c)
			}
		}
		if data, ok := inner["data"]; ok {
			raw, _ := json.Marshal(data)
			if s, _ := summarize(raw, 2<<10); json.Valid([]byte(s)) {
				e.Data = json.RawMessage(s)
			}
		}
	}
	if msg == "" {
		msg, _ = summarize(r.Body, 600)
	}
	msg = trimText(msg, 600)
	status := fmt.Sprintf("HTTP %d %s", r.Status, http.StatusText(r.Status))
	if msg == "" {
		e.Message = status
	} else {
		e.Message = msg + " (" + status + ")"
	}
	return e
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// lastResponseTool is the Read tool showing a call's whole last response.
func (g *Game) lastResponseTool() game.Tool {
	schema := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"tool":   {Type: "string", Description: "The tool (or, in a grouped tool, the operation) whose last response to show."},
			"offset": {Type: "integer", Minimum: ptr(0.0), Description: "Where to start, in bytes, for a response longer than one page."},
		},
		PropertyOrder:        []string{"tool", "offset"},
		Required:             []string{"tool"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	return game.Tool{
		Name:        lastResponseTool,
		Description: fmt.Sprintf("Shows the whole last response of a tool (up to %d KB a page), where its result was summarised.", fullLimit>>10),
		Kind:        game.Read,
		Schema:      schema,
		Check: func(args json.RawMessage) []game.Problem {
			m, err := decodeArgs(args)
			if err != nil {
				return nil
			}
			name, _ := m["tool"].(string)
			names := g.responseNames()
			if slices.Contains(names, name) {
				return nil
			}
			p := game.Problem{Path: "arguments.tool", Expected: "a tool or operation name", Got: fmt.Sprintf("%q", name)}
			if near := game.Closest(name, names, 3); len(near) > 0 {
				p.Hint = "did you mean " + strings.Join(near, " or ") + "?"
			}
			return []game.Problem{p}
		},
	}
}

// responseNames are the names last_response knows: every tool and operation.
func (g *Game) responseNames() []string {
	var names []string
	for _, op := range g.ops {
		names = append(names, op.Name)
	}
	for name := range g.groups {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// lastResponse shows one page of a stored response.
func (g *Game) lastResponse(args map[string]any) game.Result {
	name, _ := args["tool"].(string)
	offset := 0
	if n, ok := args["offset"].(json.Number); ok {
		if v, err := n.Int64(); err == nil && v > 0 {
			offset = int(v)
		}
	}
	g.mu.Lock()
	r := g.last[name]
	g.mu.Unlock()
	if r == nil {
		return game.Result{Output: fmt.Sprintf("%s has not been called yet in this session: nothing to show.", name)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s → HTTP %d, %d bytes", r.Method, r.Path, r.Status, len(r.Body))
	if r.Truncated {
		fmt.Fprintf(&b, " (only the first %d MB were kept)", maxBody>>20)
	}
	b.WriteString("\n")
	if offset >= len(r.Body) && len(r.Body) > 0 {
		fmt.Fprintf(&b, "(offset %d is past the end)", offset)
		return game.Result{Output: b.String()}
	}
	start := offset
	for start > 0 && start < len(r.Body) && !utf8.RuneStart(r.Body[start]) {
		start--
	}
	end := min(len(r.Body), start+fullLimit)
	for end < len(r.Body) && end > start && !utf8.RuneStart(r.Body[end]) {
		end--
	}
	b.Write(r.Body[start:end])
	if end < len(r.Body) {
		fmt.Fprintf(&b, "\n(showing bytes %d–%d of %d: call again with offset %d for more)", start, end, len(r.Body), end)
	}
	return game.Result{Output: b.String()}
}

func ptr[T any](v T) *T { return &v }
