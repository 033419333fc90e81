// Package braintest holds what the model brains' tests share: a brain of a Kind on a
// scripted server (agent/llmtest) for a cassette, a recorder of the waits between
// attempts that sleeps through none of them, the tools a test request offers, and the
// fault suite every model brain runs (Faults).
package braintest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game"
)

// Serve starts a scripted server for the cassette JSON, closed when the test ends.
func Serve(t testing.TB, cassette string) *llmtest.Server {
	t.Helper()
	c, err := llmtest.Parse([]byte(cassette))
	if err != nil {
		t.Fatal(err)
	}
	return ServeCassette(t, c)
}

// ServeCassette starts a scripted server for c, closed when the test ends.
func ServeCassette(t testing.TB, c *llmtest.Cassette) *llmtest.Server {
	srv := llmtest.NewServer(c)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// Kind is a model brain package as its tests use it: the configuration it takes for a
// scripted server, how a brain is made of it, how the test takes over its sleep, and
// where its settings that the fault suite changes live.
type Kind[C any, B brain.Brain] struct {
	Config   func(*llmtest.Server) C
	Open     func(C) (B, error)
	SetSleep func(B, func(context.Context, time.Duration) error)
	Settings func(*C) (stream *bool, timeout *time.Duration, maxRetries *int)
}

// Brain starts a server for the cassette JSON and a brain of this kind pointed at it:
// k.Config for the server, changed by mod (if not nil). Its backoff is recorded in the
// returned Waits, not slept through.
func (k Kind[C, B]) Brain(t testing.TB, cassette string, mod func(*C)) (*llmtest.Server, B, *Waits) {
	t.Helper()
	srv := Serve(t, cassette)
	b := k.On(t, srv, mod)
	w := &Waits{}
	k.SetSleep(b, w.Sleep)
	return srv, b, w
}

// On is a brain of this kind pointed at srv: k.Config for the server, changed by mod
// (if not nil). It sleeps its backoff for real; only Config and Open need be set.
func (k Kind[C, B]) On(t testing.TB, srv *llmtest.Server, mod func(*C)) B {
	t.Helper()
	cfg := k.Config(srv)
	if mod != nil {
		mod(&cfg)
	}
	b, err := k.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Opener is Brain for the suites, which change only the common Settings.
func (k Kind[C, B]) Opener() Opener {
	return func(t testing.TB, cassette string, mod func(*Settings)) (*llmtest.Server, brain.Brain, *Waits) {
		srv, b, w := k.Brain(t, cassette, func(c *C) {
			if mod == nil {
				return
			}
			stream, timeout, retries := k.Settings(c)
			s := Settings{Stream: *stream, Timeout: *timeout, MaxRetries: *retries}
			mod(&s)
			*stream, *timeout, *retries = s.Stream, s.Timeout, s.MaxRetries
		})
		return srv, b, w
	}
}

// Waits records the backoff a brain asked for.
type Waits struct {
	mu sync.Mutex
	d  []time.Duration
}

// Sleep records d and returns at once: ctx's error, as a sleep cut short would.
func (w *Waits) Sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

// All returns the waits asked for so far, in order.
func (w *Waits) All() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

type shipArgs struct {
	ShipSymbol string `json:"shipSymbol"`
}

// Tools is a small catalogue: orbit_ship (an Act with a schema) and observe_game (a
// Read without one).
func Tools(t testing.TB) []game.Tool {
	t.Helper()
	s, err := jsonschema.For[shipArgs](nil)
	if err != nil {
		t.Fatal(err)
	}
	return []game.Tool{
		{Name: "orbit_ship", Description: "Put a ship in orbit.", Kind: game.Act, Schema: s},
		{Name: "observe_game", Description: "Look at the world.", Kind: game.Read},
	}
}
