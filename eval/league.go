package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// SeatResult is what one seat of a league episode did, as the league runner reads it
// from the seat's journal. It is both League's input and, with its place, the report's
// record of the seat.
type SeatResult struct {
	// Seat is the seat's name (the arena member or universe agent it plays as).
	Seat string `json:"seat"`
	// Profile and Version name the profile in the seat, as in ProfileID.
	Profile string `json:"profile"`
	Version string `json:"version"`
	// Community is the arena community the seat started in ("" in worlds without).
	Community string `json:"community,omitempty"`
	// Score is the seat's score at the end of the episode (the episode's metric).
	Score float64 `json:"score"`
	// Steps counts the steps the seat played.
	Steps int `json:"steps"`
	// Proposed counts the calls the seat's brain proposed; Invalid those of them that
	// failed validation and never ran.
	Proposed int `json:"calls_proposed"`
	Invalid  int `json:"invalid_calls"`
	// Acts counts the Act calls that ran: the seat's actions.
	Acts int `json:"acts"`
	// Vetoes, Edits, Advice, Moves and Questions count the person's interventions on
	// the seat: calls refused, calls edited before they ran, advice sent to the seat,
	// the person's own moves at the seat (not its actions) and questions asked of it.
	Vetoes    int `json:"vetoes"`
	Edits     int `json:"edits"`
	Advice    int `json:"advice"`
	Moves     int `json:"moves"`
	Questions int `json:"questions"`
	// Error says why the seat stopped early, if it did. Its score still counts: a
	// profile whose brain fails has played badly.
	Error string `json:"error,omitempty"`
}

// Count counts one of the seat's events (live, or read back from its journal) into
// its calls, actions and the person's interventions: a proposed call (invalid when it
// has problems), an Act call that starts to run, a person's veto or edit, advice, the
// person's own move and question.
// Score, Seat, Profile and Error are the caller's to fill.
func (s *SeatResult) Count(ev agent.Event) {
	switch ev.Type {
	case agent.EventProposed:
		s.Proposed++
		if ev.Call != nil && len(ev.Call.Problems) > 0 {
			s.Invalid++
		}
	case agent.EventToolStart:
		switch {
		case ev.Call == nil:
		case ev.Call.By == agent.ByPerson:
			s.Moves++ // the person played it: an intervention, not the seat's action
		case ev.Call.Kind == game.Act:
			s.Acts++
		}
	case agent.EventQuestion:
		s.Questions++
	case agent.EventDecision:
		if ev.Decision == nil || ev.Decision.By != "person" {
			return
		}
		switch ev.Decision.Decision {
		case agent.Veto:
			s.Vetoes++
		case agent.Edit:
			s.Edits++
		}
	case agent.EventAdvice:
		s.Advice++
	}
}

// LeagueEpisode is one world of a league: every profile seated, on one seed.
type LeagueEpisode struct {
	Seed int64 `json:"seed"`
	// Score names the metric the seats are scored by ("score" in the arena, "credits"
	// in the universe).
	Score string       `json:"score"`
	Seats []SeatResult `json:"seats"`
	// Error says why the episode as a whole failed (the world did not start); such an
	// episode is listed, but neither rated, scored nor counted.
	Error string `json:"error,omitempty"`
}

// SeatOutcome is a seat in the report: what it did and where it placed (1 = best;
// seats with equal scores share a place; 0 when the episode failed).
type SeatOutcome struct {
	SeatResult
	Place int `json:"place"`
}

// LeagueEpisodeResult is an episode in the report, its seats in seat order.
type LeagueEpisodeResult struct {
	Seed  int64         `json:"seed"`
	Seats []SeatOutcome `json:"seats"`
	Error string        `json:"error,omitempty"`
}

