package notes

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/notes/record"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// exampleSession builds a small session with every kind of record the
// agent writes, on a fake clock.
func exampleSession(t *testing.T) *Session {
	t.Helper()
	b := openBook(t, tempPath(t))
	fakeClock(b)
	s, err := b.Create("demo", "spacetraders", "gpt-x")
	if err != nil {
		t.Fatal(err)
	}
	s.UpdateSection("Situation", "Docked at **X1-DF55-A2**.\n\n## not a section\n", 1)
	s.SetPlan([]PlanStep{{Text: "accept the contract", Status: StatusDone}, {Text: "mine iron", Status: StatusDoing}, {Text: "gamble"}}, 1)
	s.UpdateStep(3, StatusDropped, "", 2)
	s.SetRule("dock", true)
	if _, err := s.Commit(Batch{PromptTokens: 1234, CachedTokens: 1024, CompletionTokens: 56, Cost: 0.0123}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []Record{
		{Type: "session_started", Data: json.RawMessage(`{"game":"spacetraders"}`)},
		{Type: "step", Step: 1},
		{Type: "text", Step: 1, Data: json.RawMessage(`{"text":"The contract pays 40k.\nLet me navigate."}`)},
		{Type: record.TypeProposed, Step: 1, CallID: "c1", Data: json.RawMessage(`{"call":{"id":"c1","tool":"navigate","args":{"ship":"X-1","waypoint":"X1-DF55-B7"}}}`)},
		{Type: record.TypeDecision, Step: 1, CallID: "c1", Data: json.RawMessage(`{"decision":"edit","reason":"cruise is cheaper","args":{"ship":"X-1","waypoint":"X1-DF55-B7","mode":"CRUISE"}}`)},
		{Type: record.TypeResult, Step: 1, CallID: "c1", Data: json.RawMessage(`{"output":{"arrival":"2026-11-22T15:10:00Z"},"wait_until":"2026-11-22T15:10:00Z"}`)},
		{Type: "advice", Step: 2, Data: json.RawMessage(`{"advice":"stop mining, the contract pays more"}`)},
		{Type: record.TypeProposed, Step: 2, CallID: "c2", Data: json.RawMessage(`{"call":{"id":"c2","tool":"sell","args":{"symbol":"IRON_ORE","units":10}}}`)},
		{Type: record.TypeDecision, Step: 2, CallID: "c2", Data: json.RawMessage(`{"decision":"veto","reason":"keep the ore for the contract"}`)},
		{Type: record.TypeProposed, Step: 3, CallID: "c3", Data: json.RawMessage(`{"call":{"id":"c3","tool":"dock","args":{}}}`)},
		{Type: record.TypeDecision, Step: 3, CallID: "c3", Data: json.RawMessage(`{"decision":"auto"}`)},
		{Type: record.TypeResult, Step: 3, CallID: "c3", Data: json.RawMessage("{\"error\":{\"code\":4214,\"message\":\"Ship is currently in-transit\"},\"output\":\"line one\\n```code```\"}")},
		{Type: "error", Step: 3, Data: json.RawMessage(`{"error":"model timed out"}`)},
		{Type: "weird", Step: 3, Data: json.RawMessage(`[1,2,3]`)},
		// Records shaped like the agent's events, which repeat the header fields.
		{Type: "observation", Step: 4, Data: json.RawMessage(`{"seq":15,"type":"observation","step":4,"observation":{"summary":"Credits: 150000\nShip X-1 at X1-DF55-B7","metrics":[{"name":"credits","value":150000}]}}`)},
		{Type: record.TypeProposed, Step: 4, CallID: "c4", Data: json.RawMessage(`{"seq":16,"type":"tool_proposed","step":4,"call":{"id":"c4","tool":"navigate","args":{"ship":"X-1","mode":"WARP"},"kind":"act","problems":[{"path":"arguments.mode","expected":"one of CRUISE, BURN, DRIFT, STEALTH","got":"\"WARP\"","hint":"did you mean BURN?"}],"simulation":{"summary":"uses 38 fuel","fails":true},"needs_ok":false}}`)},
		{Type: record.TypeDecision, Step: 4, CallID: "c5", Data: json.RawMessage(`{"call_id":"c5","decision":"approve","by":"person"}`)},
		{Type: record.TypeResult, Step: 4, CallID: "c5", Data: json.RawMessage(`{"seq":18,"type":"tool_result","step":4,"call":{"id":"c5","tool":"orbit","args":{"ship":"X-1"},"kind":"act","needs_ok":true},"result":{"output":"in orbit","wait":{"until":"2026-11-22T16:00:00Z","reason":"cooldown"}}}`)},
		{Type: record.TypeResult, Step: 4, CallID: "c6", Data: json.RawMessage(`{"result":{"unknown":true}}`)},
		{Type: "notes_changed", Step: 4, Data: json.RawMessage(`{"notes":{"text":"## Next\n\nmine","version":2,"plan":[{"id":1,"text":"mine iron","status":"doing"}]}}`)},
		// A call approved while the orbit before it had not run: its dry run is taken
		// again as the world changes (tool_updated), and the export shows the last one
		// before it ran, in its line, not one block per update.
		{Type: record.TypeProposed, Step: 5, CallID: "c7", Data: json.RawMessage(`{"call":{"id":"c7","tool":"navigate","args":{"ship":"X-1","waypoint":"X1-DF55-B7"},"kind":"act","simulation":{"summary":"would fail (4236): X-1 must be in orbit first","fails":true},"needs_ok":true}}`)},
		{Type: record.TypeDecision, Step: 5, CallID: "c7", Data: json.RawMessage(`{"call_id":"c7","decision":"approve","by":"person"}`)},
		{Type: "tool_updated", Step: 5, CallID: "c7", Data: json.RawMessage(`{"type":"tool_updated","call":{"id":"c7","tool":"navigate","args":{"ship":"X-1","waypoint":"X1-DF55-B7"},"kind":"act","simulation":{"summary":"would fail (4236): X-1 must be in orbit first","fails":true},"needs_ok":true}}`)},
		{Type: "tool_updated", Step: 5, CallID: "c7", Data: json.RawMessage(`{"type":"tool_updated","call":{"id":"c7","tool":"navigate","args":{"ship":"X-1","waypoint":"X1-DF55-B7"},"kind":"act","simulation":{"summary":"distance 14 in CRUISE: uses 14 fuel"},"needs_ok":true}}`)},
		{Type: record.TypeToolStart, Step: 5, CallID: "c7", Data: json.RawMessage(`{"call":{"id":"c7","tool":"navigate"}}`)},
		{Type: record.TypeResult, Step: 5, CallID: "c7", Data: json.RawMessage(`{"result":{"output":"X-1 is in transit"}}`)},
		// Approved while the orbit ahead of it had not run: never dry-run again.
		{Type: record.TypeProposed, Step: 5, CallID: "c8", Data: json.RawMessage(`{"call":{"id":"c8","tool":"navigate","args":{"ship":"X-2"},"kind":"act","simulation":{"summary":"would fail (4236): X-2 must be in orbit first","warn":"as things stand now this would fail; 1 earlier call(s) of this step have not run yet and may change that (the dry run is repeated after each)"},"needs_ok":true}}`)},
		{Type: record.TypeDecision, Step: 5, CallID: "c8", Data: json.RawMessage(`{"call_id":"c8","decision":"approve","by":"person"}`)},
		{Type: record.TypeResult, Step: 5, CallID: "c8", Data: json.RawMessage(`{"result":{"output":"X-2 is in transit"}}`)},
		{Type: "waiting", Step: 5, Data: json.RawMessage(`{"type":"waiting","wait":{"until":"2026-11-22T16:00:40Z","reason":"every ship is travelling"},"text":"waiting until 16:00:40, because every ship is travelling"}`)},
		{Type: "waiting", Step: 5, Data: json.RawMessage(`{"type":"waiting","wait":{"until":"0001-01-01T00:00:00Z","reason":"the time came"},"text":"the wait ended: the time came"}`)},
		{Type: "waiting", Step: 5, Data: json.RawMessage(`{"type":"waiting","wait":{"until":"0001-01-01T00:00:00Z","reason":"advice"}}`)},
	} {
		mustAppend(t, s, r)
	}
	return s
}

func TestExportGolden(t *testing.T) {
	t.Parallel()
	s := exampleSession(t)
	var buf bytes.Buffer
	if err := s.Export(&buf); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "export.golden.md")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("export differs from %s (go test -update rewrites it); got:\n%s", golden, got)
	}
}

