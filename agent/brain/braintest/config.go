package braintest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// Refusal is a configuration a brain's New must refuse, and a part of the error it
// must give.
type Refusal[C any] struct {
	Config C
	Want   string
}

// Refuses checks that open (a brain package's New) refuses each configuration with an
// error containing its Want.
func Refuses[C, B any](t *testing.T, open func(C) (B, error), cases []Refusal[C]) {
	t.Helper()
	for _, c := range cases {
		if _, err := open(c.Config); err == nil || !strings.Contains(err.Error(), c.Want) {
			t.Errorf("New(%v) = %v, want an error containing %q", c.Config, err, c.Want)
		}
	}
}

// KeyStaysHome checks that a brain's API key goes only to its endpoint's origin: the
// brain open makes for base (the front of srv behind a 307 to another loopback port,
// where net/http alone would keep some key headers) follows the redirect, and no
// request that reaches the other origin carries the key (leaked says whether headers
// do). It returns the error of the brain's one call, for the caller to judge.
func KeyStaysHome(t *testing.T, srv *llmtest.Server, open func(base string) (brain.Brain, error), leaked func(http.Header) bool) error {
	t.Helper()
	moved := llmtest.NewMoved(srv)
	defer moved.Close()
	b, err := open(moved.Front.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Next(context.Background(), request(t))
	got := moved.Headers()
	if len(got) == 0 {
		t.Fatalf("the redirect was not followed: %v", err)
	}
	for _, h := range got {
		if leaked(h) {
			t.Errorf("the key reached another origin: %v", h)
		}
	}
	return err
}
