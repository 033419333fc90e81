package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// PreviewPrefix names a tool's preview: preview_send_message is send_message's dry run.
const PreviewPrefix = "preview_"

// PreviewMeta and EffectsMeta are the _meta keys of a tool with a preview: its
// preview's name, and the numbers the preview may predict (game.Tool.Effects).
// coplay's own client (game/mcp) reads the same keys: it asks the preview for the
// tool's dry run, and keeps the preview out of its model's catalogue.
const (
	PreviewMeta = "coplay/preview"
	EffectsMeta = "coplay/effects"
)

// addTools puts the seat's game tools on its server, each with its preview when the
// game can predict it. A Note tool (the notebook's) is not the game's and is not served.
func (st *seat) addTools() error {
	tools := st.reg.Tools()
	names := game.ToolSet(tools)
	order := map[string]int{}
	defer func() { st.srv.AddReceivingMiddleware(listInOrder(order)) }()
	for _, t := range tools {
		order[t.Name], order[PreviewPrefix+t.Name] = 2*len(order), 2*len(order)+1
		if t.Kind != game.Read && t.Kind != game.Act {
			continue
		}
		schema, err := t.SchemaJSON()
		if err != nil {
			return fmt.Errorf("mcpserve: tool %s's schema: %w", t.Name, err)
		}
		closed := false
		preview := t.DryRun && !names[PreviewPrefix+t.Name]
		var meta sdk.Meta
		if preview {
			meta = sdk.Meta{PreviewMeta: PreviewPrefix + t.Name}
			if len(t.Effects) > 0 {
				meta[EffectsMeta] = t.Effects
			}
		}
		st.srv.AddTool(&sdk.Tool{
			Name: t.Name, Description: t.Description, InputSchema: schema, Meta: meta,
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: t.Kind == game.Read, OpenWorldHint: &closed},
		}, st.callHandler(t))
		if !preview {
			continue
		}
		st.srv.AddTool(&sdk.Tool{
			Name: PreviewPrefix + t.Name,
			Description: fmt.Sprintf("Dry run of %s with the same arguments: what it would do now, without doing it. "+
				"Answers the game's own prediction as JSON: predicted (false when the game cannot say), summary, fails, warn, effects.", t.Name),
			InputSchema: schema,
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed},
		}, st.previewHandler(t))
	}
	return nil
}

// listInOrder answers tools/list in the game's order (each preview after its tool),
// the order a local agent reads its catalogue in; the SDK sorts by name.
func listInOrder(order map[string]int) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if list, ok := res.(*sdk.ListToolsResult); ok && err == nil {
				slices.SortStableFunc(list.Tools, func(a, b *sdk.Tool) int { return order[a.Name] - order[b.Name] })
			}
			return res, err
		}
	}
}

// handler is how every call of t runs: the seat's rate limit, the arguments checked as
// a local agent's are, then body, with the call's deadline, as the seat's only call.
func (st *seat) handler(t game.Tool, body func(ctx context.Context, v game.ValidCall) (*sdk.CallToolResult, error)) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if wait, ok := st.s.take(st); !ok {
			return st.s.rateLimited(st, wait), nil
		}
		v, err := st.reg.Check(t.Name, arguments(req))
		if err != nil {
			return errorResult(err.Error()), nil
		}
		ctx, cancel := context.WithTimeout(ctx, st.s.cfg.CallTimeout)
		defer cancel()
		st.mu.Lock()
		defer st.mu.Unlock()
		return body(ctx, v)
	}
}

// callHandler runs a call of t, and for an Act that may have changed the world, commits
// the seat before the answer.
func (st *seat) callHandler(t game.Tool) sdk.ToolHandler {
	return st.handler(t, func(ctx context.Context, v game.ValidCall) (*sdk.CallToolResult, error) {
		res, err := st.run(func() (game.Result, error) { return st.reg.CallValidated(ctx, v) })
		if err != nil {
			return errorResult(fmt.Sprintf("%s could not be asked (nothing was done): %v", t.Name, err)), nil
		}
		out := toolResult(res)
		if t.Kind == game.Act && (res.OK() || res.Unknown) {
			if err := st.commit(actLine(t.Name, v.Args(), out)); err != nil {
				out.Content = append(out.Content, &sdk.TextContent{Text: "The server could not keep this step on disk (" + err.Error() + "): the world has it, but a restart would lose it."})
			}
		}
		return out, nil
	})
}

// previewHandler answers t's dry run.
func (st *seat) previewHandler(t game.Tool) sdk.ToolHandler {
	return st.handler(t, func(ctx context.Context, v game.ValidCall) (*sdk.CallToolResult, error) {
		var p preview
		_, err := st.run(func() (game.Result, error) {
			var err error
			p.Simulation, p.Predicted, err = st.reg.SimulateValidated(ctx, v)
			return game.Result{}, err
		})
		if err != nil {
			return errorResult(fmt.Sprintf("the preview of %s could not be made: %v", t.Name, err)), nil
		}
		if !p.Predicted {
			p.Simulation = game.Simulation{Summary: "the game cannot predict this call"}
		}
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
	})
}

// actLine says what an act did, for the journal: the call and the first line of its
// answer.
func actLine(tool string, args json.RawMessage, out *sdk.CallToolResult) string {
	answer := ""
	if len(out.Content) > 0 {
		if t, ok := out.Content[0].(*sdk.TextContent); ok {
			answer, _, _ = strings.Cut(t.Text, "\n")
		}
	}
	return fmt.Sprintf("%s %s → %s", tool, args, answer)
}

// preview is a preview tool's answer: the game's dry run, and whether it could say.
type preview struct {
	Predicted bool `json:"predicted"`
	game.Simulation
}

// run calls fn, turning a panic in the game into an error: one bad call must not take
// the world down with every seat's sessions.
func (st *seat) run(fn func() (game.Result, error)) (res game.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the game failed: %v", p)
			st.s.journal.add(Entry{Kind: KindError, Seat: st.name, Text: err.Error()})
		}
	}()
	return fn()
}

// arguments are a call's raw arguments; none is {}.
func arguments(req *sdk.CallToolRequest) json.RawMessage {
	if req.Params == nil || len(req.Params.Arguments) == 0 || string(req.Params.Arguments) == "null" {
		return json.RawMessage("{}")
	}
	return req.Params.Arguments
}

// toolResult is a game's Result as an MCP client reads it, in the words a local agent
// reads (game.Result.Text): a refusal is an error result; an outcome that is not known
// is not, since the call may have happened.
func toolResult(res game.Result) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Text("")}}, IsError: res.Err != nil}
}

// errorResult is a tool error with text: the client (and its model) reads it.
func errorResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: true}
}

// rateLimited is the answer to a call past the seat's limit: a tool error as a 429,
// saying when to retry, in words and in structuredContent. Nothing ran.
func (s *Server) rateLimited(st *seat, wait time.Duration) *sdk.CallToolResult {
	secs := math.Ceil(wait.Seconds()*10) / 10
	out := errorResult(fmt.Sprintf("429 Too Many Requests: seat %s is over its limit (%s); nothing was done. Retry after %.1f s.", st.name, s.limitText(), secs))
	out.StructuredContent = rateLimit{Status: 429, RetryAfter: secs}
	return out
}

// rateLimit is a refused call's structured answer.
type rateLimit struct {
	Status     int     `json:"status"`
	RetryAfter float64 `json:"retry_after"` // seconds
}
