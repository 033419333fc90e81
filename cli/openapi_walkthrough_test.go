package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// README's OpenAPI walkthrough works from a clone: the spec it names is in the
// repository (testdata/openapi/universe), and the scripted tour it runs against
// `coplay serve-universe --seed 1 --agent COPLAY` reads the agent, is refused a
// lower-case flight mode before any request, and accepts the contract.
func TestOpenAPIWalkthroughFromAClone(t *testing.T) {
	t.Parallel()
	srv, token := serveUniverse(t)
	spec := filepath.Join("..", "testdata", "openapi", "universe", "openapi.json")
	cassette := filepath.Join("..", "testdata", "cassettes", "openapi-universe.cassette.json")
	evs := headlessRunEnv(t, []string{"--data", filepath.Join(t.TempDir(), "coplay.db"), "--game", "openapi", "--spec", spec,
		"--base-url", srv.URL + "/v2", "--token-env", "UNIVERSE_TOKEN", "--observe", "get-my-agent",
		"--brain", "script:" + cassette, "--steps", "6"},
		[]string{"UNIVERSE_TOKEN=" + token},
		func(ev agent.Event, send func(agent.Command)) {
			if ev.Type == agent.EventProposed && ev.Call.NeedsOK {
				send(agent.Command{Cmd: agent.CmdDecide, CallID: ev.Call.ID, Decision: agent.Approve})
			}
		})
	results, problems := resultsAndProblems(t, evs)
	all := strings.Join(results, "\n")
	for _, want := range []string{"get-my-agent ", "get-contracts ", "accept-contract ", "orbit-ship ", "navigate-ship ", "get-my-ship "} {
		if !strings.Contains(all, want) {
			t.Errorf("no result of %s:\n%s", want, all)
		}
	}
	for _, r := range results {
		if strings.Contains(r, " ERROR ") && !strings.Contains(r, "invalid call, not executed") {
			t.Errorf("game error: %s", r)
		}
	}
	if !strings.Contains(strings.Join(problems, "\n"), "did you mean CRUISE") {
		t.Errorf("the lower-case flight mode was not refused before the request: %q", problems)
	}
	if !strings.Contains(all, `"accepted":true`) && !strings.Contains(all, "ACCEPTED") {
		t.Errorf("the contract was not accepted:\n%s", all)
	}
}
