package notes

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coplayhq/coplay/notes/record"
)

// TestDiffStateRoundTrips patches random edits of a JSON-like state back exactly.
func TestDiffStateRoundTrips(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	sb.WriteString(`{"ships":[`)
	for i := range 2000 {
		fmt.Fprintf(&sb, `{"symbol":"S-%d","fuel":%d,"status":"DOCKED"},`, i, rng.IntN(400))
	}
	sb.WriteString(`{}]}`)
	prev := []byte(sb.String())
	for round := range 50 {
		cur := bytes.Clone(prev)
		for range rng.IntN(8) + 1 {
			i := rng.IntN(len(cur))
			switch rng.IntN(3) {
			case 0:
				cur = append(cur[:i:i], append([]byte(`"new":1,`), cur[i:]...)...)
			case 1:
				cur = append(cur[:i:i], cur[min(len(cur), i+rng.IntN(30)):]...)
			default:
				cur[i] = '7'
			}
		}
		edits, ok := diffState(prev, cur)
		if !ok {
			t.Fatalf("round %d: no diff for a few edits", round)
		}
		got, err := patchState(prev, edits)
		if err != nil || !bytes.Equal(got, cur) {
			t.Fatalf("round %d: patched state differs (err %v)", round, err)
		}
		if len(edits) > 2000 {
			t.Errorf("round %d: %d bytes of edits for a few changes", round, len(edits))
		}
		prev = cur
	}
	if _, err := patchState(prev, []byte{200, 1, 1, 1}); err == nil {
		t.Error("a bad edit was applied")
	}
}

