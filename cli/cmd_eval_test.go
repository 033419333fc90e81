package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/coplayhq/coplay/eval"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/agent/llmtest"
)

// lookerKey is the scripted endpoint's key in these tests: it must reach the server
// and nothing else.
const lookerKey = "sk-looker-" + "5e3f9a7c1b2d4e6f8a0b"

// lookerCassette plays a little, forever: a look, an invalid call, moves that work and
// one the game refuses, and an end of turn.
func lookerCassette() *llmtest.Cassette {
	ship := json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)
	u := &llmtest.Usage{PromptTokens: 1000, CompletionTokens: 50, CachedTokens: 800}
	return &llmtest.Cassette{Name: "looker", Model: "looker-model", Repeat: true, Steps: []llmtest.Step{
		{Text: "Looking around.", Calls: []llmtest.Call{{Tool: "observe_game", Args: json.RawMessage(`{}`)}}, Usage: u},
		{Text: "Off we go.", Calls: []llmtest.Call{{Tool: "navigate_ship", Args: ship}}, Usage: u}, // invalid: no waypoint
		{Calls: []llmtest.Call{{Tool: "orbit_ship", Args: ship}}, Usage: u},
		{Calls: []llmtest.Call{{Tool: "dock_ship", Args: ship}}, Usage: u},
		{Calls: []llmtest.Call{{Tool: "fulfill_contract", Args: json.RawMessage(`{"contractId":"NO-SUCH-CONTRACT"}`)}}, Usage: u}, // refused by the game
		{Text: "Nothing more to do for now.", Usage: u},
	}}
}

// keyProxy stands in front of a scripted server on loopback and records the
// Authorization headers it sees, so a test can check the key was sent.
type keyProxy struct {
	URL  string
	mu   sync.Mutex
	auth map[string]int
	srv  *http.Server
}

func newKeyProxy(t *testing.T, target string) *keyProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &keyProxy{URL: "http://" + ln.Addr().String() + "/v1", auth: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.auth[r.Header.Get("Authorization")]++
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	})}
	go p.srv.Serve(ln)
	t.Cleanup(func() { p.srv.Close() })
	return p
}

// evalConfig writes a config file with the looker profiles pointed at base.
func evalConfig(t *testing.T, base string) string {
	t.Helper()
	return xdgConfig(t, `[prices.looker-model]
prompt = 0.15
completion = 0.60
cached_prompt = 0.075

[profiles."looker/fast"]
default = true
brain = "model"
model = "looker-model"
base_url = "`+base+`"
api_key_env = "LOOKER_KEY"
temperature = 0.3
max_tokens = 256
max_iterations = 50
prompt = "Prefer contracts."

[profiles."looker/noprice"]
model = "unpriced-model"
base_url = "`+base+`"
api_key_env = "LOOKER_KEY"
`)
}

