// Package braintest holds what the model brains' tests share: a brain on a scripted
// server (agent/llmtest) for a cassette, a recorder of the waits between attempts that
// sleeps through none of them, and the tools a test request offers.
package braintest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

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
	srv := llmtest.NewServer(c)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// Brain starts a server for the cassette JSON and a brain pointed at it: base is the
// brain's configuration for the server, mod (if not nil) changes it, open makes the
// brain and setSleep gives it the returned Waits' Sleep, so that backoff is recorded,
// not slept through.
func Brain[C, B any](t testing.TB, cassette string, base func(*llmtest.Server) C, mod func(*C),
	open func(C) (B, error), setSleep func(B, func(context.Context, time.Duration) error)) (*llmtest.Server, B, *Waits) {
	t.Helper()
	srv := Serve(t, cassette)
	cfg := base(srv)
	if mod != nil {
		mod(&cfg)
	}
	b, err := open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := &Waits{}
	setSleep(b, w.Sleep)
	return srv, b, w
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
