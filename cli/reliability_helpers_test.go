package cli

// Shared machinery of the reliability suite (docs/RELIABILITY.md): the offline universe
// on loopback behind a fault-injecting and counting handler, scripted models, and the
// journal invariants every fault test checks. The binary is built and run by
// binary_helpers_test.go.

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/game/universe"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// relShip is the command ship of the agent every test registers.
const relShip = "COPLAY-1"

// faultKind is what the game-side fault handler does to one request.
type faultKind string

const (
	faultNone       faultKind = "pass"
	faultRateLimit  faultKind = "429"        // 429 with Retry-After, not forwarded
	faultServer     faultKind = "503"        // 5xx, not forwarded
	faultDropBefore faultKind = "drop"       // connection closed before the universe sees it
	faultDropAfter  faultKind = "drop-after" // the universe acts, then the response is lost
	faultSlow       faultKind = "slow"       // forwarded after a delay
)

// faultRates are the chances of each fault, per request, for requests that change the
// game (POST, PATCH) and for reads. actCycle, if set, replaces the chances for requests
// that change the game by a fixed cycle, so that every fault happens a known number of
// times however the run is timed.
type faultRates struct {
	act, read map[faultKind]float64
	actCycle  []faultKind
}

// gameServer is the offline universe on a loopback httptest server, behind a handler
// that injects faults and counts, per request key (see requestKey), the requests that
// arrived and the ones the universe actually served.
type gameServer struct {
	U     *universe.Universe
	URL   string // API root, .../v2
	Token string

	srv   *httptest.Server
	mu    sync.Mutex
	rng   *rand.Rand
	rates faultRates
	// rewrite, if set, changes the body of successful GET responses (injection tests).
	rewrite func(path string, body []byte) []byte

	acts      int            // POST/PATCH requests so far
	arrived   map[string]int // POST/PATCH requests that reached the handler and were not refused with 429
	forwarded map[string]int // POST/PATCH requests the universe served
	injected  map[faultKind]int
	bodies    []string // every POST/PATCH key, in order
}

// newGameServer starts a universe (no rate limit of its own: the 429s are injected) with
// one registered agent.
func newGameServer(t *testing.T, seed uint64, rates faultRates) *gameServer {
	t.Helper()
	u := universe.New(universe.Config{Seed: int64(seed)})
	token, err := u.Register("COPLAY", "COSMIC")
	if err != nil {
		t.Fatal(err)
	}
	g := &gameServer{
		U: u, Token: token, rates: rates,
		rng:       rand.New(rand.NewPCG(seed, 7)),
		arrived:   map[string]int{},
		forwarded: map[string]int{},
		injected:  map[faultKind]int{},
	}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	g.URL = g.srv.URL + "/v2"
	return g
}

// requestKey names a request that changes the game: method, path and compact body.
func requestKey(method, path string, body []byte) string {
	k := method + " " + path
	var buf bytes.Buffer
	if len(bytes.TrimSpace(body)) > 0 {
		if json.Compact(&buf, body) == nil {
			k += " " + buf.String()
		} else {
			k += " " + string(body)
		}
	}
	return k
}

func (g *gameServer) pick(act bool) faultKind {
	if act {
		g.acts++
		if c := g.rates.actCycle; len(c) > 0 {
			return c[(g.acts-1)%len(c)]
		}
	}
	rates := g.rates.read
	if act {
		rates = g.rates.act
	}
	x := g.rng.Float64()
	for _, k := range []faultKind{faultRateLimit, faultServer, faultDropBefore, faultDropAfter, faultSlow} {
		if x < rates[k] {
			return k
		}
		x -= rates[k]
	}
	return faultNone
}

