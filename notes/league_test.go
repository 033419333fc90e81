package notes

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// leagueBook makes a notebook at path with a league of two seats (Heron created first,
// then Finch) and a lone session, and returns it open.
func leagueBook(t *testing.T, path string) *Book {
	t.Helper()
	b := openBook(t, path)
	fakeClock(b)
	for _, seat := range []string{"Heron", "Finch"} {
		s, err := b.Create("arena-1-"+seat, "arena", "autopilot")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetLeague("arena-1", seat); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(Record{Type: "text", Step: 1, Data: []byte(`{"text":"` + seat + ` looks around"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Create("lone", "arena", "gpt-x"); err != nil {
		t.Fatal(err)
	}
	return b
}

func seatNames(ss []*Session) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name())
	}
	return out
}

// A league's seats are found by its name, in the order they were created, after the
// notebook is closed and opened again; a lone session is no league's.
func TestLeagueSeatsInCreationOrder(t *testing.T) {
	t.Parallel()
	path := tempPath(t)
	b := leagueBook(t, path)
	// Heron, created first, is active last: the order is still the seats' creation order.
	heron, _ := b.Session("arena-1-Heron")
	if err := heron.SetStep(2); err != nil {
		t.Fatal(err)
	}
	b.Close()
	b = openBook(t, path)

	seats, err := b.League("arena-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seatNames(seats), " "); got != "arena-1-Heron arena-1-Finch" {
		t.Errorf("League(arena-1) = %s, want Heron's session then Finch's", got)
	}
	info, err := seats[1].Info()
	if err != nil || info.League != "arena-1" || info.Seat != "Finch" {
		t.Errorf("Finch's info = %+v, %v", info, err)
	}
	if _, err := b.League("lone"); !errors.Is(err, ErrNotFound) {
		t.Errorf("League of a lone session's name: %v, want ErrNotFound", err)
	}
	if _, err := b.League("nothing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("League(nothing): %v, want ErrNotFound", err)
	}
	lone, _ := b.Session("lone")
	if info, _ := lone.Info(); info.League != "" || info.Seat != "" {
		t.Errorf("a lone session reads league %q seat %q", info.League, info.Seat)
	}
	all, err := b.Leagues()
	if err != nil || len(all) != 1 || all[0].Name != "arena-1" || len(all[0].Seats) != 2 || all[0].Seats[0].Seat != "Heron" {
		t.Errorf("Leagues() = %+v, %v", all, err)
	}
}

func TestSetLeagueRefusesBadNames(t *testing.T) {
	t.Parallel()
	b := leagueBook(t, tempPath(t))
	s, _ := b.Session("lone")
	for _, tc := range []struct{ league, seat, want string }{
		{"", "Heron", "league name is empty"},
		{"arena-1", "", "seat name is empty"},
		{"a/b", "Heron", `league name "a/b" contains '/'`},
		{"arena-1", "He/ron", `seat name "He/ron" contains '/'`},
		{"arena-1", "Blue Heron", `seat name "Blue Heron" contains ' '`},
		{"arena-1", "Heron\t", `contains '\t'`},
		{" arena", "Heron", "starts or ends with a space"},
	} {
		if err := s.SetLeague(tc.league, tc.seat); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetLeague(%q, %q) = %v, want %q", tc.league, tc.seat, err, tc.want)
		}
	}
	// A seat the league has already is refused; a seat of another league, or the same
	// seat set again on its own session, is not.
	if err := s.SetLeague("arena-1", "Heron"); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "arena-1-Heron") {
		t.Errorf("a second Heron in arena-1: %v, want ErrExists naming the first", err)
	}
	if err := s.SetLeague("arena-2", "Heron"); err != nil {
		t.Errorf("Heron in another league: %v", err)
	}
	heron, _ := b.Session("arena-1-Heron")
	if err := heron.SetLeague("arena-1", "Heron"); err != nil {
		t.Errorf("setting a seat's own seat again: %v", err)
	}
	if info, _ := s.Info(); info.League != "arena-2" || info.Seat != "Heron" {
		t.Errorf("after the refusals the session reads %q/%q, want arena-2/Heron", info.League, info.Seat)
	}
}

func TestDeleteLeagueRemovesEverySeat(t *testing.T) {
	t.Parallel()
	b := leagueBook(t, tempPath(t))
	removed, err := b.DeleteLeague("arena-1")
	if err != nil || strings.Join(removed, " ") != "arena-1-Heron arena-1-Finch" {
		t.Fatalf("DeleteLeague = %q, %v", removed, err)
	}
	list, _ := b.List()
	if len(list) != 1 || list[0].Name != "lone" {
		t.Errorf("after DeleteLeague, List() = %+v; want only the lone session", list)
	}
	if _, err := b.DeleteLeague("arena-1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second DeleteLeague: %v, want ErrNotFound", err)
	}
	if _, err := b.DeleteLeague("lone"); !errors.Is(err, ErrNotFound) {
		t.Errorf("DeleteLeague of a lone session: %v, want ErrNotFound", err)
	}
}

func TestExportLeagueNestsEverySeat(t *testing.T) {
	t.Parallel()
	b := leagueBook(t, tempPath(t))
	var out bytes.Buffer
	if err := b.ExportLeague("arena-1", &out); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	for _, want := range []string{
		"# League arena-1\n",
		"| Heron | arena-1-Heron | arena | autopilot |",
		"## Seat Heron: session arena-1-Heron\n", "## Seat Finch: session arena-1-Finch\n",
		"### Notes", "#### Step 1", "Heron looks around", "Finch looks around", "| League | arena-1, seat Finch |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the league's export lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "Heron looks around") > strings.Index(md, "Finch looks around") {
		t.Error("the export does not follow the seats' order")
	}
	if strings.Contains(md, "\n# Session") || strings.Contains(md, "\n## Step") {
		t.Errorf("a seat's headings are not nested under the league's:\n%s", md)
	}
	if err := b.ExportLeague("lone", &out); !errors.Is(err, ErrNotFound) {
		t.Errorf("ExportLeague(lone): %v, want ErrNotFound", err)
	}
}

// Notebooks written before leagues open, have no leagues, and their sessions can be
// made seats.
func TestOldNotebooksHaveNoLeagues(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"v1.db", "v2.db"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "testdata", "notebooks", name))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			ro, err := OpenReadOnly(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			list, err := ro.List()
			if err != nil || len(list) == 0 {
				t.Fatalf("List() = %v, %v", list, err)
			}
			for _, s := range list {
				if s.League != "" || s.Seat != "" {
					t.Errorf("session %s of an old notebook reads league %q seat %q", s.Name, s.League, s.Seat)
				}
			}
			if all, err := ro.Leagues(); err != nil || len(all) != 0 {
				t.Errorf("Leagues() = %+v, %v; want none", all, err)
			}
			s, _ := ro.Session(list[0].Name)
			if err := s.SetLeague("l", "A"); !errors.Is(err, ErrReadOnly) {
				t.Errorf("SetLeague on a read-only book: %v, want ErrReadOnly", err)
			}
			ro.Close()

			b := openBook(t, path)
			s, _ = b.Session(list[0].Name)
			if err := s.SetLeague("old-league", "A"); err != nil {
				t.Fatal(err)
			}
			seats, err := b.League("old-league")
			if err != nil || len(seats) != 1 || seats[0].Name() != list[0].Name {
				t.Errorf("League(old-league) = %v, %v", seats, err)
			}
			if info, err := s.Info(); err != nil || info.Steps != list[0].Steps || info.Records != list[0].Records {
				t.Errorf("SetLeague changed the session's totals: %+v, %v (was %+v)", info, err, list[0])
			}
		})
	}
}
