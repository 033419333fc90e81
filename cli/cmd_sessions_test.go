package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/ui"
)

// newNotebook opens a new notebook in a temporary directory and returns its path; the
// caller closes it.
func newNotebook(t testing.TB) (string, *notes.Book) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "coplay.db")
	book, err := notes.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return path, book
}

// newSession creates the session name (of gameName, played by brainName) in a new
// notebook, closed when the test ends, and returns the notebook's path and the session.
func newSession(t testing.TB, name, gameName, brainName string) (string, *notes.Session) {
	t.Helper()
	path, book := newNotebook(t)
	t.Cleanup(func() { book.Close() })
	s, err := book.Create(name, gameName, brainName)
	if err != nil {
		t.Fatal(err)
	}
	return path, s
}

// sessionsFixture makes a notebook with two sessions and returns its path.
func sessionsFixture(t *testing.T) string {
	t.Helper()
	path, book := newNotebook(t)
	defer book.Close()
	for _, name := range []string{"old", "new"} {
		s, err := book.Create(name, "spacetraders", "gpt-x")
		if err != nil {
			t.Fatal(err)
		}
		s.Append(notes.Record{Type: "text", Step: 1, Data: json.RawMessage(`{"text":"hello from ` + name + `"}`)})
		s.SetStep(4)
		if name == "new" {
			if _, err := s.Commit(notes.Batch{PromptTokens: 40_000, CachedTokens: 35_200, CompletionTokens: 1200, Cost: 0.01}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}

func sessions(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := execute(append([]string{"sessions"}, args...), &out, &errOut)
	return out.String(), err
}

func TestSessionsList(t *testing.T) {
	t.Parallel()
	path := sessionsFixture(t)
	out, err := sessions(t, "--data", path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") || !strings.HasPrefix(lines[1], "new ") || !strings.HasPrefix(lines[2], "old ") {
		t.Fatalf("table:\n%s", out)
	}
	if f := strings.Fields(lines[1]); f[1] != "spacetraders" || f[2] != "gpt-x" || f[3] != "4" || f[len(f)-1] != "1" {
		t.Errorf("row %q", lines[1])
	}
	if !strings.Contains(lines[0], "TOKENS") || !strings.Contains(lines[1], " 41.2k tok (88% cached) ") {
		t.Errorf("the table does not show the tokens with their cached share:\n%s", out)
	}
	if f := strings.Fields(lines[2]); f[4] != "-" {
		t.Errorf("a session without model calls shows tokens %q, want -", f[4])
	}

	out, err = sessions(t, "--json", "--data", path)
	if err != nil {
		t.Fatal(err)
	}
	var list []notes.SessionInfo
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 2 || list[0].Name != "new" || list[0].Records != 1 {
		t.Errorf("--json gave %s (%v)", out, err)
	}
	if list[0].CachedTokens != 35_200 || list[0].PromptTokens != 40_000 || list[0].CompletionTokens != 1200 {
		t.Errorf("--json tokens = %d prompt (%d cached) + %d, want 40000 (35200) + 1200", list[0].PromptTokens, list[0].CachedTokens, list[0].CompletionTokens)
	}
	// Every session carries cached_tokens, 0 included, once.
	var raw []map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil || raw[1]["cached_tokens"] != float64(0) || strings.Count(out, `"cached_tokens"`) != 2 {
		t.Errorf("--json does not carry cached_tokens for every session:\n%s", out)
	}
}

func TestShortTokens(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0", 812: "812", 1000: "1.0k", 41_200: "41.2k", 1_250_000: "1.2M"} {
		if got := ui.ShortCount(n); got != want {
			t.Errorf("ui.ShortCount(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSessionsListWithoutNotebook(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "none.db")
	out, err := sessions(t, "--json", "--data", path)
	if err != nil || strings.TrimSpace(out) != "[]" {
		t.Errorf("--json with no notebook = %q, %v", out, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("listing created a notebook")
	}
	if _, err := sessions(t, "export", "x", "--data", path); err == nil || !strings.Contains(err.Error(), "no notebook at "+path) {
		t.Errorf("export with no notebook: %v", err)
	}
}

// Serial: it changes the working directory (t.Chdir) to see where -o - writes.
func TestSessionsExportAndRemove(t *testing.T) {
	path := sessionsFixture(t)
	out, err := sessions(t, "export", "old", "--data", path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "# Session old") || !strings.Contains(out, "hello from old") {
		t.Errorf("export to stdout:\n%s", out)
	}
	file := filepath.Join(t.TempDir(), "old.md")
	if _, err := sessions(t, "export", "--data", path, "old", "-o", file); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), "### Step 1") {
		t.Errorf("export -o wrote %q, %v", b, err)
	}
	// -o - is standard output, as for most tools, not a file named "-".
	dir := t.TempDir()
	t.Chdir(dir)
	if out, err := sessions(t, "export", "old", "--data", path, "-o", "-"); err != nil || !strings.Contains(out, "# Session old") || strings.Contains(out, "wrote") {
		t.Errorf("export -o - printed %q, %v; want the transcript", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); !os.IsNotExist(err) {
		t.Errorf("export -o - wrote a file named -: %v", err)
	}
	if _, err := sessions(t, "export", "ghost", "--data", path); err == nil || !strings.Contains(err.Error(), `no session or league "ghost"`) {
		t.Errorf("export of a missing session: %v", err)
	}
	if _, err := sessions(t, "export", "--data", path); err == nil {
		t.Error("export without a name succeeded")
	}
	if out, err := sessions(t, "rm", "old", "--data", path); err != nil || !strings.Contains(out, "removed session old") {
		t.Fatalf("rm = %q, %v", out, err)
	}
	if _, err := sessions(t, "rm", "old", "--data", path); err == nil {
		t.Error("second rm succeeded")
	}
	out, _ = sessions(t, "--data", path)
	if strings.Contains(out, "old") {
		t.Errorf("after rm the list still shows it:\n%s", out)
	}
}

func TestSessionsLockedNotebook(t *testing.T) {
	t.Parallel()
	path := sessionsFixture(t)
	book, err := notes.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	if _, err := sessions(t, "--data", path); err == nil || !strings.Contains(err.Error(), "in use by another coplay") {
		t.Errorf("list of a locked notebook: %v", err)
	}
}

// coplay sessions and sessions export only read: the notebook file (here the fixture
// written by the last release) stays byte for byte and time as it was.
func TestSessionsReadOnlyCommandsNeverWrite(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "notebooks", "v1.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v1.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(path, past, past)
	if _, err := sessions(t, "--data", path); err != nil {
		t.Fatal(err)
	}
	if _, err := sessions(t, "--json", "--data", path); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "t.md")
	if _, err := sessions(t, "export", "universe-2026-11-22-2313", "--data", path, "-o", out); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(out)
	if !bytes.Contains(md, []byte("### Step 4")) {
		t.Fatalf("the export of the old notebook lacks its steps:\n%.500s", md)
	}
	after, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if !bytes.Equal(after, data) || !fi.ModTime().Equal(past) {
		t.Fatal("a read-only command wrote to the notebook")
	}
}

// An export that meets damage fails and leaves no partial transcript behind.
func TestSessionsExportOfDamageWritesNothing(t *testing.T) {
	t.Parallel()
	path, book := newNotebook(t)
	s, _ := book.Create("x", "universe", "autopilot")
	for i := range 50 {
		s.Append(notes.Record{Type: "text", Step: i, Data: json.RawMessage(`{"text":"a line of the journal that is long enough to find"}`)})
	}
	book.Close()
	raw, _ := os.ReadFile(path)
	// Damage the journal: flip a byte inside a stored block (found by its checksum
	// neighbour: any byte of the data pages past the meta pages will do for a block).
	hit := false
	for off := 2 * 4096; off < len(raw); off++ {
		if raw[off] == 0xC0 && off+8 < len(raw) && raw[off+1] == 'r' {
			raw[off+6] ^= 0x40
			hit = true
			break
		}
	}
	if !hit {
		t.Fatal("no journal block found to damage")
	}
	os.WriteFile(path, raw, 0o600)
	out := filepath.Join(t.TempDir(), "t.md")
	_, err := sessions(t, "export", "x", "--data", path, "-o", out)
	if err == nil || !errors.Is(err, notes.ErrCorrupt) || !strings.Contains(err.Error(), `session "x"`) {
		t.Fatalf("export of a damaged journal: %v, want damage naming the session", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a partial transcript was left behind")
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

// A session played by a model records the model's name, not the kind of brain, so
// `coplay sessions` tells a gpt-4o-mini run from a qwen one; the autopilot and a
// cassette are recorded as such.
func TestSessionsRecordTheModelName(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(&llmtest.Cassette{Name: "named", Model: "scripted-7b", Steps: []llmtest.Step{{Text: "Nothing to do."}}})
	defer model.Close()
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_BASE_URL=" + model.URL(), "OPENAI_API_KEY=sk-test-named-0000"}
	data := filepath.Join(t.TempDir(), "coplay.db")
	coplayRun(t, env, "", "run", "--headless", "--data", data, "--model", "scripted-7b", "--approve", "all", "--steps", "1")
	coplayRun(t, env, "", "run", "--headless", "--data", data, "--brain", "autopilot", "--approve", "all", "--steps", "1")
	out, err := sessions(t, "--json", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	var list []notes.SessionInfo
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 2 {
		t.Fatalf("--json gave %s (%v)", out, err)
	}
	got := map[string]bool{list[0].Model: true, list[1].Model: true}
	if !got["scripted-7b"] || !got["autopilot"] {
		t.Errorf("sessions record the models %q and %q, want scripted-7b and autopilot", list[0].Model, list[1].Model)
	}
}
