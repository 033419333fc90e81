package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/live"
	"github.com/coplayhq/coplay/notes"
)

// leagueFixture makes a notebook holding the league arena-1 (seats Heron and Finch,
// each 3 steps, their steps interleaved in time: Heron's step i, then Finch's) and a
// lone session, journaled through the notes API as the runner journals (a step, the
// model's words, a call proposed and decided, its result, usage); it returns its path.
func leagueFixture(t *testing.T) string {
	t.Helper()
	path, book := newNotebook(t)
	defer book.Close()
	t0 := time.Date(2026, 11, 27, 2, 31, 0, 0, time.UTC)
	for k, seat := range []string{"Heron", "Finch"} {
		s, err := book.Create("arena-1-"+seat, "arena", "autopilot")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetLeague("arena-1", seat); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 3; i++ {
			at := t0.Add(time.Duration(2*i+k) * time.Second)
			id := fmt.Sprintf("call_%d", i)
			recs := []notes.Record{
				{Type: "step", Step: i},
				{Type: "text", Step: i, Data: json.RawMessage(fmt.Sprintf(`{"text":"%s at step %d"}`, seat, i))},
				{Type: "tool_proposed", Step: i, CallID: id, Data: json.RawMessage(`{"call":{"tool":"post","kind":"act","args":{"text":"hello"}}}`)},
				{Type: "decision", Step: i, CallID: id, Data: json.RawMessage(`{"decision":"approve","by":"policy"}`)},
				{Type: "tool_result", Step: i, CallID: id, Data: json.RawMessage(`{"result":{"output":"posted"}}`)},
				{Type: "usage", Step: i, Data: json.RawMessage(`{"usage":{"prompt_tokens":1000,"completion_tokens":100}}`)},
			}
			for j := range recs {
				recs[j].Time = at
			}
			if _, err := s.Commit(notes.Batch{Records: recs, Step: i, PromptTokens: 1000, CompletionTokens: 100}); err != nil {
				t.Fatal(err)
			}
		}
	}
	lone, err := book.Create("lone", "universe", "gpt-x")
	if err != nil {
		t.Fatal(err)
	}
	lone.SetStep(2)
	return path
}

// The table shows a league as one row, its totals, with its seats beneath; --json lists
// every seat's session with its league and seat, and a lone session with neither.
func TestSessionsListsALeagueWithItsSeats(t *testing.T) {
	t.Parallel()
	path := leagueFixture(t)
	out, err := sessions(t, "--data", path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("want a header, the lone session, the league and its 2 seats:\n%s", out)
	}
	at := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i
			}
		}
		t.Fatalf("no row starts with %q:\n%s", prefix, out)
		return -1
	}
	league := at("arena-1 (league) ")
	if f := strings.Fields(lines[league]); f[2] != "arena" || f[3] != "2" || f[4] != "seats" || f[5] != "6" || f[6] != "6.6k" {
		t.Errorf("league row %q: want game arena, 2 seats, 6 steps, 6.6k tokens", lines[league])
	}
	if heron, finch := at("  Heron "), at("  Finch "); heron != league+1 || finch != league+2 {
		t.Errorf("the seats are not beneath their league in seat order:\n%s", out)
	} else if f := strings.Fields(lines[heron]); f[1] != "arena" || f[2] != "autopilot" || f[3] != "3" || f[4] != "3.3k" {
		t.Errorf("seat row %q: want Heron's model, 3 steps and 3.3k tokens", lines[heron])
	}
	if strings.Contains(out, "arena-1-Heron") {
		t.Errorf("a seat is listed under its session's name as well:\n%s", out)
	}

	out, err = sessions(t, "--json", "--data", path)
	if err != nil {
		t.Fatal(err)
	}
	var list []sessionJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 3 {
		t.Fatalf("--json gave %s (%v)", out, err)
	}
	seats := map[string]string{}
	for _, s := range list {
		seats[s.Name] = s.League + "/" + s.Seat
	}
	if seats["arena-1-Heron"] != "arena-1/Heron" || seats["arena-1-Finch"] != "arena-1/Finch" || seats["lone"] != "/" {
		t.Errorf("--json leagues and seats: %v", seats)
	}
	if strings.Count(out, `"league"`) != 2 || strings.Count(out, `"seat"`) != 2 {
		t.Errorf("--json carries league and seat for the seats only:\n%s", out)
	}
}

// A fork of one seat's session is listed under the seat's league.
func TestSessionsListsAForkOfASeatUnderItsLeague(t *testing.T) {
	t.Parallel()
	path := leagueFixture(t)
	book, err := notes.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	fork, _, err := book.Fork(notes.ForkPoint{Session: "arena-1-Finch", Step: 2}, "", "autopilot")
	book.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sessions(t, "--data", path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "arena-1 (league) ") {
			if i+3 >= len(lines) || !strings.HasPrefix(lines[i+3], "└ "+fork.Name()+" (from @2) ") {
				t.Errorf("the fork of Finch's session is not under the league, after its seats:\n%s", out)
			}
			return
		}
	}
	t.Errorf("no league row:\n%s", out)
}

