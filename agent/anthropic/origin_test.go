package anthropic_test

import (
	"net/http"
	"testing"

	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/brain/braintest"
)

// x-api-key goes only to the API root's origin: net/http copies such a header to any
// host a redirect names, so without the guard a 307 to another origin took it there.
// The call itself is refused there for want of a key.
func TestKeyDoesNotFollowARedirect(t *testing.T) {
	srv, _, _ := script(t, `{"steps": [{"text": "hello"}]}`, nil)
	braintest.KeyStaysHome(t, srv, func(base string) (brain.Brain, error) {
		return anthropic.New(anthropic.Config{BaseURL: base, APIKey: testKey, Model: "claude-test", MaxRetries: -1})
	}, func(h http.Header) bool { return h.Get("X-Api-Key") != "" || h.Get("Authorization") != "" })
}
