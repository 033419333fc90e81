package notes

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/coplayhq/coplay/notes/record"
)

// crashChildEnv switches the test binary into the crash child: it names
// the notebook file to write.
const crashChildEnv = "COPLAY_NOTES_CRASH_CHILD"

// crashChild plays the agent's side of the durability contract until it
// is killed: it records a decision before "running" a call and the result
// after, printing "seq N" once each Append has returned and "exec ID" when
// a call runs. On start it handles what the previous run left open.
func crashChild(path string) {
	fail := func(err error) { fmt.Fprintln(os.Stderr, "child:", err); os.Exit(3) }
	b, err := Open(path, &Options{Timeout: 5 * time.Second})
	if err != nil {
		fail(err)
	}
	s, err := b.Session("crash")
	if err != nil {
		if s, err = b.Create("crash", "test", "none"); err != nil {
			fail(err)
		}
	}
	// Unbuffered: each line is one write(2), so what was printed reached
	// the pipe before any kill.
	say := func(format string, args ...any) { fmt.Fprintf(os.Stdout, format+"\n", args...) }
	add := func(r Record) {
		got, err := s.Append(r)
		if err != nil {
			fail(err)
		}
		say("seq %d", got.Seq)
	}
	run := func(id string) {
		add(Record{Type: record.TypeDecision, CallID: id, Data: json.RawMessage(`{"decision":"approve"}`)})
		add(Record{Type: record.TypeToolStart, CallID: id})
		say("exec %s", id)
		add(Record{Type: record.TypeResult, CallID: id, Data: json.RawMessage(`{"output":"ok"}`)})
	}
	rec, err := s.Recover()
	if err != nil {
		fail(err)
	}
	say("ready")
	for _, u := range rec.Unknown {
		// Never run again: the outcome is unknown, so it is re-observed.
		add(Record{Type: record.TypeOutcomeUnknown, CallID: u.CallID})
	}
	for _, n := range rec.NotStarted {
		// Decided but never started: it did not run, and is closed as not executed.
		add(Record{Type: record.TypeResult, CallID: n.CallID, Data: json.RawMessage(`{"error":"not executed"}`)})
	}
	for _, p := range rec.Pending {
		run(p.CallID) // an approval still pending survives the restart
	}
	for i := 0; ; i++ {
		id := fmt.Sprintf("p%d-%d", os.Getpid(), i)
		add(Record{Type: record.TypeProposed, CallID: id, Data: json.RawMessage(`{"call":{"tool":"mine"}}`)})
		if i%4 == 3 {
			add(Record{Type: record.TypeDecision, CallID: id, Data: json.RawMessage(`{"decision":"veto"}`)})
			continue
		}
		run(id)
	}
}

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	os.Exit(m.Run())
}

// TestKillNineNeverLosesACommittedEvent kills a writer with SIGKILL at
// random moments, again and again, and checks after each kill that the
// file opens, every seq the writer saw committed is there, and Recover
// agrees with the journal: decided-but-unfinished calls are unknown,
// undecided ones pending. Across all runs no call may run twice.
func TestKillNineNeverLosesACommittedEvent(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	path := tempPath(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	execs := map[string]int{}
	deadline := time.Now().Add(4 * time.Second)
	kills, unknownSeen, pendingSeen := 0, 0, 0
	for kills < 30 && (kills < 5 || time.Now().Before(deadline)) {
		printed, ran := killChildRandomly(t, path, rng)
		kills++
		for _, id := range ran {
			execs[id]++
			if execs[id] > 1 {
				t.Fatalf("call %s ran twice", id)
			}
		}
		u, p := checkAfterCrash(t, path, printed, execs)
		unknownSeen += u
		pendingSeen += p
	}
	t.Logf("%d kills; %d calls of unknown outcome and %d pending calls found on reopen; %d calls ran", kills, unknownSeen, pendingSeen, len(execs))
}

// killChildRandomly starts the child, kills it at a random moment after
// it is ready, and returns the seqs it printed and the calls it ran.
func killChildRandomly(t *testing.T, path string, rng *rand.Rand) (printed []uint64, ran []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "ready":
				close(ready)
			case strings.HasPrefix(line, "seq "):
				n, err := strconv.ParseUint(line[4:], 10, 64)
				if err != nil {
					t.Errorf("child printed %q", line)
				}
				printed = append(printed, n)
			case strings.HasPrefix(line, "exec "):
				ran = append(ran, line[5:])
			}
		}
	}()
	select {
	case <-ready:
		time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
	case <-done:
	case <-time.After(20 * time.Second):
		t.Log("child not ready after 20s; killing it anyway")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("child was not killed but ended with %v; stderr:\n%s", err, stderr.String())
	}
	return printed, ran
}

// checkAfterCrash reopens the file and checks it against what the child
// reported and against the journal itself. It returns how many unknown
// and pending calls Recover found.
func checkAfterCrash(t *testing.T, path string, printed []uint64, execs map[string]int) (unknown, pending int) {
	t.Helper()
	b, err := Open(path, &Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer b.Close()
	if err := b.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}); err != nil {
		t.Fatalf("bbolt consistency check after kill: %v", err)
	}
	s, err := b.Session("crash")
	if err != nil {
		if len(printed) == 0 {
			return 0, 0 // killed before the session existed
		}
		t.Fatal(err)
	}
	// Replay the journal to know each call's state independently of the index.
	type state struct{ proposed, decided, executes, started, finished bool }
	calls := map[string]*state{}
	have := map[uint64]bool{}
	var next uint64 = 1
	err = s.Records(1, func(r Record) error {
		if r.Seq != next {
			return fmt.Errorf("journal seq %d follows %d", r.Seq, next-1)
		}
		next++
		have[r.Seq] = true
		c := calls[r.CallID]
		if c == nil {
			c = &state{}
			calls[r.CallID] = c
		}
		switch r.Type {
		case record.TypeProposed:
			c.proposed = true
		case record.TypeDecision:
			c.decided, c.executes = true, decisionExecutes(r.Data)
		case record.TypeToolStart:
			c.started = true
		case record.TypeResult, record.TypeOutcomeUnknown:
			c.finished = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range printed {
		if !have[seq] {
			t.Fatalf("seq %d was reported committed but is missing after the kill", seq)
		}
	}
	for id, n := range execs {
		if c := calls[id]; n > 0 && (c == nil || !c.decided || !c.executes || !c.started) {
			t.Fatalf("call %s ran without a committed approval and start", id)
		}
	}
	rec, err := s.Recover()
	if err != nil {
		t.Fatal(err)
	}
	gotUnknown, gotPending, gotNotStarted := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range rec.Unknown {
		gotUnknown[r.CallID] = true
	}
	for _, r := range rec.NotStarted {
		gotNotStarted[r.CallID] = true
	}
	for _, r := range rec.Pending {
		gotPending[r.CallID] = true
	}
	for id, c := range calls {
		wantUnknown := c.decided && c.executes && c.started && !c.finished
		wantNotStarted := c.decided && c.executes && !c.started && !c.finished
		wantPending := c.proposed && !c.decided
		if gotNotStarted[id] != wantNotStarted {
			t.Fatalf("call %s: journal says started=%v, Recover says not started=%v", id, c.started, gotNotStarted[id])
		}
		if gotUnknown[id] != wantUnknown || gotPending[id] != wantPending {
			t.Fatalf("call %s: journal says unknown=%v pending=%v, Recover says unknown=%v pending=%v",
				id, wantUnknown, wantPending, gotUnknown[id], gotPending[id])
		}
	}
	return len(rec.Unknown), len(rec.Pending)
}
