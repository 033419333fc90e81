package eval

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

var leagueAB = []ProfileID{{"a", "v1"}, {"b", "v1"}}

// episode seats profiles (by name, version v1) with scores, seats named by position.
func episode(seed int64, seats ...any) LeagueEpisode {
	e := LeagueEpisode{Seed: seed, Score: "score"}
	for k := 0; k < len(seats); k += 2 {
		name := []string{"Heron", "Finch", "Lark", "Wren"}[k/2]
		e.Seats = append(e.Seats, SeatResult{Seat: name, Profile: seats[k].(string), Version: "v1", Score: seats[k+1].(float64)})
	}
	return e
}

func mustLeague(t *testing.T, profiles []ProfileID, eps []LeagueEpisode) LeagueReport {
	t.Helper()
	rep, err := League(profiles, eps)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// One episode of two seats is the reference's two-player game (rating_test.go).
func TestLeagueOneEpisodeIsTheModel(t *testing.T) {
	rep := mustLeague(t, leagueAB, []LeagueEpisode{episode(1, "b", 3.0, "a", 10.0)})
	a, b := rep.Profiles[0].Rating, rep.Profiles[1].Rating
	if !near(a.Mu, 27.63523138347365) || !near(b.Mu, 22.36476861652635) || !near(a.Sigma, 8.065506316323548) {
		t.Errorf("ratings a %+v b %+v", a, b)
	}
	if !near(a.Ordinal, a.Mu-3*a.Sigma) || a.Low != a.Ordinal || !near(a.High, a.Mu+3*a.Sigma) {
		t.Errorf("a's interval %+v", a)
	}
	if rep.Profiles[0].Rank != 1 || rep.Profiles[1].Rank != 2 || rep.Profiles[0].FirstPlaces != 1 {
		t.Errorf("ranks %+v", rep.Profiles)
	}
	seats := rep.Episodes[0].Seats
	if seats[0].Seat != "Heron" || seats[0].Profile != "b" || seats[0].Place != 2 || seats[1].Place != 1 {
		t.Errorf("episode seats %+v", seats)
	}
}

// Swapping the seats of tied profiles changes nothing, and neither does the order of
// the seats in the input.
func TestLeagueTieSymmetry(t *testing.T) {
	three := []ProfileID{{"a", "v1"}, {"b", "v1"}, {"c", "v1"}}
	x := mustLeague(t, three, []LeagueEpisode{episode(1, "a", 5.0, "b", 5.0, "c", 1.0), episode(2, "c", 4.0, "a", 4.0, "b", 4.0)})
	y := mustLeague(t, three, []LeagueEpisode{episode(1, "b", 5.0, "a", 5.0, "c", 1.0), episode(2, "b", 4.0, "c", 4.0, "a", 4.0)})
	for i := range three {
		if x.Profiles[i].Rating != y.Profiles[i].Rating {
			t.Errorf("%s: %+v, seats swapped %+v", three[i].Name, x.Profiles[i].Rating, y.Profiles[i].Rating)
		}
	}
	if a, b := x.Profiles[0].Rating, x.Profiles[1].Rating; a != b {
		t.Errorf("tied a %+v and b %+v differ", a, b)
	}
	if x.Profiles[0].Rating.Sigma >= DefaultModel().Sigma {
		t.Errorf("ties taught nothing: %+v", x.Profiles[0].Rating)
	}
}

// A profile that always wins ends above one that always loses, their intervals apart,
// whoever sits where. Head to head that takes 38 episodes: wins and losses between two
// profiles fix the gap between them better than where either one stands; with a third
// profile in the middle it takes 13 (see TestLeagueThreeSeparate).
func TestLeagueWinnerSeparates(t *testing.T) {
	const n = 40
	rng := rand.New(rand.NewPCG(1, 2))
	var eps []LeagueEpisode
	for seed := int64(1); seed <= n; seed++ {
		win, lose := 100+rng.Float64()*50, rng.Float64()*50
		if seed%2 == 0 {
			eps = append(eps, episode(seed, "a", win, "b", lose))
		} else {
			eps = append(eps, episode(seed, "b", lose, "a", win))
		}
	}
	rep := mustLeague(t, leagueAB, eps)
	a, b := rep.Profiles[0].Rating, rep.Profiles[1].Rating
	if a.Low <= b.High {
		t.Errorf("after %d wins, a %.2f..%.2f overlaps b %.2f..%.2f", n, a.Low, a.High, b.Low, b.High)
	}
	if rep.Profiles[0].Rank != 1 || rep.Profiles[0].FirstPlaces != n || rep.Profiles[1].FirstPlaces != 0 {
		t.Errorf("profiles %+v", rep.Profiles)
	}
	if h := rep.Profiles[0].history; len(h) != n+1 || h[n].Mu <= h[1].Mu {
		t.Errorf("a's history %v", h)
	}
}

func TestLeagueThreeSeparate(t *testing.T) {
	three := []ProfileID{{"a", "v1"}, {"b", "v1"}, {"c", "v1"}}
	var eps []LeagueEpisode
	for seed := int64(1); seed <= 15; seed++ {
		eps = append(eps, episode(seed, "c", 1.0, "a", 9.0, "b", 5.0))
	}
	p := mustLeague(t, three, eps).Profiles
	if p[0].Rating.Low <= p[2].Rating.High || p[0].Rank != 1 || p[1].Rank != 2 || p[2].Rank != 3 {
		t.Errorf("after 15 episodes: %+v", p)
	}
}

// The same episodes give the same report, in whatever order they arrive.
func TestLeagueDeterministic(t *testing.T) {
	three := []ProfileID{{"a", "v1"}, {"b", "v1"}, {"c", "v1"}}
	rng := rand.New(rand.NewPCG(3, 4))
	var eps []LeagueEpisode
	for seed := int64(1); seed <= 12; seed++ {
		names := []string{"a", "b", "c"}
		rng.Shuffle(3, func(i, j int) { names[i], names[j] = names[j], names[i] })
		eps = append(eps, episode(seed, names[0], float64(rng.IntN(4)), names[1], float64(rng.IntN(4)), names[2], float64(rng.IntN(4))))
	}
	first, _ := json.Marshal(mustLeague(t, three, eps))
	for range 3 {
		again, _ := json.Marshal(mustLeague(t, three, eps))
		if string(again) != string(first) {
			t.Fatalf("a second run differs:\n%s\n%s", first, again)
		}
	}
	rev := make([]LeagueEpisode, len(eps))
	for i, e := range eps {
		rev[len(eps)-1-i] = e
	}
	if got, _ := json.Marshal(mustLeague(t, three, rev)); string(got) != string(first) {
		t.Errorf("episodes in reverse order differ:\n%s\n%s", first, got)
	}
}

// The counts, rates, means and standard errors per profile.
func TestLeagueStats(t *testing.T) {
	e1 := episode(1, "a", 10.0, "b", 4.0)
	e1.Seats[0].Proposed, e1.Seats[0].Invalid, e1.Seats[0].Acts, e1.Seats[0].Vetoes, e1.Seats[0].Edits, e1.Seats[0].Advice = 20, 2, 40, 1, 1, 2
	e1.Seats[1].Error = "model call failed"
	e2 := episode(2, "b", 8.0, "a", 20.0)
	e2.Seats[1].Proposed, e2.Seats[1].Invalid, e2.Seats[1].Acts, e2.Seats[1].Advice = 20, 1, 60, 1
	e3 := episode(3, "a", 0.0, "b", 0.0)
	e3.Seats[0].Proposed, e3.Seats[0].Acts = 99, 99
	e3.Error = "the world did not start"
	rep := mustLeague(t, leagueAB, []LeagueEpisode{e1, e2, e3})
	a, b := rep.Profiles[0], rep.Profiles[1]
	if a.Episodes != 3 || a.Seats != 2 || !reflect.DeepEqual(a.Seeds, []int64{1, 2, 3}) || a.Errors != 1 || b.Errors != 2 {
		t.Errorf("a %+v b %+v", a, b)
	}
	if a.ScoreMean != 15 || a.ScoreSE == nil || !near(*a.ScoreSE, 5) || b.ScoreMean != 6 || !near(*b.ScoreSE, 2) {
		t.Errorf("scores a %v±%v b %v±%v", a.ScoreMean, a.ScoreSE, b.ScoreMean, b.ScoreSE)
	}
	if a.Proposed != 40 || a.Invalid != 3 || !near(*a.InvalidRate, 0.075) || a.Acts != 100 || a.Interventions != 5 || !near(*a.InterventionsPer100, 5) {
		t.Errorf("a's calls %+v", a)
	}
	if b.InvalidRate != nil || b.InterventionsPer100 != nil {
		t.Errorf("b proposed nothing, yet has rates %v %v", b.InvalidRate, b.InterventionsPer100)
	}
	if rep.Episodes[2].Seats[0].Place != 0 || len(a.history) != 3 {
		t.Errorf("the failed episode was rated: %+v, history %v", rep.Episodes[2], a.history)
	}
	one := mustLeague(t, leagueAB, []LeagueEpisode{episode(1, "a", 1.0)})
	if one.Profiles[0].ScoreSE != nil || one.Profiles[0].Rating.Mu != 25 || one.Profiles[1].Seeds == nil {
		t.Errorf("one seat: %+v", one.Profiles)
	}
}

// A profile in two seats of one episode, one winning and one losing, stays where it was.
func TestLeagueProfileSeatedTwice(t *testing.T) {
	rep := mustLeague(t, leagueAB[:1], []LeagueEpisode{episode(1, "a", 5.0, "a", 1.0)})
	a := rep.Profiles[0]
	if !near(a.Rating.Mu, 25) || a.Rating.Sigma >= DefaultModel().Sigma || a.Seats != 2 || a.Episodes != 1 || a.FirstPlaces != 1 {
		t.Errorf("a seated twice: %+v", a)
	}
}

func TestLeagueBadInput(t *testing.T) {
	nan := episode(4, "a", 1.0, "b", 0.0)
	nan.Seats[1].Score = nan.Seats[1].Score / nan.Seats[1].Score // 0/0
	twice := episode(5, "a", 1.0, "b", 0.0)
	twice.Seats[1].Seat = "Heron"
	unnamed := episode(6, "a", 1.0)
	unnamed.Seats[0].Seat = ""
	for _, c := range []struct {
		profiles []ProfileID
		ep       LeagueEpisode
		want     string
	}{
		{leagueAB, episode(3, "a", 1.0, "z", 0.0), "seat Finch plays z@v1, which is not a profile"},
		{leagueAB, nan, "seat Finch has no score"},
		{leagueAB, twice, "two seats are named Heron"},
		{leagueAB, unnamed, "a seat has no name"},
		{append(leagueAB, leagueAB[0]), episode(1, "a", 1.0), "profile a@v1 is in the league twice"},
	} {
		_, err := League(c.profiles, []LeagueEpisode{c.ep})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("League = %v, want an error with %q", err, c.want)
		}
	}
}