// SkillRating is a profile's rating with its uncertainty.
type SkillRating struct {
	Mu    float64 `json:"mu"`
	Sigma float64 `json:"sigma"`
	// Ordinal is the conservative rating shown, mu − 3·sigma: the profile's skill is
	// above it with 99.87% belief. Profiles are ranked by it.
	Ordinal float64 `json:"ordinal"`
	// Low and High bound the skill's interval, mu ∓ 3·sigma (Low equals Ordinal).
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// LeagueProfile aggregates one profile's seats over the league. Counts are totals over
// its seats, and rates are ratios of totals (so a long episode weighs more than a short
// one, as each call and action counts once).
type LeagueProfile struct {
	Profile  string  `json:"profile"`
	Version  string  `json:"version"`
	Episodes int     `json:"episodes"` // episodes it was seated in (failed ones too)
	Seats    int     `json:"seats"`    // seats it played in scored episodes (several per episode if seated twice)
	Seeds    []int64 `json:"seeds"`
	// ScoreMean is the mean of its seats' scores; ScoreSE its standard error (the
	// sample deviation over √seats), null with fewer than two seats.
	ScoreMean float64     `json:"score_mean"`
	ScoreSE   *float64    `json:"score_se"`
	Rating    SkillRating `json:"rating"`
	// Rank orders the profiles by Rating.Ordinal, 1 the highest.
	Rank int `json:"rank"`
	// FirstPlaces counts the scored episodes where a seat of it placed first (ties too).
	FirstPlaces int `json:"first_places"`
	Proposed    int `json:"calls_proposed"`
	Invalid     int `json:"invalid_calls"`
	Acts        int `json:"acts"`
	// Interventions are the person's vetoes, edits, advice, moves and questions on its
	// seats.
	Interventions int `json:"interventions"`
	// InvalidRate is Invalid / Proposed; null when it proposed no call.
	InvalidRate *float64 `json:"invalid_call_rate"`
	// InterventionsPer100 is 100 · Interventions / Acts; null when no Act ran.
	InterventionsPer100 *float64 `json:"interventions_per_100_actions"`
	Errors              int      `json:"errors"` // its seats that stopped early, and failed episodes it was in

	history []Rating // its rating before the first scored episode and after each
}

// LeagueReport is a league's result, as `coplay eval --league --json` prints it.
type LeagueReport struct {
	// Score names the metric the seats were scored by.
	Score string `json:"score"`
	// RatingModel names how Rating was computed.
	RatingModel string                `json:"rating_model"`
	Episodes    []LeagueEpisodeResult `json:"episodes"`
	Profiles    []LeagueProfile       `json:"profiles"`
}

// RatingModelName is LeagueReport.RatingModel for DefaultModel.
const RatingModelName = "openskill plackett-luce (Weng-Lin 2011), tau 0; ordinal = mu - 3 sigma"

// League rates and summarizes a league's episodes, profiles in the order given. The
// episodes are taken in the order of their seeds (equal seeds keep the order given), so
// that episodes played in parallel give the same report whichever ended first; for the
// same episodes the report is the same. It fails, changing nothing, on a seat whose
// profile is not in profiles, an episode with two seats of one name, or a score that is
// not a number.
func League(profiles []ProfileID, eps []LeagueEpisode) (LeagueReport, error) {
	if err := checkLeague(profiles, eps); err != nil {
		return LeagueReport{}, err
	}
	eps = slices.Clone(eps)
	slices.SortStableFunc(eps, func(a, b LeagueEpisode) int { return cmp.Compare(a.Seed, b.Seed) })
	m := DefaultModel()
	rep := LeagueReport{RatingModel: RatingModelName, Episodes: []LeagueEpisodeResult{}, Profiles: make([]LeagueProfile, len(profiles))}
	index := map[ProfileID]int{}
	for i, p := range profiles {
		index[p] = i
		rep.Profiles[i] = LeagueProfile{Profile: p.Name, Version: p.Version, Seeds: []int64{}, history: []Rating{m.New()}}
	}
	scores := make([][]float64, len(profiles))
	for _, e := range eps {
		rep.Score = cmp.Or(rep.Score, e.Score)
		res := LeagueEpisodeResult{Seed: e.Seed, Error: e.Error, Seats: make([]SeatOutcome, len(e.Seats))}
		var place []int
		if e.Error == "" {
			place = rateEpisode(m, rep.Profiles, index, e.Seats)
		}
		for k, s := range e.Seats {
			res.Seats[k].SeatResult = s
			i := index[ProfileID{s.Profile, s.Version}]
			if place != nil {
				res.Seats[k].Place = place[k]
				scores[i] = append(scores[i], s.Score)
			}
			rep.Profiles[i].addSeat(s, e, res.Seats[k].Place)
		}
		rep.Episodes = append(rep.Episodes, res)
	}
	for i := range rep.Profiles {
		rep.Profiles[i].finish(scores[i], m.Z)
	}
	rankProfiles(rep.Profiles)
	return rep, nil
}

// checkLeague finds what League cannot rate.
func checkLeague(profiles []ProfileID, eps []LeagueEpisode) error {
	known := map[ProfileID]bool{}
	for _, p := range profiles {
		if known[p] {
			return fmt.Errorf("profile %s@%s is in the league twice", p.Name, p.Version)
		}
		known[p] = true
	}
	for _, e := range eps {
		seen := map[string]bool{}
		for _, s := range e.Seats {
			switch {
			case s.Seat == "":
				return fmt.Errorf("seed %d: a seat has no name", e.Seed)
			case seen[s.Seat]:
				return fmt.Errorf("seed %d: two seats are named %s", e.Seed, s.Seat)
			case !known[ProfileID{s.Profile, s.Version}]:
				return fmt.Errorf("seed %d: seat %s plays %s@%s, which is not a profile of the league", e.Seed, s.Seat, s.Profile, s.Version)
			case math.IsNaN(s.Score) || math.IsInf(s.Score, 0):
				return fmt.Errorf("seed %d: seat %s has no score (%v)", e.Seed, s.Seat, s.Score)
			}
			seen[s.Seat] = true
		}
	}
	return nil
}

// rateEpisode updates the ratings of the profiles seated in one episode and returns
// each seat's place. Each seat is a player of the game; a profile seated twice gets the
// sum of its seats' moves in mu and the product of their shrinkings of sigma², all from
// its rating before the episode (two seats of one profile that win and lose cancel out).
func rateEpisode(m Model, profs []LeagueProfile, index map[ProfileID]int, seats []SeatResult) []int {
	scores := make([]float64, len(seats))
	prior := make([]Rating, len(seats))
	before := map[int]Rating{}
	for k, s := range seats {
		i := index[ProfileID{s.Profile, s.Version}]
		if _, ok := before[i]; !ok {
			before[i] = m.drift(profs[i].current())
		}
		prior[k], scores[k] = before[i], s.Score
	}
	post := m.update(prior, scores)
	after := map[int]Rating{}
	for k, s := range seats {
		i := index[ProfileID{s.Profile, s.Version}]
		r, ok := after[i]
		if !ok {
			r = before[i]
		}
		r.Mu += post[k].Mu - prior[k].Mu
		if prior[k].Sigma > 0 {
			r.Sigma *= post[k].Sigma / prior[k].Sigma
		}
		after[i] = r
	}
	for i := range profs {
		r, ok := after[i]
		if !ok || len(seats) < 2 {
			r = profs[i].current() // not seated, or a game of one: nothing learnt
		}
		profs[i].history = append(profs[i].history, r)
	}
	return Places(scores)
}

// current is the profile's rating after the episodes rated so far.
func (p *LeagueProfile) current() Rating { return p.history[len(p.history)-1] }

// addSeat counts one seat of the profile; place is 0 in a failed episode.
func (p *LeagueProfile) addSeat(s SeatResult, e LeagueEpisode, place int) {
	if !slices.Contains(p.Seeds, e.Seed) {
		p.Episodes++
		p.Seeds = append(p.Seeds, e.Seed)
		if e.Error != "" {
			p.Errors++
		}
	}
	if s.Error != "" {
		p.Errors++
	}
	if place == 0 {
		return
	}
	p.Seats++
	if place == 1 {
		p.FirstPlaces++
	}
	p.Proposed += s.Proposed
	p.Invalid += s.Invalid
	p.Acts += s.Acts
	p.Interventions += s.Vetoes + s.Edits + s.Advice + s.Moves + s.Questions
}

// finish computes the profile's means, rates and rating from its totals.
func (p *LeagueProfile) finish(scores []float64, z float64) {
	mean, se := meanSE(scores)
	p.ScoreMean, p.ScoreSE = mean, se
	p.InvalidRate = ratio(float64(p.Invalid), float64(p.Proposed))
	p.InterventionsPer100 = ratio(100*float64(p.Interventions), float64(p.Acts))
	r := p.current()
	p.Rating = SkillRating{Mu: r.Mu, Sigma: r.Sigma, Ordinal: r.Ordinal(z), Low: r.Mu - z*r.Sigma, High: r.Mu + z*r.Sigma}
}

// meanSE is the mean of xs and its standard error (nil for fewer than two values).
func meanSE(xs []float64) (float64, *float64) {
	if len(xs) == 0 {
		return 0, nil
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if len(xs) < 2 {
		return mean, nil
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	se := math.Sqrt(ss/float64(len(xs)-1)) / math.Sqrt(float64(len(xs)))
	return mean, &se
}

// ratio is a/b, or nil when b is 0.
func ratio(a, b float64) *float64 {
	if b == 0 {
		return nil
	}
	r := a / b
	return &r
}

// rankProfiles numbers the profiles by their conservative rating, highest first;
// equal ratings share a rank.
func rankProfiles(ps []LeagueProfile) {
	ords := make([]float64, len(ps))
	for i, p := range ps {
		ords[i] = p.Rating.Ordinal
	}
	for i, pl := range Places(ords) {
		ps[i].Rank = pl
	}
}