// xdgConfig writes doc as the config file of a fresh XDG_CONFIG_HOME and returns it.
func xdgConfig(t *testing.T, doc string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "coplay"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coplay", "config.toml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// episodeFields are the fields every episode of `coplay eval --json` has.
var episodeFields = []string{"profile", "version", "seed", "steps", "credits_start", "credits_end",
	"contracts_fulfilled", "invalid_calls", "failed_calls", "game_requests", "prompt_tokens",
	"cached_tokens", "completion_tokens", "cost", "cost_upper", "wall_seconds"}

// TestEvalThroughTheBinary is the acceptance check: the autopilot and a profile
// on a scripted OpenAI-compatible server (base_url, api_key_env), two seeds, 150 steps,
// JSON out; the autopilot gains credits on both seeds and the key never shows.
func TestEvalThroughTheBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays 4 episodes of 150 steps through the binary")
	}
	bin := coplayBinary(t)
	srv := llmtest.NewServer(lookerCassette())
	defer srv.Close()
	proxy := newKeyProxy(t, srv.URL())
	xdg := evalConfig(t, proxy.URL)

	cmd := exec.Command(bin, "eval", "--profile", "autopilot", "--profile", "looker/fast", "--seeds", "1,2", "--steps", "150", "--json")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+xdg, "LOOKER_KEY="+lookerKey, "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("coplay eval: %v\nstderr:\n%s", err, stderr.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), lookerKey) {
		t.Fatal("the key appears in the output")
	}
	var rep struct {
		Episodes []map[string]any `json:"episodes"`
		Profiles []map[string]any `json:"profiles"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout.String())
	}
	if len(rep.Episodes) != 4 || len(rep.Profiles) != 2 {
		t.Fatalf("%d episodes and %d profiles, want 4 and 2:\n%s", len(rep.Episodes), len(rep.Profiles), stdout.String())
	}
	for _, ep := range rep.Episodes {
		for _, f := range episodeFields {
			if _, ok := ep[f]; !ok {
				t.Errorf("episode %v has no %q", ep["profile"], f)
			}
		}
		if ep["steps"] != float64(150) || ep["error"] != nil {
			t.Errorf("episode %v seed %v: %v steps, error %v", ep["profile"], ep["seed"], ep["steps"], ep["error"])
		}
		if ep["game_requests"].(float64) <= 0 || ep["wall_seconds"].(float64) <= 0 {
			t.Errorf("episode %v seed %v: requests %v, wall %v", ep["profile"], ep["seed"], ep["game_requests"], ep["wall_seconds"])
		}
		switch ep["profile"] {
		case "autopilot/default":
			if ep["credits_end"].(float64) <= ep["credits_start"].(float64) {
				t.Errorf("the autopilot did not gain credits on seed %v: %v → %v", ep["seed"], ep["credits_start"], ep["credits_end"])
			}
			if ep["cost"] != float64(0) || ep["prompt_tokens"] != float64(0) {
				t.Errorf("the autopilot cost %v with %v prompt tokens", ep["cost"], ep["prompt_tokens"])
			}
		case "looker/fast":
			// 1000 (800 of them cached) + 50 tokens for each of the 150 steps whose model
			// answered, at 0.15, 0.075 (cached) and 0.60 dollars per million: 0.00012 a
			// step. A model call can fail here (two episodes stream through one proxy on
			// a loaded machine, and a cut stream is a failed call): it is counted, and it
			// used no tokens.
			failures, _ := ep["model_failures"].(float64)
			answered := 150 - failures
			if failures > 3 || ep["prompt_tokens"] != 1000*answered || ep["completion_tokens"] != 50*answered || ep["cached_tokens"] != 800*answered {
				t.Errorf("looker tokens %v (%v cached) + %v with %v model failure(s), want %v (%v) + %v", ep["prompt_tokens"], ep["cached_tokens"],
					ep["completion_tokens"], failures, 1000*answered, 800*answered, 50*answered)
			}
			if c, ok := ep["cost"].(float64); !ok || c < answered*0.00012-0.00001 || c > answered*0.00012+0.00001 || ep["cost_upper"] != false {
				t.Errorf("looker cost %v (upper bound %v), want exactly %v", ep["cost"], ep["cost_upper"], answered*0.00012)
			}
			if ep["invalid_calls"].(float64) < 20 || ep["failed_calls"].(float64) < 20 {
				t.Errorf("looker invalid %v, failed %v: the cassette makes one of each every 6 steps", ep["invalid_calls"], ep["failed_calls"])
			}
		default:
			t.Errorf("unexpected profile %v", ep["profile"])
		}
	}
	if rep.Profiles[0]["aggregate"] != "mean" || rep.Profiles[0]["episodes"] != float64(2) {
		t.Errorf("profile summary: %v", rep.Profiles[0])
	}

	// The key went to the model's server, and the profile's knobs reached the wire.
	proxy.mu.Lock()
	sent := proxy.auth["Bearer "+lookerKey]
	proxy.mu.Unlock()
	if sent < 300 {
		t.Errorf("the key was sent %d times, want once per model call (300)", sent)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the scripted server saw no requests")
	}
	last := reqs[len(reqs)-1]
	if last.MaxTokens != 256 || last.Temperature < 0.29 || last.Temperature > 0.31 {
		t.Errorf("request max_tokens %d temperature %v, want 256 and 0.3", last.MaxTokens, last.Temperature)
	}
	if !strings.Contains(last.Messages[0].Content, "Prefer contracts.") {
		t.Error("the profile's prompt is not in the system prompt")
	}
}

// TestEvalCostUnknownAndOut checks that a model without a price is "cost unknown"
// (null in JSON, never $0) and that --out writes the JSON, the report and a PNG.
func TestEvalCostUnknownAndOut(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(lookerCassette())
	defer srv.Close()
	xdg := evalConfig(t, srv.URL())
	env := []string{"XDG_CONFIG_HOME=" + xdg, "LOOKER_KEY=" + lookerKey}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := runEnv(t, env, []string{"eval", "--profile", "looker/noprice", "--seeds", "3", "--steps", "8", "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "cost unknown") || strings.Contains(stdout.String(), "$0.0000") {
		t.Errorf("table:\n%s", stdout.String())
	}
	var rep eval.Report
	data, err := os.ReadFile(filepath.Join(out, "eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"cost": null`)) {
		t.Errorf("eval.json has no null cost:\n%s", data)
	}
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Episodes) != 1 || rep.Episodes[0].Steps != 8 {
		t.Fatalf("eval.json: %v %+v", err, rep)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !bytes.Contains(md, []byte("cost unknown")) || !bytes.Contains(md, []byte("(credits.png)")) {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	f, err := os.Open(filepath.Join(out, "credits.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() != eval.ChartWidth {
		t.Errorf("credits.png: %v", err)
	}
	for _, b := range [][]byte{data, md, stdout.Bytes(), stderr.Bytes()} {
		if bytes.Contains(b, []byte(lookerKey)) {
			t.Error("the key appears in the output")
		}
	}
}

// TestEvalCachedTokens plays a profile against the scripted server's prompt cache:
// every episode and profile mean carries the cached tokens the server reported, and a
// model without a cached_prompt price has its cost marked as an upper bound in the
// JSON, the table and the report.
func TestEvalCachedTokens(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(&llmtest.Cassette{Model: "cache-model", Repeat: true, Steps: []llmtest.Step{
		{Text: "Looking.", Calls: []llmtest.Call{{Tool: "observe_game", Args: json.RawMessage(`{}`)}}},
		// A note between the looks: six identical looks in a row would be a loop.
		{Text: "Noting.", Calls: []llmtest.Call{{Tool: "update_notes", Args: json.RawMessage(`{"section":"Situation","text":"Looked."}`)}}},
	}})
	defer srv.Close()
	env := []string{"XDG_CONFIG_HOME=" + xdgConfig(t, `[prices.cache-model]
prompt = 1
completion = 2

[profiles."cacher/x"]
model = "cache-model"
base_url = "`+srv.URL()+`"
api_key_env = "LOOKER_KEY"
max_iterations = 50
`), "LOOKER_KEY=" + lookerKey}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := runEnv(t, env, []string{"eval", "--profile", "cacher", "--seeds", "4", "--steps", "6", "--json", "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep eval.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Episodes) != 1 || len(rep.Profiles) != 1 {
		t.Fatalf("eval --json: %v\n%s", err, stdout.String())
	}
	ep, pr := rep.Episodes[0], rep.Profiles[0]
	if ep.Error != "" || ep.ModelFailures != 0 {
		t.Fatalf("episode ended early (%q) or a model call failed (%d)", ep.Error, ep.ModelFailures)
	}

	// What the server saw: each request's prompt tokens, and the tokens of its longest
	// prefix shared with an earlier one, in whole blocks of 128 from 1,024 on.
	texts := srv.PromptTexts()
	var prompt, cached int64
	for i, text := range texts {
		prompt += int64(len(text)+3) / 4
		shared := 0
		for _, earlier := range texts[max(0, i-llmtest.CacheKept):i] {
			shared = max(shared, llmtest.SharedPrefix(earlier, text))
		}
		if tok := shared / 4; tok >= 1024 {
			cached += int64(tok / 128 * 128)
		}
	}
	if len(texts) < 6 || cached == 0 {
		t.Fatalf("%d requests with %d cached tokens: want one a step, the tools and system prompt shared", len(texts), cached)
	}
	if ep.PromptTokens != prompt || ep.CachedTokens != cached {
		t.Errorf("episode: %d prompt tokens (%d cached), want %d (%d) as the server reported", ep.PromptTokens, ep.CachedTokens, prompt, cached)
	}
	want := (float64(prompt) + 2*float64(ep.CompletionTokens)) / 1e6
	if ep.Cost == nil || *ep.Cost < want-1e-9 || *ep.Cost > want+1e-9 || !ep.CostUpper {
		t.Errorf("episode cost %v (upper %v), want %g as an upper bound: cached tokens at the prompt price", ep.Cost, ep.CostUpper, want)
	}
	if pr.CachedTokens != float64(cached) || pr.PromptTokens != float64(prompt) || !pr.CostUpper || pr.Cost == nil || *pr.Cost != *ep.Cost {
		t.Errorf("profile mean: %+v", pr)
	}
	if !bytes.Contains(stdout.Bytes(), []byte(`"cost_upper": true`)) || !bytes.Contains(stdout.Bytes(), []byte(`"cached_tokens": `)) {
		t.Errorf("the JSON does not carry cached_tokens and cost_upper:\n%s", stdout.String())
	}

	share := fmt.Sprintf("%d (%.0f%%)", cached, 100*float64(cached)/float64(prompt))
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| cached tokens |", share, fmt.Sprintf("≤ $%.4f", *ep.Cost), "at most that"} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("report.md has no %q:\n%s", w, md)
		}
	}
	var table bytes.Buffer
	eval.WriteTables(&table, rep)
	for _, w := range []string{"cached", share, fmt.Sprintf("≤ $%.4f", *ep.Cost), "the real bill is at most this"} {
		if !strings.Contains(table.String(), w) {
			t.Errorf("the table has no %q:\n%s", w, table.String())
		}
	}
}

func TestEvalRefusesBadInput(t *testing.T) {
	t.Parallel()
	env := []string{"XDG_CONFIG_HOME=" + evalConfig(t, "http://127.0.0.1:1/v1"), "LOOKER_KEY="}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval"}, "name at least one --profile"},
		{[]string{"eval", "--profile", "autopilot", "--sped", "3"}, "unknown flag --sped: did you mean --speed?"},
		{[]string{"eval", "--profile", "autopilot", "extra"}, `unexpected arguments ["extra"]`},
		{[]string{"eval", "--game", "arenna", "--profile", "autopilot"}, "not --game \"arenna\" (did you mean arena?)"},
		{[]string{"eval", "--profile", "autopilot", "--seeds", "1,x"}, `--seeds: "x" is not a seed`},
		{[]string{"eval", "--profile", "autopilot", "--seeds", "5-2"}, `"5-2" is not a range`},
		{[]string{"eval", "--profile", "autopilot", "--steps", "0"}, "--steps must be at least 1"},
		{[]string{"eval", "--profile", "lokoer/fast"}, `no profile "lokoer/fast" (did you mean looker/fast?)`},
		{[]string{"eval", "--profile", "looker/fast"}, "names the environment variable LOOKER_KEY for the model's key, and it is not set"},
		{[]string{"eval", "--profile", "autopilot@00000000"}, "its definition has changed"},
	} {
		var stdout, stderr bytes.Buffer
		code := runEnv(t, env, c.args, &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %s; want %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// An eval of an endpoint that is down says so: the table and stderr (with --json) name
// how many steps' model calls failed and the first failure's words, and the JSON
// carries them; without it the profile reads as one that played and did nothing.
func TestEvalSaysWhenTheModelIsUnreachable(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close() // nothing listens there now: every model call is refused
	env := []string{"XDG_CONFIG_HOME=" + xdgConfig(t, `[profiles."gone/x"]
model = "gone-model"
base_url = "`+url+`/v1"
api_key_env = "LOOKER_KEY"
`), "LOOKER_KEY=" + lookerKey}
	var stdout, stderr bytes.Buffer
	if code := runEnv(t, env, []string{"eval", "--profile", "gone", "--seeds", "1", "--steps", "3"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "gone/x seed 1: the model call failed at 3 of 3 steps; the first: the model (gone-model) failed") ||
		!strings.Contains(stdout.String(), "cannot reach the server") {
		t.Errorf("the table does not say the model was unreachable:\n%s", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := runEnv(t, env, []string{"eval", "--profile", "gone", "--seeds", "1", "--steps", "3", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep eval.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Episodes) != 1 {
		t.Fatalf("eval --json: %v\n%s", err, stdout.String())
	}
	if ep := rep.Episodes[0]; ep.ModelFailures != 3 || !strings.Contains(ep.ModelError, "cannot reach the server") {
		t.Errorf("JSON: %d model failures (%q), want 3 and why", ep.ModelFailures, ep.ModelError)
	}
	if !strings.Contains(stderr.String(), "coplay eval: gone/x seed 1: the model call failed at 3 of 3 steps") {
		t.Errorf("stderr does not say the model was unreachable:\n%s", stderr.String())
	}
}