// FuzzLeague: any scores and seatings give a report or an error, never a panic, and
// ratings that are numbers with a sigma no wider than a new profile's.
func FuzzLeague(f *testing.F) {
	f.Add([]byte{0, 5, 1, 5, 2, 1, 255, 0, 0, 3, 1, 3})
	f.Add([]byte{1, 200, 1, 200})
	f.Fuzz(func(t *testing.T, data []byte) {
		three := []ProfileID{{"a", "v1"}, {"b", "v1"}, {"c", "v1"}}
		var eps []LeagueEpisode
		e := LeagueEpisode{Seed: 1}
		for k := 0; k+1 < len(data); k += 2 {
			if data[k] == 255 { // a new episode
				eps, e = append(eps, e), LeagueEpisode{Seed: int64(len(eps) + 2)}
				continue
			}
			p := three[int(data[k])%3]
			e.Seats = append(e.Seats, SeatResult{Seat: string(rune('A' + len(e.Seats))), Profile: p.Name, Version: p.Version, Score: float64(int8(data[k+1]))})
		}
		rep, err := League(three, append(eps, e))
		if err != nil {
			return
		}
		for _, p := range rep.Profiles {
			r := p.Rating
			if math.IsNaN(r.Mu) || math.IsInf(r.Mu, 0) || !(r.Sigma > 0) || r.Sigma > DefaultModel().Sigma {
				t.Fatalf("%s: %+v", p.Profile, r)
			}
		}
	})
}

