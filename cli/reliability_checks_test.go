package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// recordTB collects what a check reports instead of failing the test.
type recordTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordTB) Helper() {}

func (r *recordTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *recordTB) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// reported runs check on its own goroutine (so that Fatalf can end it) and returns
// everything it reported.
func reported(t *testing.T, check func(testing.TB)) string {
	rec := &recordTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(rec)
	}()
	<-done
	return strings.Join(rec.errs, "\n")
}

// jrec builds a journal record for the checker tests.
func jrec(seq uint64, typ, callID, data string) notes.Record {
	return notes.Record{Seq: seq, Type: record.Type(typ), CallID: callID, Step: 1, Data: json.RawMessage(data)}
}

const (
	orbitCall   = `{"call":{"id":"c1","tool":"orbit_ship","args":{"shipSymbol":"COPLAY-1"},"kind":"act","needs_ok":true}}`
	orbitResult = `{"call":{"id":"c1","tool":"orbit_ship","args":{"shipSymbol":"COPLAY-1"},"kind":"act"},"result":{"output":"ok"}}`
	badCall     = `{"call":{"id":"c1","tool":"orbit_ship","args":{"shipSymbol":1},"kind":"act","problems":[{"path":"arguments.shipSymbol"}]}}`
)

// TestReliabilityCheckersCatch shows that the invariants the suite relies on fail on
// journals and game counts that break them: if the runner ever ran a call twice or
// without a decision, the fault tests would say so.
func TestReliabilityCheckersCatch(t *testing.T) {
	t.Parallel()
	person := `{"call_id":"c1","decision":"approve","by":"person"}`
	for _, tc := range []struct {
		name    string
		recs    []notes.Record
		allActs bool
		want    string
	}{
		{"clean", []notes.Record{jrec(1, "tool_proposed", "c1", orbitCall), jrec(2, "decision", "c1", person),
			jrec(3, "tool_started", "c1", orbitCall), jrec(4, "tool_result", "c1", orbitResult)}, false, ""},
		{"gap", []notes.Record{jrec(1, "step", "", `{}`), jrec(3, "step", "", `{}`)}, false, "a gap"},
		{"started twice", []notes.Record{jrec(1, "tool_proposed", "c1", orbitCall), jrec(2, "decision", "c1", person),
			jrec(3, "tool_started", "c1", orbitCall), jrec(4, "tool_started", "c1", orbitCall)}, false, "ran or was decided twice"},
		{"no decision", []notes.Record{jrec(1, "tool_proposed", "c1", orbitCall), jrec(2, "tool_started", "c1", orbitCall)},
			false, "started without a decision"},
		{"vetoed but started", []notes.Record{jrec(1, "tool_proposed", "c1", orbitCall),
			jrec(2, "decision", "c1", `{"call_id":"c1","decision":"veto","by":"person"}`), jrec(3, "tool_started", "c1", orbitCall)},
			false, "started without a decision"},
		{"self-approved", []notes.Record{jrec(1, "tool_proposed", "c1", orbitCall),
			jrec(2, "decision", "c1", `{"call_id":"c1","decision":"approve","by":"policy"}`)}, false, "approved by policy"},
		{"approve all", []notes.Record{jrec(1, "tool_proposed", "c1", orbitCall),
			jrec(2, "decision", "c1", `{"call_id":"c1","decision":"approve","by":"policy"}`)}, true, ""},
		{"rule nobody set", []notes.Record{jrec(1, "tool_proposed", "c1", orbitCall),
			jrec(2, "decision", "c1", `{"call_id":"c1","decision":"approve","by":"rule"}`)}, false, "rule nobody set"},
		{"invalid decided", []notes.Record{jrec(1, "tool_proposed", "c1", badCall), jrec(2, "decision", "c1", person)},
			false, "failed validation but was decided"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := reported(t, func(tb testing.TB) { checkJournal(tb, tc.recs, tc.allActs, nil) })
			if tc.want == "" && got != "" {
				t.Errorf("a sound journal was reported: %s", got)
			}
			if tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("want a report of %q, got %q", tc.want, got)
			}
		})
	}

	t.Run("game side", func(t *testing.T) {
		key := requestKey("POST", "/v2/my/ships/COPLAY-1/orbit", nil)
		g := &gameServer{arrived: map[string]int{key: 2}, forwarded: map[string]int{key: 2}, injected: map[faultKind]int{}}
		f := journalFacts{started: map[string]int{key: 1}, applied: map[string]int{key: 1}}
		if got := reported(t, func(tb testing.TB) { checkGameSide(tb, g, f, 0) }); !strings.Contains(got, "a call ran twice") {
			t.Errorf("two requests for one started call: got %q", got)
		}
		g.arrived[key], g.forwarded[key] = 0, 0
		got := reported(t, func(tb testing.TB) { checkGameSide(tb, g, f, 0) })
		if !strings.Contains(got, "succeeded 1 times but the game did it 0 times") || !strings.Contains(got, "never reached the game") {
			t.Errorf("a success the game never saw: got %q", got)
		}
	})
}
