package notes

import (
	"errors"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/coplayhq/coplay/notes/record"
)

// fakeClock makes a book's time step one minute per call, so that
// "most recently active" is deterministic.
func fakeClock(b *Book) {
	t := time.Date(2026, 11, 22, 15, 3, 0, 0, time.UTC)
	b.now = func() time.Time { t = t.Add(time.Minute); return t }
}

func TestCreateListSessionDelete(t *testing.T) {
	t.Parallel()
	b := openBook(t, tempPath(t))
	fakeClock(b)
	a, err := b.Create("", "SpaceTraders", "gpt-x")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^spacetraders-2026-11-22-\d{4}$`).MatchString(a.Name()) {
		t.Errorf("generated name %q", a.Name())
	}
	named, err := b.Create("bob", "spacetraders", "gpt-x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Create("bob", "x", "y"); !errors.Is(err, ErrExists) {
		t.Errorf("duplicate Create: err = %v, want ErrExists", err)
	}
	for _, bad := range []string{" bob", "a/b", "tab\there", string(make([]byte, 101))} {
		if _, err := b.Create(bad, "g", "m"); err == nil {
			t.Errorf("Create(%q) accepted a bad name", bad)
		}
	}
	// Touch the first session so that it becomes the most recent.
	if err := a.SetStep(3); err != nil {
		t.Fatal(err)
	}
	list, err := b.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != a.Name() || list[1].Name != "bob" {
		t.Fatalf("List() = %+v, want %s then bob", list, a.Name())
	}
	if list[0].Steps != 3 || list[0].Game != "SpaceTraders" || list[0].Model != "gpt-x" {
		t.Errorf("info = %+v", list[0])
	}
	latest, err := b.Session("")
	if err != nil || latest.Name() != a.Name() {
		t.Errorf(`Session("") = %v, %v; want %s`, latest, err, a.Name())
	}
	if _, err := b.Session("nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Session(nobody): err = %v, want ErrNotFound", err)
	}
	if err := b.Delete(named.Name()); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(named.Name()); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete: err = %v, want ErrNotFound", err)
	}
	if _, err := named.Notes(); !errors.Is(err, ErrNotFound) {
		t.Errorf("using a deleted session: err = %v, want ErrNotFound", err)
	}
	if list, _ := b.List(); len(list) != 1 {
		t.Errorf("after Delete, List() = %+v", list)
	}
}

func TestGeneratedNamesAreUnique(t *testing.T) {
	t.Parallel()
	b := openBook(t, tempPath(t))
	fixed := time.Date(2026, 11, 22, 15, 3, 0, 0, time.UTC)
	b.now = func() time.Time { return fixed }
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		s, err := b.Create("", "", "m")
		if err != nil {
			t.Fatal(err)
		}
		if seen[s.Name()] {
			t.Fatalf("name %q generated twice", s.Name())
		}
		seen[s.Name()] = true
	}
	if !seen["session-2026-11-22-1503"] || !seen["session-2026-11-22-1503-3"] {
		t.Errorf("names = %v", seen)
	}
}

func TestEmptyBookHasNoLatestSession(t *testing.T) {
	t.Parallel()
	b := openBook(t, tempPath(t))
	if _, err := b.Session(""); !errors.Is(err, ErrNotFound) {
		t.Errorf(`Session("") on an empty book: err = %v, want ErrNotFound`, err)
	}
}

// TestResumeRestoresEverything writes every kind of data, closes the file,
// reopens it and checks that all of it is back.
func TestResumeRestoresEverything(t *testing.T) {
	t.Parallel()
	path := tempPath(t)
	b, s := createAt(t, path, "trip", "spacetraders", "gpt-x")
	if _, err := s.UpdateSection("Situation", "Docked at X1-DF55-A2 with 150,000 credits.", 1); err != nil {
		t.Fatal(err)
	}
	wantNotes, err := s.UpdateSection("Next", "Refuel, then fly to the asteroid.", 2)
	if err != nil {
		t.Fatal(err)
	}
	wantPlan, err := s.SetPlan([]PlanStep{{Text: "accept contract"}, {Text: "mine iron", Status: StatusDoing}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetRule("dock", true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRule("sell", true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRule("sell", false); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"deny jettison: keep it", "allow navigate if fuel <= 100", "allow refuel", "allow refuel"} {
		if err := s.AddRuleLine(l); err != nil {
			t.Fatal(err)
		}
	}
	if removed, err := s.RemoveRuleLine("allow refuel"); err != nil || !removed {
		t.Fatalf("RemoveRuleLine = %v, %v", removed, err)
	}
	if removed, err := s.RemoveRuleLine("allow nothing"); err != nil || removed {
		t.Fatalf("RemoveRuleLine of a rule not there = %v, %v", removed, err)
	}
	state := []byte(`{"seed":42,"clock":"2026-11-22T15:03:00Z"}`)
	if err := s.SaveState(state); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUsage(1000, 50, 0.01); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUsage(500, 25, 0.005); err != nil {
		t.Fatal(err)
	}
	var wantJournal []Record
	for _, r := range []Record{
		{Type: "step", Step: 1},
		{Type: record.TypeProposed, Step: 1, CallID: "a", Data: []byte(`{"call":{"id":"a","tool":"navigate","args":{"ship":"X-1"}}}`)},
		{Type: record.TypeDecision, Step: 1, CallID: "a", Data: []byte(`{"decision":"approve"}`)},
		{Type: record.TypeResult, Step: 1, CallID: "a", Data: []byte(`{"output":"ok"}`)},
		{Type: record.TypeProposed, Step: 2, CallID: "b", Data: []byte(`{"call":{"id":"b","tool":"sell"}}`)},
		{Type: record.TypeProposed, Step: 2, CallID: "c", Data: []byte(`{"call":{"id":"c","tool":"dock"}}`)},
		{Type: record.TypeDecision, Step: 2, CallID: "c", Data: []byte(`{"decision":"auto"}`)},
		{Type: record.TypeToolStart, Step: 2, CallID: "c"},
	} {
		got, err := s.Append(r)
		if err != nil {
			t.Fatal(err)
		}
		wantJournal = append(wantJournal, got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	b = openBook(t, path)
	s, err = b.Session("")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "trip" {
		t.Fatalf("resumed %q", s.Name())
	}
	notes, err := s.Notes()
	if err != nil || notes.Text != wantNotes.Text || notes.Version != 2 || notes.Step != 2 {
		t.Errorf("Notes() = %+v, %v; want version 2 of %q", notes, err, wantNotes.Text)
	}
	plan, err := s.Plan()
	if err != nil || !reflect.DeepEqual(plan, wantPlan) {
		t.Errorf("Plan() = %+v, %v; want %+v", plan, err, wantPlan)
	}
	rules, err := s.Rules()
	if err != nil || !reflect.DeepEqual(rules, map[string]bool{"dock": true}) {
		t.Errorf("Rules() = %v, %v", rules, err)
	}
	// The older always-allow entry reads as a rule line, with the lines stored since.
	lines, err := s.RuleLines()
	if want := []string{"allow navigate if fuel <= 100", "deny jettison: keep it", "allow dock"}; err != nil || !reflect.DeepEqual(lines, want) {
		t.Errorf("RuleLines() = %q, %v; want %q", lines, err, want)
	}
	if removed, err := s.RemoveRuleLine("allow dock"); err != nil || !removed {
		t.Errorf("removing the older entry as \"allow dock\" = %v, %v", removed, err)
	}
	if rules, _ := s.Rules(); len(rules) != 0 {
		t.Errorf("after removing allow dock: Rules() = %v", rules)
	}
	gotState, err := s.State()
	if err != nil || string(gotState) != string(state) {
		t.Errorf("State() = %q, %v", gotState, err)
	}
	info, err := s.Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.PromptTokens != 1500 || info.CompletionTokens != 75 || info.Cost < 0.0149 || info.Cost > 0.0151 ||
		info.Records != 8 || info.Calls != 1 || info.Steps != 2 {
		t.Errorf("Info() = %+v", info)
	}
	var gotJournal []Record
	if err := s.Records(1, func(r Record) error { gotJournal = append(gotJournal, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(gotJournal) != len(wantJournal) {
		t.Fatalf("journal has %d records, want %d", len(gotJournal), len(wantJournal))
	}
	for i := range wantJournal {
		w, g := wantJournal[i], gotJournal[i]
		if g.Seq != w.Seq || !g.Time.Equal(w.Time) || g.Type != w.Type || g.CallID != w.CallID || string(g.Data) != string(w.Data) {
			t.Errorf("record %d = %+v, want %+v", i, g, w)
		}
	}
	rec, err := s.Recover()
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Pending) != 1 || rec.Pending[0].CallID != "b" {
		t.Errorf("Pending = %+v, want call b", rec.Pending)
	}
	if len(rec.Unknown) != 1 || rec.Unknown[0].CallID != "c" || rec.Unknown[0].Type != record.TypeDecision {
		t.Errorf("Unknown = %+v, want the decision of call c", rec.Unknown)
	}
}

func TestStateNilWhenNone(t *testing.T) {
	t.Parallel()
	b := openBook(t, tempPath(t))
	s, _ := b.Create("s", "g", "m")
	st, err := s.State()
	if err != nil || st != nil {
		t.Errorf("State() = %q, %v; want nil", st, err)
	}
}
