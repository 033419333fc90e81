package openai_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/brain/braintest"
	"github.com/coplayhq/coplay/agent/openai"
)

// The key goes only to the endpoint's origin: a model server that answers 307 to
// another origin (here another loopback port, where net/http alone would keep an
// Authorization header) is followed, and the key is not sent there.
func TestKeyDoesNotFollowARedirect(t *testing.T) {
	const key = "sk-test-origin-0123456789"
	srv, _, _ := script(t, twoCalls, nil)
	err := braintest.KeyStaysHome(t, srv, func(base string) (brain.Brain, error) {
		return openai.New(openai.Config{BaseURL: base + "/v1", APIKey: key, Model: "test-model", MaxRetries: -1})
	}, func(h http.Header) bool {
		return strings.Contains(h.Get("Authorization"), key) || h.Get("Api-Key") != ""
	})
	if err != nil {
		t.Fatal(err)
	}
}