// The export shows the dry run a call ran on, folds the dry-run updates into the call,
// and writes a wait and its end as one line each, never a zero time (issue 41).
func TestExportFoldsUpdatesAndWaits(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := exampleSession(t).Export(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	step := out[strings.Index(out, "### Step 5"):]
	for _, bad := range []string{"tool_updated", "0001-01-01", "dry run: would fail (4236): X-1 must be in orbit first", "**waiting**"} {
		if strings.Contains(step, bad) {
			t.Errorf("step 5 of the export holds %q:\n%s", bad, step)
		}
	}
	for _, want := range []string{"dry run: distance 14 in CRUISE: uses 14 fuel — **approve** by person → X-1 is in transit",
		"- ~ waiting until 16:00:40, because every ship is travelling\n",
		"dry run before the calls ahead of it ran: would fail (4236): X-2 must be in orbit first — **approve** by person → X-2 is in transit", "- ~ the wait ended: the time came\n", "- ~ the wait ended: advice\n"} {
		if !strings.Contains(step, want) {
			t.Errorf("step 5 of the export does not say %q:\n%s", want, step)
		}
	}
}

func TestExportContainsEveryStepAndRecord(t *testing.T) {
	t.Parallel()
	s := exampleSession(t)
	var buf bytes.Buffer
	if err := s.Export(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	want := []string{
		"# Session demo", "| Model | gpt-x |", "| Approval rules | allow dock |", "1234 prompt (1024 cached, 83%), 56 completion",
		"#### Situation", "Docked at **X1-DF55-A2**.", // the notes' headings nest under "## Notes"
		"1. [x] accept the contract _(done)_", "2. [ ] mine iron _(doing)_", "3. [-] gamble _(dropped)_",
		"### Before the first step · #1", "### Step 1 · #2–#6", "### Step 2", "### Step 3",
		"> The contract pays 40k.", "> Let me navigate.",
		"- **navigate** `ship=X-1 waypoint=X1-DF55-B7`", `"waypoint":"X1-DF55-B7"`,
		"**edit**: cruise is cheaper", `ran with ` + "`" + `{"ship":"X-1","waypoint":"X1-DF55-B7","mode":"CRUISE"}`,
		`"arrival":"2026-11-22T15:10:00Z"`, "other: `{\"wait_until\":\"2026-11-22T15:10:00Z\"}`",
		"> Advice: stop mining, the contract pays more",
		"**veto**: keep the ore for the contract",
		"error 4214: Ship is currently in-transit", "````", "Error: model timed out", "[1,2,3]",
		"### Step 4", "Credits: 150000", "invalid `arguments.mode`: expected one of CRUISE, BURN, DRIFT, STEALTH, got \"WARP\" (did you mean BURN?)",
		"dry run: uses 38 fuel (would fail)", "**approve** by person", "→ in orbit", "wait until 2026-11-22 16:00:00: cooldown",
		"- **orbit** (call `c5`)", "**outcome unknown**", "notes v2",
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("export lacks %q", w)
		}
	}
	// Every record is accounted for by the step headings' ranges.
	info, _ := s.Info()
	covered := map[uint64]bool{}
	for _, m := range regexp.MustCompile(`(?m)^### .* · #(\d+)(?:–#(\d+))?$`).FindAllStringSubmatch(out, -1) {
		from, _ := strconv.ParseUint(m[1], 10, 64)
		to := from
		if m[2] != "" {
			to, _ = strconv.ParseUint(m[2], 10, 64)
		}
		for seq := from; seq <= to; seq++ {
			covered[seq] = true
		}
	}
	for seq := uint64(1); seq <= info.Records; seq++ {
		if !covered[seq] {
			t.Errorf("export does not account for record #%d", seq)
		}
	}
}

func TestExportEmptySession(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	var buf bytes.Buffer
	if err := s.Export(&buf); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"starting skeleton", "_No plan._", "_The journal is empty._"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("empty export lacks %q:\n%s", w, buf.String())
		}
	}
}