// TestStateAtAndFork saves a state per step, then reads each back and forks at a step:
// the fork has the journal, notes, rules and spend up to that step, and the parent is
// unchanged.
func TestStateAtAndFork(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "coplay.db")
	b, s := createAt(t, path, "p", "universe", "autopilot")
	defer b.Close()
	state := func(step int) []byte {
		return []byte(fmt.Sprintf(`{"credits":%d,"ships":[{"s":"A","fuel":%d},{"s":"B"}],"pad":"%s"}`, 1000+step, 400-step, strings.Repeat("x", 500)))
	}
	stepSeq := map[int]uint64{}
	for step := 1; step <= 40; step++ {
		recs := []Record{{Type: "step", Step: step}, {Type: "observation", Step: step, Data: []byte(`{"observation":{"summary":"s"}}`)}}
		if step == 3 {
			recs = append(recs, Record{Type: "rules_changed", Step: step, Data: []byte(`{"rules":["allow orbit_ship"]}`)})
		}
		if step == 20 {
			recs = append(recs, Record{Type: "rules_changed", Step: step, Data: []byte(`{"rules":["allow dock_ship","allow orbit_ship"]}`)})
		}
		recs = append(recs, Record{Type: "usage", Step: step, Data: []byte(`{"usage":{"prompt_tokens":100,"completion_tokens":10,"cost":0.5}}`)},
			Record{Type: record.TypeProposed, Step: step, CallID: fmt.Sprint("c", step), Data: []byte(`{"call":{"tool":"orbit_ship"}}`)},
			Record{Type: record.TypeDecision, Step: step, CallID: fmt.Sprint("c", step), Data: []byte(`{"decision":"auto"}`)},
			Record{Type: record.TypeToolStart, Step: step, CallID: fmt.Sprint("c", step)},
			Record{Type: record.TypeResult, Step: step, CallID: fmt.Sprint("c", step), Data: []byte(`{"result":{}}`)})
		got, err := s.Commit(Batch{Records: recs, Step: step, State: state(step)})
		if err != nil {
			t.Fatal(err)
		}
		stepSeq[step] = got[0].Seq
		if _, err := s.SetNotes(fmt.Sprintf("# Notes\n\nstep %d\n", step), step); err != nil {
			t.Fatal(err)
		}
		if step == 10 || step == 35 {
			if _, err := s.SetPlan([]PlanStep{{Text: "late"}}, step); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Saves between steps are the tail: the state now, not a step's world.
	if _, err := s.Commit(Batch{Records: []Record{{Type: "text", Step: 40}}, State: []byte("after an act")}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.State(); err != nil || string(got) != "after an act" {
		t.Errorf("State after a save between steps = %q, %v", got, err)
	}
	if err := s.SaveState(state(40)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.State(); err != nil || !bytes.Equal(got, state(40)) {
		t.Errorf("State back at step 40's = %q, %v", got, err)
	}
	for _, step := range []int{1, 2, 17, 39, 40} {
		got, err := s.StateAt(stepSeq[step])
		if err != nil || !bytes.Equal(got, state(step)) {
			t.Fatalf("StateAt(step %d) = %q, %v; want %q", step, got, err, state(step))
		}
	}
	var before bytes.Buffer
	if err := s.Export(&before); err != nil {
		t.Fatal(err)
	}
	child, cut, err := b.Fork(ForkPoint{Session: "p", Step: 30}, "", "gpt")
	if err != nil {
		t.Fatal(err)
	}
	if cut != stepSeq[30] {
		t.Errorf("cut at %d, want the step record %d", cut, stepSeq[30])
	}
	info, err := child.Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.Parent != "p@30" || info.Steps != 29 || info.Records != cut-1 || info.Calls != 29 || info.PromptTokens != 2900 || info.Cost != 14.5 || info.Model != "gpt" {
		t.Errorf("fork info = %+v", info)
	}
	n, err := child.Notes()
	if err != nil || n.Version != 29 || !strings.Contains(n.Text, "step 29") {
		t.Errorf("fork notes = %+v, %v; want version 29", n, err)
	}
	rules, err := child.RuleLines()
	if err != nil || strings.Join(rules, ";") != "allow dock_ship;allow orbit_ship" {
		t.Errorf("fork rules = %q, %v", rules, err)
	}
	got, err := child.StateAt(stepSeq[10])
	if err != nil || !bytes.Equal(got, state(10)) {
		t.Errorf("fork's history at step 10 = %q, %v", got, err)
	}
	rec, err := child.Recover()
	if err != nil || len(rec.Pending)+len(rec.Unknown)+len(rec.NotStarted) != 0 {
		t.Errorf("fork has open calls: %+v, %v", rec, err)
	}
	// The fork's next notes and plan versions follow the copied ones.
	if _, err := child.SetPlan([]PlanStep{{Text: "go on"}}, 30); err != nil {
		t.Fatal(err)
	}
	if _, err := child.SetPlan([]PlanStep{{Text: "go on and on"}}, 30); err != nil {
		t.Fatal(err)
	}
	if n, err := child.SetNotes("# Notes\n\nforked\n", 30); err != nil || n.Version != 30 {
		t.Errorf("the fork's next notes = %+v, %v; want version 30", n, err)
	}
	if plans, err := child.PlanHistory(); err != nil || len(plans) != 3 || plans[2].Steps[0].Text != "go on and on" {
		t.Errorf("the fork's plans = %+v, %v", plans, err)
	}
	// The fork goes on from its own seq.
	more, err := child.Commit(Batch{Records: []Record{{Type: "step", Step: 30}}})
	if err != nil || more[0].Seq != cut {
		t.Errorf("the fork's next record is %v (%v), want seq %d", more, err, cut)
	}
	var after bytes.Buffer
	if err := s.Export(&after); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before.Bytes(), after.Bytes()) {
		t.Error("forking changed the parent's export")
	}
	if _, _, err := b.Fork(ForkPoint{Session: "p", Step: 41}, "", "x"); err == nil || !strings.Contains(err.Error(), "steps 1 to 40") {
		t.Errorf("fork past the end: %v", err)
	}
	for _, bad := range []string{"p", "p@", "p@0", "@3", "p@x"} {
		if _, err := ParseForkPoint(bad); err == nil {
			t.Errorf("ParseForkPoint(%q) accepted", bad)
		}
	}
	if p, err := ParseForkPoint("a@b@12"); err != nil || p.Session != "a@b" || p.Step != 12 {
		t.Errorf("ParseForkPoint(a@b@12) = %+v, %v", p, err)
	}
}

// FuzzStateDiff: a diff of any two states patches back exactly, and patching with any
// bytes returns an error or a state, never a panic.
func FuzzStateDiff(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[1,2,3]}`), []byte(`{"a":2,"b":[1,3],"c":{}}`), []byte{1, 2, 3})
	f.Add([]byte(""), []byte("{}"), []byte{0x80, 0x80})
	f.Fuzz(func(t *testing.T, prev, cur, junk []byte) {
		if edits, ok := diffState(prev, cur); ok {
			got, err := patchState(prev, edits)
			if err != nil || !bytes.Equal(got, cur) {
				t.Fatalf("diff of %q → %q patched to %q, %v", prev, cur, got, err)
			}
		}
		_, _ = patchState(prev, junk)
	})
}

// A long session name (99 bytes, ending in a character of several bytes) forks again
// and again: each generated name is cut on a character boundary after its suffix is
// counted, so it is valid UTF-8, within the limit, and unique.
func TestForkNamesOfALongSession(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		strings.Repeat("a", 95) + "éé",  // 99 bytes: the cut would split é
		strings.Repeat("a", 93) + "日本",  // 99 bytes, 3-byte characters
		strings.Repeat("x", 90) + " 🎮🎮", // 99 bytes: a space and 4-byte characters
		strings.Repeat("n", maxName),    // the longest name there is
	} {
		if len(name) != 99 && len(name) != maxName {
			t.Fatalf("test name is %d bytes", len(name))
		}
		path := filepath.Join(t.TempDir(), "coplay.db")
		b, s := createAt(t, path, name, "universe", "autopilot")
		if _, err := s.Commit(Batch{Records: []Record{{Type: "step", Step: 1}}, Step: 1, State: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{name: true}
		for i := range 3 {
			child, _, err := b.Fork(ForkPoint{Session: name, Step: 1}, "", "gpt")
			if err != nil {
				t.Fatalf("fork %d of %q: %v", i+1, name, err)
			}
			got := child.Name()
			if !utf8.ValidString(got) || len(got) > maxName || seen[got] || validName(got) != nil {
				t.Errorf("fork %d of %q is named %q (%d bytes)", i+1, name, got, len(got))
			}
			if !strings.Contains(got, "-fork1") || !strings.HasPrefix(name, strings.TrimRight(got[:strings.Index(got, "-fork1")], " ")) {
				t.Errorf("fork %d is named %q: want the start of the parent's name and -fork1", i+1, got)
			}
			seen[got] = true
		}
		b.Close()
	}
}

// A fork reads the records it sums and the step's observation through the journal's
// format: the time the step observed comes back, rules of a notebook before approval
// rules are carried over, and a record it cannot read is an error naming it, with no
// half-made fork left behind.
func TestForkReadsTheJournalsFormat(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "coplay.db")
	b, s := createAt(t, path, "p", "universe", "autopilot")
	defer b.Close()
	recs := []Record{
		{Type: record.TypeStep, Step: 1},
		{Type: record.TypeObservation, Step: 1, Data: []byte(`{"observation":{"summary":"s","time":"2026-01-02T03:04:05Z"}}`)},
		{Type: record.TypeRules, Step: 1, Data: []byte(`{"rules":{"orbit_ship":true,"dock_ship":false}}`)},
		{Type: record.TypeStep, Step: 2},
		{Type: record.TypeObservation, Step: 2, Data: []byte(`{"observation":{"time":"soon"}}`)},
		{Type: record.TypeUsage, Step: 2, Data: []byte(`{"usage":{"prompt_tokens":"many"}}`)},
		{Type: record.TypeStep, Step: 3},
	}
	if _, err := s.Commit(Batch{Records: recs, Step: 3, State: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if seq, observed, err := s.StepSeq(1); err != nil || seq != 1 || observed.Format(time.RFC3339) != "2026-01-02T03:04:05Z" {
		t.Errorf("StepSeq(1) = %d, %v, %v", seq, observed, err)
	}
	if _, _, err := s.StepSeq(2); err == nil || !strings.Contains(err.Error(), "journal record 5 (observation)") {
		t.Errorf("StepSeq(2), whose observation cannot be read: %v", err)
	}
	child, _, err := b.Fork(ForkPoint{Session: "p", Step: 2}, "", "gpt")
	if err != nil {
		t.Fatal(err)
	}
	if rules, err := child.RuleLines(); err != nil || strings.Join(rules, ";") != "allow orbit_ship" {
		t.Errorf("the fork's rules = %q, %v", rules, err)
	}
	if _, _, err := b.Fork(ForkPoint{Session: "p", Step: 3}, "late", "gpt"); err == nil || !strings.Contains(err.Error(), "journal record 6: usage:") {
		t.Errorf("a fork over an unreadable usage record: %v", err)
	}
	if _, err := b.Session("late"); err == nil {
		t.Error("the failed fork left its session behind")
	}
}
