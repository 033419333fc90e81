package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The seat's resources. Each seat has its own server, so the URIs are the same for
// every seat and name the seat's own.
const (
	// WorldURI is the seat's observation: what its agent reads at every step.
	WorldURI = "coplay://world"
	// TriggersURI is the seat's latest triggers, JSON, oldest first.
	TriggersURI = "coplay://triggers"
	// RulesURI is the seat's rules (also the servers' instructions).
	RulesURI = "coplay://rules"
	// ObservationURI is the seat's observation as data (JSON, Observation): what a
	// joined coplay (game/join) observes, metrics, timers and idle time included, and
	// for a game with a view (game.Viewer, the arena) the view its autopilot reads.
	ObservationURI = "coplay://observation"
)

// Observation is coplay://observation: the seat's game.Observation, and the game's view
// when it has one (game.Viewer), taken together so that they agree.
type Observation struct {
	Observation game.Observation `json:"observation"`
	View        json.RawMessage  `json:"view,omitempty"`
}

// TriggerMeta is the _meta key under which a resource update carries the trigger behind
// it ({type, subject, text, time}); game/mcp's client reads the same key.
const TriggerMeta = "coplay/trigger"

// keptTriggers is how many of a seat's latest triggers coplay://triggers gives.
const keptTriggers = 50

// addResources puts the world, the triggers and the rules on the seat's server.
func (st *seat) addResources() {
	st.srv.AddResource(&sdk.Resource{URI: WorldURI, Name: "world", Title: "Your world",
		Description: "Your seat's view of the world, as its agent reads it every step (markdown). Subscribe to hear of every trigger.",
		MIMEType:    "text/markdown"}, st.readWorld)
	st.srv.AddResource(&sdk.Resource{URI: TriggersURI, Name: "triggers", Title: "What just happened",
		Description: fmt.Sprintf("Your seat's latest %d triggers (a message, a battle, a finished shift), oldest first (JSON). Subscribe: each new one is a notifications/resources/updated whose _meta[%q] is the trigger.", keptTriggers, TriggerMeta),
		MIMEType:    "application/json"}, st.readTriggers)
	st.srv.AddResource(&sdk.Resource{URI: ObservationURI, Name: "observation", Title: "Your world, as data",
		Description: "Your seat's observation as JSON: {observation: {summary, metrics, timers, time, idle_until, idle_reason}, view} (view: the world as the built-in autopilot reads it, for the arena). What a joined coplay (coplay --join) reads every step.",
		MIMEType:    "application/json"}, st.readObservation)
	st.srv.AddResource(&sdk.Resource{URI: RulesURI, Name: "rules", Title: "Rules",
		Description: "The rules your seat plays by (markdown).", MIMEType: "text/markdown"}, st.readRules)
}

// readWorld observes the seat's world.
func (st *seat) readWorld(ctx context.Context, _ *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	o, err := st.observe(ctx, false)
	if err != nil {
		return nil, err
	}
	return textResource(WorldURI, "text/markdown", o.Observation.Summary), nil
}

// readObservation gives the seat's observation, and its view, as data.
func (st *seat) readObservation(ctx context.Context, _ *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	o, err := st.observe(ctx, true)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return textResource(ObservationURI, "application/json", string(b)), nil
}

// observe spends one of the seat's calls on observing its world, and its view too when
// asked and the game has one, as the seat's only call.
func (st *seat) observe(ctx context.Context, view bool) (Observation, error) {
	var o Observation
	if err := st.s.readAllowed(st); err != nil {
		return o, err
	}
	ctx, cancel := context.WithTimeout(ctx, st.s.cfg.CallTimeout)
	defer cancel()
	st.mu.Lock()
	defer st.mu.Unlock()
	_, err := st.run(func() (game.Result, error) {
		var err error
		if o.Observation, err = st.opened.Game.Observe(ctx); err != nil || !view {
			return game.Result{}, err
		}
		if v, ok := st.opened.Game.(game.Viewer); ok {
			o.View, err = v.ViewJSON(ctx)
		}
		return game.Result{}, err
	})
	if err != nil {
		return o, fmt.Errorf("observing seat %s's world: %w", st.name, err)
	}
	return o, nil
}

// readTriggers gives the seat's latest triggers.
func (st *seat) readTriggers(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	if err := st.s.readAllowed(st); err != nil {
		return nil, err
	}
	st.trigMu.Lock()
	b, err := json.Marshal(triggerList{Seat: st.name, Triggers: nonNil(st.triggers)})
	st.trigMu.Unlock()
	if err != nil {
		return nil, err
	}
	return textResource(TriggersURI, "application/json", string(b)), nil
}

// triggerList is coplay://triggers.
type triggerList struct {
	Seat     string         `json:"seat"`
	Triggers []game.Trigger `json:"triggers"`
}

// readRules gives the seat's rules.
func (st *seat) readRules(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	return textResource(RulesURI, "text/markdown", st.opened.Game.Info().Rules), nil
}

func textResource(uri, mime, text string) *sdk.ReadResourceResult {
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}
}

// keepLast appends v to s and keeps its last n.
func keepLast[T any](s []T, v T, n int) []T {
	s = append(s, v)
	if over := len(s) - n; over > 0 {
		s = slices.Delete(s, 0, over)
	}
	return s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// readAllowed spends one of the seat's calls on a read, or refuses it as a 429 would.
func (s *Server) readAllowed(st *seat) error {
	if wait, ok := s.take(st); !ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("429 Too Many Requests: seat %s is over its limit (%s); retry after %.1f s", st.name, s.limitText(), wait.Seconds())}
	}
	return nil
}

// subscribe accepts subscriptions to the world and the triggers, the resources that
// change.
func (st *seat) subscribe(_ context.Context, req *sdk.SubscribeRequest) error {
	if uri := req.Params.URI; uri != WorldURI && uri != TriggersURI {
		return fmt.Errorf("%s cannot be subscribed to: subscribe to %s or %s", uri, WorldURI, TriggersURI)
	}
	return nil
}

// pumpTriggers passes the seat's game triggers on, until the game closes its channel:
// each is kept for coplay://triggers and told to the seat's subscribers.
func (st *seat) pumpTriggers(wg *sync.WaitGroup) {
	tg, ok := st.opened.Game.(game.Triggers)
	if !ok {
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for t := range tg.Triggers() {
			st.trigger(t)
		}
	}()
}

// trigger keeps t and tells every session of the seat that subscribed to the world or
// the triggers.
func (st *seat) trigger(t game.Trigger) {
	if t.Time.IsZero() {
		t.Time = time.Now()
	}
	st.trigMu.Lock()
	st.triggers = keepLast(st.triggers, t, keptTriggers)
	st.trigMu.Unlock()
	for _, uri := range []string{TriggersURI, WorldURI} {
		st.srv.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: uri, Meta: sdk.Meta{TriggerMeta: t}})
	}
}
