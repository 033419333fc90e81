package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeHost is a game.Host that answers as a test says and keeps what it was told.
type fakeHost struct {
	mu       sync.Mutex
	answer   game.Answer
	decline  bool // Sample declines
	asked    []game.Question
	samples  []game.SampleRequest
	progress []game.Progress
	logs     []game.LogLine
}

func (h *fakeHost) Ask(_ context.Context, q game.Question) (game.Answer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, q)
	return h.answer, nil
}

func (h *fakeHost) Sample(_ context.Context, req game.SampleRequest) (game.SampleResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.samples = append(h.samples, req)
	if h.decline {
		return game.SampleResult{}, game.ErrDeclined
	}
	return game.SampleResult{Text: "The hall is dark.", Model: "test-model"}, nil
}

func (h *fakeHost) Progress(p game.Progress) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.progress = append(h.progress, p)
}

func (h *fakeHost) Log(l game.LogLine) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs = append(h.logs, l)
}

// dungeon is a go-sdk server whose tools use the client: door elicits a choice of three
// with defaults, narrate samples, dig reports progress and logs.
func dungeon() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "dungeon", Version: "1"}, &sdk.ServerOptions{HasTools: true,
		// As servers speak today: a request of their own while serving a call.
		SupportedProtocolVersions: []string{"2025-11-25"}})
	type none struct{}
	sdk.AddTool(s, &sdk.Tool{Name: "door", Description: "choose a door"}, func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Which door do you open?", RequestedSchema: json.RawMessage(`{"type":"object",
			"properties":{"door":{"type":"string","enum":["left","middle","right"],"default":"middle"},
			"torches":{"type":"integer","default":1}},"required":["door"]}`)})
		if err != nil {
			return nil, nil, err
		}
		content, _ := json.Marshal(res.Content)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Action + " " + string(content)}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "guild", Description: "sign the guild's book on its site"}, func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: "Sign the guild's book", URL: "https://guild.example/sign", ElicitationID: "e1"})
		if err != nil {
			return nil, nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "guild: " + res.Action}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "narrate", Description: "narrate with the player's model"}, func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{MaxTokens: 50,
			Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "Describe the hall."}}}})
		if err != nil {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "sampling: " + err.Error()}}}, nil, nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "narration: " + res.Content.(*sdk.TextContent).Text}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "dig", Description: "dig slowly"}, func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
		for i := 1; i <= 3; i++ {
			req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 3, Message: "digging"})
		}
		req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Logger: "mine", Data: "found a gem"})
		req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "debug", Logger: "mine", Data: "too chatty"})
		// Notifications are handled apart from answers: progress that comes after the
		// answer finds no call in flight and is dropped, as it should be.
		time.Sleep(50 * time.Millisecond)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "dug"}}}, nil, nil
	})
	return s
}

// openDungeon connects a Game to an in-process dungeon.
func openDungeon(t *testing.T, cfg Config) *Game {
	t.Helper()
	s := dungeon()
	dial := func(ctx context.Context) (sdk.Transport, error) {
		ct, st := sdk.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	g, err := openWith(context.Background(), cfg, "dungeon", dial)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func call(t *testing.T, g *Game, h game.Host, tool string) game.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(game.WithHost(context.Background(), h), 10*time.Second)
	defer cancel()
	res, err := g.Call(ctx, tool, json.RawMessage(`{}`))
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// A server's elicitation reaches the Host with the server's message and schema; the
// answer goes back, with the schema's defaults for what an accept leaves out; decline
// and cancel go back as they are; no Host is a decline.
func TestElicitationReachesTheHost(t *testing.T) {
	g := openDungeon(t, Config{})
	for _, tc := range []struct {
		answer game.Answer
		want   string
	}{
		{game.Answer{Action: game.Accept, Content: json.RawMessage(`{"door":"left"}`)}, `accept {"door":"left","torches":1}`},
		{game.Answer{Action: game.Accept, Content: json.RawMessage(`{}`)}, `accept {"door":"middle","torches":1}`},
		{game.Answer{Action: game.Decline}, "decline null"},
		{game.Answer{Action: game.Cancel}, "cancel null"},
	} {
		h := &fakeHost{answer: tc.answer}
		res := call(t, g, h, "door")
		if res.Output != tc.want || res.Err != nil {
			t.Errorf("%s: the tool said %q (%v), want %q", tc.answer.Action, res.Output, res.Err, tc.want)
		}
		if len(h.asked) != 1 || h.asked[0].Message != "Which door do you open?" || !strings.Contains(string(h.asked[0].Schema), `"middle"`) || h.asked[0].Server != "dungeon" {
			t.Errorf("asked %+v", h.asked)
		}
	}
	h := &fakeHost{answer: game.Answer{Action: game.Accept}}
	if res := call(t, g, h, "guild"); res.Output != "guild: accept" {
		t.Errorf("a URL question: %+v", res)
	}
	if len(h.asked) != 1 || h.asked[0].URL != "https://guild.example/sign" || len(h.asked[0].Schema) != 0 {
		t.Errorf("the URL question asked %+v", h.asked)
	}
	g2 := openDungeon(t, Config{})
	res, err := g2.Call(context.Background(), "door", json.RawMessage(`{}`))
	if err != nil || res.Output != "decline null" {
		t.Errorf("no host: %q %v, want a decline", res.Output, err)
	}
}

// Sampling is offered only when the Config says so; approved, the Host's model answers;
// declined, the server hears a refusal.
func TestSamplingThroughTheHost(t *testing.T) {
	off := openDungeon(t, Config{})
	if res := call(t, off, &fakeHost{}, "narrate"); res.Err == nil || !strings.Contains(res.Err.Message, "sampling") {
		t.Errorf("sampling not offered: %+v, want the server's failure", res)
	}
	g := openDungeon(t, Config{Sampling: true})
	h := &fakeHost{}
	if res := call(t, g, h, "narrate"); res.Output != "narration: The hall is dark." {
		t.Errorf("approved: %+v", res)
	}
	if len(h.samples) != 1 || h.samples[0].Messages[0].Text != "Describe the hall." || h.samples[0].MaxTokens != 50 {
		t.Errorf("sample request %+v", h.samples)
	}
	res := call(t, g, &fakeHost{decline: true}, "narrate")
	if res.Err == nil || !strings.Contains(res.Err.Message, "rejected") {
		t.Errorf("declined: %+v, want the server to hear a rejection", res)
	}
}

// Progress on a call reaches the Host; log lines at the level asked for (info by
// default) do, debug lines do not.
func TestProgressAndLogsReachTheHost(t *testing.T) {
	g := openDungeon(t, Config{})
	h := &fakeHost{}
	if res := call(t, g, h, "dig"); res.Output != "dug" {
		t.Fatalf("dig: %+v", res)
	}
	waitFor(t, "the log line", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.logs) >= 1 && len(h.progress) == 3
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.progress[2]; p.Progress != 3 || p.Total != 3 || p.Message != "digging" {
		t.Errorf("progress %+v", h.progress)
	}
	if len(h.logs) != 1 || h.logs[0].Level != "info" || string(h.logs[0].Data) != `"found a gem"` || h.logs[0].Logger != "mine" {
		t.Errorf("logs %+v, want the info line only", h.logs)
	}
}

// An observed resource the server can say changed is subscribed to; its updates are
// triggers of type resource.updated on the URI.
func TestResourceUpdatesAreTriggers(t *testing.T) {
	subscribed := make(chan string, 1)
	s := sdk.NewServer(&sdk.Implementation{Name: "board", Version: "1"}, &sdk.ServerOptions{
		SubscribeHandler:   func(_ context.Context, req *sdk.SubscribeRequest) error { subscribed <- req.Params.URI; return nil },
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	})
	s.AddResource(&sdk.Resource{URI: "game://board", Name: "board", MIMEType: "text/plain"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "game://board", Text: "empty board"}}}, nil
	})
	dial := func(ctx context.Context) (sdk.Transport, error) {
		ct, st := sdk.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	g, err := openWith(context.Background(), Config{Observe: []string{"game://board"}}, "board", dial)
	if err != nil {
		t.Fatal(err)
	}
	var _ game.Triggers = g
	if uri := <-subscribed; uri != "game://board" {
		t.Fatalf("subscribed to %q", uri)
	}
	// The SDK calls SubscribeHandler before it records the subscription, so an update
	// sent at once may find nobody subscribed: the server says it again until it lands.
	deadline := time.After(time.Minute)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for got := false; !got; {
		if err := s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "game://board"}); err != nil {
			t.Fatal(err)
		}
		select {
		case tr := <-g.Triggers():
			if tr.Type != "resource.updated" || tr.Subject != "game://board" {
				t.Errorf("trigger %+v", tr)
			}
			got = true
		case <-tick.C:
		case <-deadline:
			t.Fatal("no trigger for the update")
		}
	}
	g.Close()
	// Updates said more than once may still be buffered; after them the channel closes.
	for closed := false; !closed; {
		select {
		case _, open := <-g.Triggers():
			closed = !open
		case <-time.After(time.Minute):
			t.Fatal("the triggers channel stays open after Close")
		}
	}
}
