package game

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// counterWorld is a toy shared world: one number every seat adds to.
type counterWorld struct {
	mu sync.Mutex
	n  int
}

func (w *counterWorld) add(d int) { w.mu.Lock(); w.n += d; w.mu.Unlock() }
func (w *counterWorld) save() ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return []byte(strconv.Itoa(w.n)), nil
}

// registerCounterLeague registers a driver whose league is a counterWorld; it returns
// the world the last OpenLeague opened.
func registerCounterLeague(t *testing.T, name string) **counterWorld {
	t.Helper()
	last := new(*counterWorld)
	RegisterDriver(Driver{Name: name, Summary: "a counter",
		Options: []Option{{Name: "test-start", Kind: OptionInt, Usage: "where a new counter starts"}},
		League: func(_ context.Context, env Env, seats []string) (*League, error) {
			if env.CheckOnly {
				return nil, nil
			}
			w := &counterWorld{n: int(env.Options.Int("test-start"))}
			if env.State != nil {
				n, err := strconv.Atoi(string(env.State))
				if err != nil {
					return nil, err
				}
				w.n = n
			}
			*last = w
			l := &League{Save: w.save}
			for _, s := range seats {
				l.Seats = append(l.Seats, Seat{Opened: &Opened{Title: "counter for " + s, Secrets: []string{"token-" + s}}})
			}
			return l, nil
		}})
	return last
}

func TestLeagueSaveResumeTakesTheNewestWorld(t *testing.T) {
	world := registerCounterLeague(t, "test-counter")
	opts := Values{"test-start": int64(5)}
	ctx := context.Background()
	l, err := OpenLeague(ctx, "test-counter", Env{Options: opts}, []string{"Heron", "Finch"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Seats[0].Name != "Heron" || l.Seats[1].Name != "Finch" || l.Seats[1].Title != "counter for Finch" {
		t.Fatalf("seats = %+v", l.Seats)
	}
	if got := strings.Join(l.Seats[0].Secrets, ","); got != "token-Heron,token-Finch" {
		t.Fatalf("a seat's secrets are every seat's: %q", got)
	}
	(*world).add(1)
	heron, err := l.Seats[0].Save() // 6, saved first
	if err != nil {
		t.Fatal(err)
	}
	(*world).add(10)
	finch, _ := l.Seats[1].Save() // 16, saved last
	states := map[string][]byte{"Heron": heron, "Finch": finch}
	// The seat order may change on resume; the newest save wins whichever seat made it.
	if _, err := OpenLeague(ctx, "test-counter", Env{Options: opts, Resuming: true, SeatStates: states}, []string{"Finch", "Heron"}); err != nil {
		t.Fatal(err)
	}
	if (*world).n != 16 {
		t.Fatalf("resumed the counter at %d, want 16 (the newest save)", (*world).n)
	}
	// Saves after a resume still number after the ones before it.
	l2, _ := OpenLeague(ctx, "test-counter", Env{Options: opts, Resuming: true, SeatStates: states}, []string{"Heron", "Finch"})
	(*world).add(100)
	again, _ := l2.Seats[0].Save()
	OpenLeague(ctx, "test-counter", Env{Options: opts, Resuming: true, SeatStates: map[string][]byte{"Heron": again, "Finch": finch}}, []string{"Heron", "Finch"})
	if (*world).n != 116 {
		t.Fatalf("resumed at %d, want 116", (*world).n)
	}
}

func TestLeagueRefusals(t *testing.T) {
	registerCounterLeague(t, "test-counter2")
	RegisterDriver(Driver{Name: "test-alone", Summary: "single seat only"})
	ctx := context.Background()
	_, err := OpenLeague(ctx, "test-alone", Env{}, []string{"A", "B"})
	if !errors.Is(err, ErrNoLeague) || !strings.Contains(err.Error(), "test-counter2") {
		t.Fatalf("a driver with no league: %v", err)
	}
	cases := map[string][]string{
		"at least one seat": nil,
		"given twice":       {"Heron", "heron"},
		"holds a space":     {"He ron"},
	}
	for want, seats := range cases {
		if _, err := OpenLeague(ctx, "test-counter2", Env{}, seats); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("seats %q: %v, want %q", seats, err, want)
		}
	}
	l, _ := OpenLeague(ctx, "test-counter2", Env{}, []string{"A", "B"})
	saved, _ := l.Seats[0].Save()
	_, err = OpenLeague(ctx, "test-counter2", Env{Resuming: true, SeatStates: map[string][]byte{"A": saved}}, []string{"A", "C"})
	if err == nil || !strings.Contains(err.Error(), "same seats") {
		t.Fatalf("resume with other seats: %v", err)
	}
	_, err = OpenLeague(ctx, "test-counter2", Env{Resuming: true, SeatStates: map[string][]byte{"A": []byte(`{"version":1}`)}}, []string{"A"})
	if err == nil || !strings.Contains(err.Error(), "not a league's") {
		t.Fatalf("resume from a single-seat state: %v", err)
	}
}

func TestRewindSeatStateKeepsTheEnvelope(t *testing.T) {
	registerCounterLeague(t, "test-counter3")
	l, _ := OpenLeague(context.Background(), "test-counter3", Env{}, []string{"A"})
	saved, _ := l.Seats[0].Save()
	d := Driver{Name: "test-counter3", Rewind: func(b []byte, ago time.Duration) ([]byte, error) { return []byte("-1"), nil }}
	back, err := RewindSeatState(d, saved, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	seq, world, _, err := newestLeagueState(map[string][]byte{"A": back}, []string{"A"})
	if err != nil || seq != 1 || string(world) != "-1" {
		t.Fatalf("rewound: %d %q %v", seq, world, err)
	}
	if _, err := RewindSeatState(Driver{Name: "x"}, saved, 0); err == nil {
		t.Fatal("a driver without Rewind rewound")
	}
}

func TestSeatNames(t *testing.T) {
	for _, ok := range []string{"Heron", "a", "Zoë", "finch-2", "LARK_3", "Ωmega", strings.Repeat("x", 32), "allie"} {
		if err := SeatName(ok); err != nil {
			t.Errorf("SeatName(%q): %v", ok, err)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{"", "1 to 32 characters"},
		{strings.Repeat("x", 33), "1 to 32 characters, not 33"},
		{"all", "reserved"},
		{"ALL", "reserved"},
		{"He\u200bron", "U+200B"},        // a zero-width space
		{"Heron\x1b[2J", "U+001B"},       // an escape
		{"\u202eHeron", "U+202E"},        // a right-to-left override
		{"He\u0301ron", "U+0301"},        // a combining mark
		{"鷺", "U+9DFA"},                  // two columns wide
		{"He/ron", "U+002F"},             // a call is SEAT/ID
		{"Blue Heron", "U+0020"},         // a space
		{"Heron\xff", "not valid UTF-8"}, // not text
	} {
		if err := SeatName(tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SeatName(%q): %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	if err := CheckSeats([]string{"Heron", "heron"}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("two seats in two cases: %v", err)
	}
}