func (g *gameServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	act := r.Method == http.MethodPost || r.Method == http.MethodPatch
	key := requestKey(r.Method, r.URL.Path, body)

	g.mu.Lock()
	kind := g.pick(act)
	g.injected[kind]++
	if act {
		// A request refused with 429 never reaches the game's rules: resending it after
		// the wait (game/polite does) is not running it twice.
		if kind != faultRateLimit {
			g.arrived[key]++
		}
		g.bodies = append(g.bodies, key)
	}
	g.mu.Unlock()

	switch kind {
	case faultRateLimit:
		w.Header().Set("Retry-After", "0.2")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"You have reached your API limit (injected).","code":429,"data":{"type":"IP_ADDRESS","retryAfter":0.2,"limitBurst":30,"limitPerSecond":2,"remaining":0,"reset":"2030-01-01T00:00:00Z"}}}`)
		return
	case faultServer:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "upstream connect error (injected)")
		return
	case faultDropBefore:
		hangUp(w)
		return
	case faultSlow:
		time.Sleep(time.Duration(20+g.jitter(80)) * time.Millisecond)
	}
	rec := httptest.NewRecorder()
	g.U.Handler().ServeHTTP(rec, r)
	if act {
		g.mu.Lock()
		g.forwarded[key]++
		g.mu.Unlock()
	}
	if kind == faultDropAfter {
		hangUp(w)
		return
	}
	out := rec.Body.Bytes()
	if g.rewrite != nil && r.Method == http.MethodGet && rec.Code == http.StatusOK {
		out = g.rewrite(r.URL.Path, out)
	}
	for k, v := range rec.Header() {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(rec.Code)
	w.Write(out)
}

func (g *gameServer) jitter(n int) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.rng.IntN(n)
}

// hangUp closes the connection without an answer, as a dropped connection does.
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("reliability: response writer cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) // a reset, not a polite close
	}
	conn.Close()
}

// counts returns copies of the per-key counters and the faults injected.
func (g *gameServer) counts() (arrived, forwarded map[string]int, injected map[faultKind]int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	cp := func(m map[string]int) map[string]int {
		c := make(map[string]int, len(m))
		for k, v := range m {
			c[k] = v
		}
		return c
	}
	injected = map[faultKind]int{}
	for k, v := range g.injected {
		injected[k] = v
	}
	return cp(g.arrived), cp(g.forwarded), injected
}

// writeCassette writes a cassette to dir and returns its path.
func writeCassette(t *testing.T, dir string, c llmtest.Cassette) string {
	t.Helper()
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := llmtest.Parse(data); err != nil {
		t.Fatalf("cassette %s: %v", c.Name, err)
	}
	path := filepath.Join(dir, c.Name+".cassette.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// call builds a scripted tool call.
func scall(tool, args string) llmtest.Call {
	return llmtest.Call{Tool: tool, Args: json.RawMessage(args)}
}

// rawCall builds a scripted tool call with arguments sent verbatim.
func sraw(tool, raw string) llmtest.Call {
	return llmtest.Call{Tool: tool, RawArgs: &raw}
}

// jcall is a call as journaled in tool_proposed, tool_started and tool_result records.
type jcall struct {
	ID       string          `json:"id"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
	Kind     string          `json:"kind"`
	Problems []struct {
		Path string `json:"path"`
	} `json:"problems"`
	NeedsOK bool `json:"needs_ok"`
}

