package anthropic_test

import (
	"context"
	"testing"

	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// x-api-key goes only to the API root's origin: net/http copies such a header to any
// host a redirect names, so without the guard a 307 to another origin took it there.
func TestKeyDoesNotFollowARedirect(t *testing.T) {
	srv, _, _ := script(t, `{"steps": [{"text": "hello"}]}`, nil)
	moved := llmtest.NewMoved(srv)
	defer moved.Close()
	b, err := anthropic.New(anthropic.Config{BaseURL: moved.Front.URL, APIKey: testKey, Model: "claude-test", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Next(context.Background(), request(t)) // refused there for want of a key
	got := moved.Headers()
	if len(got) == 0 {
		t.Fatalf("the redirect was not followed: %v", err)
	}
	for _, h := range got {
		if h.Get("X-Api-Key") != "" || h.Get("Authorization") != "" {
			t.Errorf("the key reached another origin: %v", h)
		}
	}
}