// A seat's events counted as the league runner reads them from its journal.
func TestSeatResultCount(t *testing.T) {
	act := &agent.Call{ID: "c1", Tool: "move", Kind: game.Act}
	look := &agent.Call{ID: "c2", Tool: "look", Kind: game.Read}
	bad := &agent.Call{ID: "c3", Tool: "move", Kind: game.Act, Problems: []game.Problem{{Path: "arguments.x", Expected: "a number"}}}
	var s SeatResult
	for _, ev := range []agent.Event{
		{Type: agent.EventProposed, Call: act}, {Type: agent.EventProposed, Call: look}, {Type: agent.EventProposed, Call: bad},
		{Type: agent.EventDecision, Decision: &agent.Decision{CallID: "c1", Decision: agent.Edit, By: "person"}},
		{Type: agent.EventToolStart, Call: act}, {Type: agent.EventToolStart, Call: look},
		{Type: agent.EventDecision, Decision: &agent.Decision{CallID: "c4", Decision: agent.Veto, By: "person"}},
		{Type: agent.EventDecision, Decision: &agent.Decision{CallID: "c5", Decision: agent.Veto, By: "rule"}},
		{Type: agent.EventDecision, Decision: &agent.Decision{CallID: "c6", Decision: agent.Approve, By: "person"}},
		{Type: agent.EventAdvice, Text: "sell first"}, {Type: agent.EventStep},
		{Type: agent.EventToolStart, Call: &agent.Call{ID: "m1", Tool: "move", Kind: game.Act, By: agent.ByPerson}},
		{Type: agent.EventQuestion, Text: "why?"}, {Type: agent.EventReply, Text: "because"},
	} {
		s.Count(ev)
	}
	// The person's own move is an intervention, not the seat's action.
	want := SeatResult{Proposed: 3, Invalid: 1, Acts: 1, Vetoes: 1, Edits: 1, Advice: 1, Moves: 1, Questions: 1}
	if s != want {
		t.Errorf("counted %+v, want %+v", s, want)
	}
}