// A league forked from another (each seat's session a fork of a seat's) is listed
// under the league it was forked from, its seats beneath it.
func TestSessionsListsAForkedLeagueUnderItsParent(t *testing.T) {
	t.Parallel()
	path := leagueFixture(t)
	book, err := notes.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, seat := range []string{"Heron", "Finch"} {
		child, _, err := book.Fork(notes.ForkPoint{Session: "arena-1-" + seat, Step: 2}, "arena-2-"+seat, "autopilot")
		if err == nil {
			err = child.SetLeague("arena-2", seat)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	book.Close()
	out, err := sessions(t, "--data", path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var names []string // the NAME column
	for _, l := range lines[1:] {
		names = append(names, strings.TrimRight(l[:strings.Index(lines[0], "GAME")], " "))
	}
	want := []string{"arena-1 (league)", "  Heron", "  Finch", "└ arena-2 (from @2) (league)", "    Heron", "    Finch"}
	if i := slices.Index(names, want[0]); i < 0 || len(names) < i+len(want) || !slices.Equal(names[i:i+len(want)], want) {
		t.Errorf("rows %q, want the forked league under its parent:\n%s", names, out)
	}
}

// The replay of a league is every seat's steps on one timeline in time order, each
// labelled with its seat and with the league's SEAT/ID call ids.
func TestSessionsReplayOfALeague(t *testing.T) {
	t.Parallel()
	path := leagueFixture(t)
	out, err := sessions(t, "replay", "arena-1", "--json", "--data", path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var st struct {
			Seat  string `json:"seat"`
			Step  int    `json:"step"`
			Text  string `json:"text"`
			Calls []struct {
				ID       string `json:"id"`
				Decision struct {
					CallID string `json:"call_id"`
				} `json:"decision"`
			} `json:"calls"`
			Spend struct {
				PromptTokens int64 `json:"prompt_tokens"`
			} `json:"spend"`
		}
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatalf("bad replay line %q: %v", line, err)
		}
		want := fmt.Sprintf("%s/call_%d", st.Seat, st.Step)
		if len(st.Calls) != 1 || st.Calls[0].ID != want || st.Calls[0].Decision.CallID != want {
			t.Errorf("%s's step %d: calls %+v, want one named %s", st.Seat, st.Step, st.Calls, want)
		}
		if st.Text != fmt.Sprintf("%s at step %d", st.Seat, st.Step) || st.Spend.PromptTokens != int64(1000*st.Step) {
			t.Errorf("%s's step %d has text %q and spend %d: not its own seat's", st.Seat, st.Step, st.Text, st.Spend.PromptTokens)
		}
		got = append(got, fmt.Sprintf("%s%d", st.Seat, st.Step))
	}
	if want := "Heron1 Finch1 Heron2 Finch2 Heron3 Finch3"; strings.Join(got, " ") != want {
		t.Errorf("the league's timeline is %v, want %s", got, want)
	}

	// A seat's own session replays alone, its lines naming its seat.
	out, err = sessions(t, "replay", "arena-1-Finch", "--json", "--data", path)
	if err != nil || strings.Count(out, `"seat":"Finch"`) != 3 || strings.Contains(out, "Heron") || strings.Contains(out, "Finch/") {
		t.Errorf("replay of Finch's session = %s, %v", out, err)
	}
	// A lone session's lines are as they were: no seat.
	if out, err := sessions(t, "replay", "lone", "--json", "--data", path); err != nil || strings.Contains(out, `"seat"`) {
		t.Errorf("replay of a lone session = %s, %v", out, err)
	}
	if _, err := sessions(t, "replay", "ghost", "--json", "--data", path); err == nil || !strings.Contains(err.Error(), `no session or league "ghost"`) {
		t.Errorf("replay of neither: %v", err)
	}
}

// export of a league writes every seat's transcript in one document; rm of a seat
// removes that seat's session, of a league every seat's that is left, and says which.
func TestSessionsExportAndRemoveALeague(t *testing.T) {
	t.Parallel()
	path := leagueFixture(t)
	out, err := sessions(t, "export", "arena-1", "--data", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# League arena-1", "## Seat Heron: session arena-1-Heron", "## Seat Finch: session arena-1-Finch", "Heron at step 3", "Finch at step 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("the league's export lacks %q", want)
		}
	}
	file := filepath.Join(t.TempDir(), "league.md")
	if out, err := sessions(t, "export", "arena-1", "--data", path, "-o", file); err != nil || !strings.Contains(out, "wrote "+file) {
		t.Errorf("export -o of a league = %q, %v", out, err)
	}

	if out, err := sessions(t, "rm", "arena-1-Heron", "--data", path); err != nil || !strings.Contains(out, "removed session arena-1-Heron (seat Heron of league arena-1)") {
		t.Fatalf("rm of a seat = %q, %v", out, err)
	}
	if out, err := sessions(t, "rm", "arena-1", "--data", path); err != nil || strings.TrimSpace(out) != "removed league arena-1: sessions arena-1-Finch" {
		t.Fatalf("rm of the league = %q, %v", out, err)
	}
	if _, err := sessions(t, "rm", "arena-1", "--data", path); err == nil || !strings.Contains(err.Error(), `no session or league "arena-1"`) {
		t.Errorf("a second rm of the league: %v", err)
	}
	if out, _ := sessions(t, "--data", path); strings.Contains(out, "arena-1") || !strings.Contains(out, "lone") {
		t.Errorf("after rm the table is:\n%s", out)
	}
}

// While a coplay plays a league (it holds the notebook and serves copies of it on its
// socket), the read-only commands read through it: the league and its seats are marked
// as playing, the league replays, and rm is refused.
func TestSessionsOfALeagueWhilePlaying(t *testing.T) {
	t.Parallel()
	path := leagueFixture(t)
	book, err := notes.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	srv, err := live.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.ServeSnapshots(book)
	srv.SetPlaying(func() []string { return []string{"arena-1-Heron", "arena-1-Finch"} })

	out, err := sessions(t, "--data", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"arena-1 (league) (playing now)", "  Heron (playing now)", "  Finch (playing now)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "lone (playing now)") {
		t.Errorf("the lone session is marked as playing:\n%s", out)
	}
	if out, err := sessions(t, "replay", "arena-1", "--json", "--data", path); err != nil || strings.Count(out, "\n") != 6 {
		t.Errorf("replay of the league while it plays = %.300q, %v", out, err)
	}
	if _, err := sessions(t, "rm", "arena-1", "--data", path); err == nil || !strings.Contains(err.Error(), "in use by another coplay") {
		t.Errorf("rm of a league while it plays: %v, want refused as in use", err)
	}
}

// A league played headless (coplay run --seat … --seat …) is listed seat by seat with
// its league and seat, and its replay has both seats on one timeline: each seat's steps
// with the world that seat observed, and the call ids the league's stream carried.
func TestSessionsOfAPlayedLeague(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "coplay.db")
	out := runInProcess(t, "run", "--game", "arena", "--seat", "Heron=autopilot", "--seat", "Finch=autopilot",
		"--steps", "3", "--approve", "all", "--speed", "1000", "--data", data)
	played := map[string]map[int]*game.Observation{} // seat -> step -> the world it observed
	stepOf := map[string]int{}
	var ids []string
	for _, ev := range decodeEvents(t, strings.NewReader(out)) {
		switch {
		case ev.Type == agent.EventStep:
			stepOf[ev.Seat] = ev.Step
		case ev.Type == agent.EventObservation && stepOf[ev.Seat] > 0:
			if played[ev.Seat] == nil {
				played[ev.Seat] = map[int]*game.Observation{}
			}
			if played[ev.Seat][stepOf[ev.Seat]] == nil {
				played[ev.Seat][stepOf[ev.Seat]] = ev.Observation
			}
		case ev.Type == agent.EventProposed && ev.Call != nil:
			ids = append(ids, ev.Call.ID)
		}
	}

	list := onlySession(t, data)
	seats := map[string]string{}
	leagueName := ""
	for _, s := range list {
		seats[s.Seat] = s.Name
		leagueName = s.League
	}
	if len(list) != 2 || seats["Heron"] != leagueName+"-Heron" || seats["Finch"] != leagueName+"-Finch" || leagueName == "" {
		t.Fatalf("sessions --json after a league of Heron and Finch: %+v", list)
	}

	var got []string
	var replayIDs []string
	for _, line := range strings.Split(strings.TrimSpace(runInProcess(t, "sessions", "replay", leagueName, "--json", "--data", data)), "\n") {
		var st seatStep
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatalf("bad replay line %q: %v", line, err)
		}
		want, _ := json.Marshal(played[st.Seat][st.Step])
		if obs, _ := json.Marshal(st.Observation); st.Seat == "" || string(obs) != string(want) {
			t.Errorf("%s's step %d: observation\n%s\nwant what the seat observed\n%s", st.Seat, st.Step, obs, want)
		}
		for _, c := range st.Calls {
			replayIDs = append(replayIDs, c.ID)
		}
		got = append(got, fmt.Sprintf("%s%d", st.Seat, st.Step))
	}
	slices.Sort(got)
	if want := "Finch1 Finch2 Finch3 Heron1 Heron2 Heron3"; strings.Join(got, " ") != want {
		t.Errorf("the league's replay has steps %v, want %s", got, want)
	}
	slices.Sort(ids)
	slices.Sort(replayIDs)
	if len(ids) == 0 || !slices.Equal(ids, replayIDs) {
		t.Errorf("the replay's call ids %v differ from the league's stream's %v", replayIDs, ids)
	}
	if table := runInProcess(t, "sessions", "--data", data); !strings.Contains(table, leagueName+" (league) ") || !strings.Contains(table, "\n  Heron ") || !strings.Contains(table, "\n  Finch ") {
		t.Errorf("the table does not group the seats under their league:\n%s", table)
	}
}