// jresult is a call's result as journaled.
type jresult struct {
	Output string `json:"output"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Wait    json.RawMessage `json:"wait"`
	Unknown bool            `json:"unknown"`
}

// jevent is the part of a journaled event the invariants read.
type jevent struct {
	Type   string       `json:"type"`
	Text   string       `json:"text"`
	Call   *jcall       `json:"call"`
	Result *jresult     `json:"result"`
	Usage  *agent.Usage `json:"usage"`
	State  string       `json:"state"`
}

// jdecision is a decision record's data.
type jdecision struct {
	CallID   string          `json:"call_id"`
	Decision string          `json:"decision"`
	By       string          `json:"by"`
	Args     json.RawMessage `json:"args"`
}

// readJournal opens the notebook at path (so it also checks that the session opens) and
// returns the newest session's name and journal.
func readJournal(t *testing.T, path string) (string, []notes.Record) {
	t.Helper()
	book, err := notes.Open(path, nil)
	if err != nil {
		t.Fatalf("the notebook does not open: %v", err)
	}
	defer book.Close()
	s, err := book.Session("")
	if err != nil {
		t.Fatalf("no session to open in %s: %v", path, err)
	}
	return s.Name(), sessionRecords(t, s)
}

func sessionRecords(t *testing.T, s *notes.Session) []notes.Record {
	t.Helper()
	var recs []notes.Record
	if err := s.Records(1, func(r notes.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatalf("reading the journal of %s: %v", s.Name(), err)
	}
	return recs
}

// journalFacts is what the invariants found in a journal.
type journalFacts struct {
	started   map[string]int // Act requests the runner sent (or was about to send), by requestKey
	applied   map[string]int // Act calls whose result says the game did it, by requestKey
	unclosed  []string       // call ids started with no result or outcome_unknown
	invalid   int            // calls refused by validation
	decisions map[string]int // by "decision/by"
	steps     int
}

// checkJournal checks the invariants that hold for any journal, however the runs that
// wrote it ended:
//
//   - seqs run 1..N without a gap;
//   - a call has at most one proposal, one decision, one start and one end;
//   - nothing starts without a decision that lets it run, recorded before the start;
//   - a call that failed validation gets no decision and never starts;
//   - an automatic decision ("by policy") is for a Read or Note tool, or an Act tool
//     under --approve all (allActs); "by rule" only for a tool the person allowed.
func checkJournal(t testing.TB, recs []notes.Record, allActs bool, allowed map[string]bool) journalFacts {
	t.Helper()
	f := journalFacts{started: map[string]int{}, applied: map[string]int{}, decisions: map[string]int{}}
	type callState struct {
		proposed, decided, started, ended int
		call                              *jcall
		dec                               jdecision
		invalid                           bool
	}
	calls := map[string]*callState{}
	get := func(id string) *callState {
		if calls[id] == nil {
			calls[id] = &callState{}
		}
		return calls[id]
	}
	for i, r := range recs {
		if r.Seq != uint64(i+1) {
			t.Fatalf("journal: record %d has seq %d: a gap or a rewrite", i+1, r.Seq)
		}
		if r.Step > f.steps {
			f.steps = r.Step
		}
		switch r.Type {
		case record.TypeProposed, "tool_started", record.TypeResult, record.TypeOutcomeUnknown:
		case record.TypeDecision:
			var d jdecision
			if err := json.Unmarshal(r.Data, &d); err != nil {
				t.Fatalf("journal %d: decision data %s: %v", r.Seq, r.Data, err)
			}
			c := get(r.CallID)
			c.decided++
			c.dec = d
			f.decisions[d.Decision+"/"+d.By]++
			if c.proposed == 0 {
				t.Errorf("journal %d: decision for call %s that was never proposed", r.Seq, r.CallID)
			}
			if c.invalid {
				t.Errorf("journal %d: call %s failed validation but was decided (%s)", r.Seq, r.CallID, d.Decision)
			}
			if c.call != nil && c.call.Kind == "act" {
				switch d.By {
				case "policy":
					if !allActs {
						t.Errorf("journal %d: act call %s (%s) approved by policy without --approve all", r.Seq, r.CallID, c.call.Tool)
					}
				case "rule":
					if !allowed[c.call.Tool] {
						t.Errorf("journal %d: act call %s (%s) approved by a rule nobody set", r.Seq, r.CallID, c.call.Tool)
					}
				case "person":
				default:
					t.Errorf("journal %d: act call %s decided by %q", r.Seq, r.CallID, d.By)
				}
			}
			continue
		default:
			continue
		}
		var ev jevent
		if len(r.Data) > 0 {
			if err := json.Unmarshal(r.Data, &ev); err != nil {
				t.Fatalf("journal %d: %s record: %v: %s", r.Seq, r.Type, err, r.Data)
			}
		}
		c := get(r.CallID)
		if ev.Call == nil && r.Type != record.TypeProposed && c.call != nil {
			// The compact journal names the call by id only: it is the proposal's, with
			// the arguments an edit gave it.
			call := *c.call
			if c.dec.Decision == "edit" && len(c.dec.Args) > 0 {
				call.Args = c.dec.Args
			}
			ev.Call = &call
		}
		if r.Type == record.TypeOutcomeUnknown && ev.Result == nil {
			ev.Result = &jresult{Unknown: true}
		}
		if ev.Call == nil {
			t.Fatalf("journal %d: %s record for call %s, which was never proposed: %s", r.Seq, r.Type, r.CallID, r.Data)
		}
		switch r.Type {
		case record.TypeProposed:
			c.proposed++
			c.call = ev.Call
			c.invalid = len(ev.Call.Problems) > 0
			if c.invalid {
				f.invalid++
			}
		case "tool_started":
			c.started++
			if c.decided == 0 || c.dec.Decision == record.Veto {
				t.Errorf("journal %d: call %s (%s) started without a decision that lets it run", r.Seq, r.CallID, ev.Call.Tool)
			}
			if c.invalid {
				t.Errorf("journal %d: call %s (%s) failed validation but started", r.Seq, r.CallID, ev.Call.Tool)
			}
			if k := actKey(ev.Call); k != "" {
				f.started[k]++
			}
		case record.TypeResult, record.TypeOutcomeUnknown:
			c.ended++
			if r.Type == record.TypeResult && c.started > 0 && ev.Result != nil &&
				ev.Result.Error == nil && !ev.Result.Unknown && len(ev.Result.Wait) == 0 {
				if k := actKey(ev.Call); k != "" {
					f.applied[k]++
				}
			}
		}
	}
	ids := make([]string, 0, len(calls))
	for id := range calls {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		c := calls[id]
		if c.proposed > 1 || c.decided > 1 || c.started > 1 || c.ended > 1 {
			t.Errorf("journal: call %s has %d proposals, %d decisions, %d starts, %d ends: a call ran or was decided twice",
				id, c.proposed, c.decided, c.started, c.ended)
		}
		if c.started == 1 && c.ended == 0 {
			f.unclosed = append(f.unclosed, id)
		}
	}
	return f
}

// actKey is the request an Act call of the tools the suite scripts sends to the game;
// "" for other tools.
func actKey(c *jcall) string {
	var a map[string]string
	if json.Unmarshal(c.Args, &a) != nil {
		return ""
	}
	ship := "/v2/my/ships/" + a["shipSymbol"]
	switch c.Tool {
	case "orbit_ship":
		return requestKey(http.MethodPost, ship+"/orbit", nil)
	case "dock_ship":
		return requestKey(http.MethodPost, ship+"/dock", nil)
	case "set_flight_mode":
		b, _ := json.Marshal(map[string]string{"flightMode": a["flightMode"]})
		return requestKey(http.MethodPatch, ship+"/nav", b)
	case "navigate_ship":
		b, _ := json.Marshal(map[string]string{"waypointSymbol": a["waypointSymbol"]})
		return requestKey(http.MethodPost, ship+"/navigate", b)
	}
	return ""
}

// checkGameSide compares what the game received with what the journal says ran:
// every request that changes the game belongs to a started call, no started call sent
// more than one request (maxUnsent: how many starts may have died before sending, one
// per kill), and every call the journal says the game did, the game did.
func checkGameSide(t testing.TB, g *gameServer, f journalFacts, maxUnsent int) {
	t.Helper()
	arrived, forwarded, _ := g.counts()
	keys := map[string]bool{}
	for _, m := range []map[string]int{arrived, f.started, f.applied} {
		for k := range m {
			keys[k] = true
		}
	}
	unsent := 0
	for k := range keys {
		if arrived[k] > f.started[k] {
			t.Errorf("game received %d × %s but the journal started it %d times: a call ran twice, or a call nobody decided reached the game",
				arrived[k], k, f.started[k])
		}
		unsent += f.started[k] - arrived[k]
		if forwarded[k] < f.applied[k] {
			t.Errorf("journal says %s succeeded %d times but the game did it %d times", k, f.applied[k], forwarded[k])
		}
	}
	if unsent > maxUnsent {
		t.Errorf("%d started calls never reached the game (at most %d allowed)", unsent, maxUnsent)
	}
}

// bannedKeys fails when the game received a request containing any of the given
// fragments: values only an invalid call could carry.
func bannedKeys(t *testing.T, g *gameServer, fragments ...string) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range g.bodies {
		for _, f := range fragments {
			if strings.Contains(k, f) {
				t.Errorf("the game received %q, which only an invalid call could send", k)
			}
		}
	}
}
