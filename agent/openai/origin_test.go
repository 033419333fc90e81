package openai_test

import (
	"context"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/agent/openai"
)

// The key goes only to the endpoint's origin: a model server that answers 307 to
// another origin (here another loopback port, where net/http alone would keep an
// Authorization header) is followed, and the key is not sent there.
func TestKeyDoesNotFollowARedirect(t *testing.T) {
	const key = "sk-test-origin-0123456789"
	srv, _, _ := script(t, twoCalls, nil)
	moved := llmtest.NewMoved(srv)
	defer moved.Close()
	b, err := openai.New(openai.Config{BaseURL: moved.Front.URL + "/v1", APIKey: key, Model: "test-model", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Next(context.Background(), request(t)); err != nil {
		t.Fatal(err)
	}
	got := moved.Headers()
	if len(got) == 0 {
		t.Fatal("the redirect was not followed")
	}
	for _, h := range got {
		if strings.Contains(h.Get("Authorization"), key) || h.Get("Api-Key") != "" {
			t.Errorf("the key reached another origin: %v", h)
		}
	}
}
