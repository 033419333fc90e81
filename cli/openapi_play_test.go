package cli

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game/universe"
)

// spaceTradersSpec is the official spec beside the repository (../shared), or a skip.
func spaceTradersSpec(t *testing.T) string {
	t.Helper()
	path, _ := filepath.Abs(filepath.Join("..", "..", "shared", "spacetraders", "reference", "SpaceTraders.json"))
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the SpaceTraders OpenAPI spec is not at %s (it comes with shared/ beside the repository): %v", path, err)
	}
	return path
}

// serveUniverse serves the offline universe of seed 1 over HTTP until the test ends,
// fast and rate-limited as the real game, with the agent COPLAY registered; it returns
// the server and the agent's token.
func serveUniverse(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	u := universe.New(universe.Config{Seed: 1, Speed: 100000, RateLimit: true})
	token, err := u.Register("COPLAY", "COSMIC")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(u.Handler())
	t.Cleanup(srv.Close)
	return srv, token
}

// TestHeadlessScriptedModelFulfilsContractThroughOpenAPI plays the offline universe
// through the generic OpenAPI driver only, with a scripted model on the real wire format:
// reads run by themselves, actions ask the person, a missing path parameter and a
// lower-case enum are refused before any request, the starting contract is fulfilled,
// and the game's token never reaches the model.
func TestHeadlessScriptedModelFulfilsContractThroughOpenAPI(t *testing.T) {
	t.Parallel()
	spec := spaceTradersSpec(t)
	srv, token := serveUniverse(t)

	const contract = "ckdsoklyaknh2sos8x1cscigi" // seed 1's first contract: 55 IRON_ORE to X1-YS98-A2
	ship := `"shipSymbol":"COPLAY-1"`
	fly := func(to string) []llmtest.Step {
		return []llmtest.Step{
			{Text: "Undock.", Calls: []llmtest.Call{scall("orbit-ship", `{`+ship+`}`)}},
			{Text: "Fly to " + to + ".", Calls: []llmtest.Call{scall("navigate-ship", `{`+ship+`,"waypointSymbol":"`+to+`"}`)}},
			{Text: "Dock.", Calls: []llmtest.Call{scall("dock-ship", `{`+ship+`}`)}},
		}
	}
	steps := []llmtest.Step{
		{Text: "Look first.", Calls: []llmtest.Call{scall("get-my-agent", `{}`), scall("get-contracts", `{}`)}},
		{Text: "Two mistakes.", Calls: []llmtest.Call{
			scall("orbit-ship", `{}`),
			scall("patch-ship-nav", `{`+ship+`,"flightMode":"cruise"}`),
		}},
		{Text: "Accept the contract.", Calls: []llmtest.Call{scall("accept-contract", `{"contractId":"`+contract+`"}`)}},
	}
	steps = append(steps, fly("X1-YS98-B1")...)
	steps = append(steps, llmtest.Step{Text: "Buy ore.", Calls: []llmtest.Call{scall("purchase-cargo", `{`+ship+`,"symbol":"IRON_ORE","units":40}`)}})
	steps = append(steps, fly("X1-YS98-A2")...)
	steps = append(steps, llmtest.Step{Text: "Deliver.", Calls: []llmtest.Call{scall("deliver-contract", `{"contractId":"`+contract+`",`+ship+`,"tradeSymbol":"IRON_ORE","units":40}`)}})
	steps = append(steps, fly("X1-YS98-B1")...)
	steps = append(steps, llmtest.Step{Text: "Buy the rest.", Calls: []llmtest.Call{scall("purchase-cargo", `{`+ship+`,"symbol":"IRON_ORE","units":15}`)}})
	steps = append(steps, fly("X1-YS98-A2")...)
	steps = append(steps,
		llmtest.Step{Text: "Deliver the rest.", Calls: []llmtest.Call{scall("deliver-contract", `{"contractId":"`+contract+`",`+ship+`,"tradeSymbol":"IRON_ORE","units":15}`)}},
		llmtest.Step{Text: "Get paid.", Calls: []llmtest.Call{scall("fulfill-contract", `{"contractId":"`+contract+`"}`)}},
		llmtest.Step{Text: "Check the credits.", Calls: []llmtest.Call{scall("get-my-agent", `{}`)}},
	)
	model := llmtest.NewServer(&llmtest.Cassette{Name: "openapi-contract", Steps: steps})
	defer model.Close()

	dir := t.TempDir()
	asked := map[string]int{}
	evs := headlessRunEnv(t, []string{"--data", filepath.Join(dir, "coplay.db"), "--game", "openapi", "--spec", spec,
		"--base-url", srv.URL + "/v2", "--token-env", "COPLAY_TEST_GAME_TOKEN", "--model", "scripted", "--steps", itoa(len(steps)), "--max-iterations", "50"},
		[]string{"COPLAY_TEST_GAME_TOKEN=" + token, "OPENAI_BASE_URL=" + model.URL(), "OPENAI_API_KEY=sk-test-key-for-the-scripted-model"},
		func(ev agent.Event, send func(agent.Command)) {
			if ev.Type == agent.EventProposed && ev.Call.NeedsOK {
				asked[ev.Call.Tool]++
				send(agent.Command{Cmd: agent.CmdDecide, CallID: ev.Call.ID, Decision: agent.Approve})
			}
		})

	results, problems := resultsAndProblems(t, evs)
	if asked["get-my-agent"]+asked["get-contracts"] != 0 {
		t.Errorf("reads asked the person: %v", asked)
	}
	if asked["orbit-ship"] != 4 || asked["accept-contract"] != 1 || asked["fulfill-contract"] != 1 {
		t.Errorf("actions asked the person %v; want every orbit, the accept and the fulfil", asked)
	}
	joined := strings.Join(problems, "\n")
	if !strings.Contains(joined, "orbit-ship: arguments.shipSymbol") || !strings.Contains(joined, "did you mean CRUISE") {
		t.Errorf("refusals before any request:\n%s", joined)
	}
	errs := 0
	for _, r := range results {
		if strings.Contains(r, " ERROR ") && !strings.Contains(r, "invalid call, not executed") {
			errs++
			t.Errorf("game error: %s", r)
		}
	}
	last := results[len(results)-1]
	if errs > 0 || !strings.Contains(last, "get-my-agent") || !strings.Contains(last, "credits") {
		t.Fatalf("the last result is %q", last)
	}
	fulfilled := false
	for _, r := range results {
		fulfilled = fulfilled || (strings.HasPrefix(r, "fulfill-contract ") && strings.Contains(r, "FULFILLED") || strings.Contains(r, `"fulfilled":true`))
	}
	if !fulfilled {
		t.Errorf("the contract was not fulfilled: %s", strings.Join(results, "\n"))
	}
	for i, raw := range model.RawRequests() {
		if bytes.Contains(raw, []byte(token)) {
			t.Fatalf("model request %d carries the game's token", i)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// resultsAndProblems reads a run's events: each result as "TOOL OUTPUT" (or "TOOL ERROR
// MESSAGE"), each validation problem as "TOOL: PROBLEM"; an error event fails the test.
func resultsAndProblems(t *testing.T, evs []agent.Event) (results, problems []string) {
	t.Helper()
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventResult:
			if ev.Result.Err != nil {
				results = append(results, ev.Call.Tool+" ERROR "+ev.Result.Err.Message)
			} else {
				results = append(results, ev.Call.Tool+" "+ev.Result.Output)
			}
		case agent.EventProposed:
			for _, p := range ev.Call.Problems {
				problems = append(problems, ev.Call.Tool+": "+p.String())
			}
		case agent.EventError:
			t.Errorf("error event: %s", ev.Text)
		}
	}
	return results, problems
}
