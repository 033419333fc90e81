package eval

import (
	"math"
	"sort"
)

// Why Weng-Lin Plackett-Luce (OpenSkill) rates a league:
//
//   - A league episode seats several profiles in one world and ends with a score per
//     seat: a ranking of k players, not a pair. Plackett-Luce rates the whole ranking at
//     once (the winner was picked first from everyone, the second from the rest, …);
//     Elo must split it into k(k−1)/2 pairs that are not independent, and needs a
//     bootstrap over episodes for an interval.
//   - Each rating is a Gaussian belief, mu ± sigma, updated in closed form (Weng & Lin,
//     "A Bayesian Approximation Method for Online Ranking", JMLR 12, 2011, Algorithm 4),
//     so the uncertainty comes with the rating, as TextArena's TrueSkill gives it, without
//     TrueSkill's factor graph (and its patent) or a bootstrap.
//   - Ties are part of the model (tied players share a rank; a tie moves neither mean
//     but still teaches: both sigmas shrink), which matters for games whose scores often
//     end level.
//   - It is what the OpenSkill libraries implement, so the math is checked against their
//     published numbers (rating_test.go), and the AI Diplomacy and Among Us studies
//     report ratings of this family with intervals.
//
// The rating shown is the conservative mu − 3σ (OpenSkill's "ordinal"): a profile ranks
// high only once the games have shown it is good, not while it is merely unknown.

// Rating is a belief about a player's skill: a Gaussian of mean Mu and deviation Sigma.
type Rating struct {
	Mu    float64 `json:"mu"`
	Sigma float64 `json:"sigma"`
}

// Ordinal is the conservative rating mu − z·sigma: the skill is above it with
// probability 99.87% for z = 3.
func (r Rating) Ordinal(z float64) float64 { return r.Mu - z*r.Sigma }

// Model holds the Weng-Lin parameters. DefaultModel has OpenSkill's values, except Tau.
type Model struct {
	// Mu and Sigma are a new player's rating (OpenSkill: 25 and 25/3).
	Mu, Sigma float64
	// Beta is the spread of one game's performance around the skill (OpenSkill: 25/6).
	Beta float64
	// Kappa keeps a sigma from reaching zero (OpenSkill: 0.0001).
	Kappa float64
	// Tau is added to each sigma (in quadrature) before a game, so that a skill that
	// drifts over time can be followed. OpenSkill uses 25/300; DefaultModel uses 0,
	// because a profile's skill does not change between the seeds of one league, and
	// a tau would widen every interval by an amount that only reflects the number of
	// episodes played.
	Tau float64
	// Z is how many sigmas the conservative rating and the interval span (3).
	Z float64
}

// DefaultModel is OpenSkill's Plackett-Luce with no drift (Tau = 0).
func DefaultModel() Model {
	return Model{Mu: 25, Sigma: 25.0 / 3, Beta: 25.0 / 6, Kappa: 0.0001, Tau: 0, Z: 3}
}

// New is a new player's rating.
func (m Model) New() Rating { return Rating{Mu: m.Mu, Sigma: m.Sigma} }

// Rate updates the ratings of the players of one free-for-all game from their scores
// (higher is better; equal scores tie), as OpenSkill's PlackettLuce.rate does with
// one-player teams. ratings and scores are in the same order, which does not matter to
// the outcome. A game of fewer than two players changes nothing.
func (m Model) Rate(ratings []Rating, scores []float64) []Rating {
	prior := make([]Rating, len(ratings))
	for i, r := range ratings {
		prior[i] = m.drift(r)
	}
	return m.update(prior, scores)
}

// drift widens a rating by Tau, for the time that passed before a game.
func (m Model) drift(r Rating) Rating {
	r.Sigma = math.Hypot(r.Sigma, m.Tau)
	return r
}

// update is Weng & Lin's Algorithm 4 (Plackett-Luce) for one-player teams: with
// c² = Σ(σ² + β²), C_q = the players placed no better than q, A_q = the players placed
// level with q, and p_iq = e^(μ_i/c) / Σ_{s∈C_q} e^(μ_s/c), player i moves by
//
//	Ω_i = σ_i²/c · Σ_{q: place(q) ≤ place(i)} ([q = i] − p_iq) / A_q
//	Δ_i = γ_i · σ_i²/c² · Σ_{q: place(q) ≤ place(i)} p_iq(1 − p_iq) / A_q,  γ_i = σ_i/c
//
// to μ_i + Ω_i and σ_i·√max(1 − Δ_i, κ).
func (m Model) update(rs []Rating, scores []float64) []Rating {
	out := append([]Rating(nil), rs...)
	if len(rs) < 2 {
		return out
	}
	place := Places(scores)
	c2 := 0.0
	for _, r := range rs {
		c2 += r.Sigma*r.Sigma + m.Beta*m.Beta
	}
	c := math.Sqrt(c2)
	e := make([]float64, len(rs))
	for i, r := range rs {
		e[i] = math.Exp(r.Mu / c)
	}
	sumQ, a := make([]float64, len(rs)), make([]float64, len(rs))
	for q := range rs {
		for s := range rs {
			if place[s] >= place[q] {
				sumQ[q] += e[s]
			}
			if place[s] == place[q] {
				a[q]++
			}
		}
	}
	for i, r := range rs {
		omega, delta := 0.0, 0.0
		for q := range rs {
			if place[q] > place[i] {
				continue
			}
			p := e[i] / sumQ[q]
			delta += p * (1 - p) / a[q]
			if q == i {
				omega += (1 - p) / a[q]
			} else {
				omega -= p / a[q]
			}
		}
		s2 := r.Sigma * r.Sigma
		gamma := r.Sigma / c
		out[i].Mu = r.Mu + omega*s2/c
		out[i].Sigma = r.Sigma * math.Sqrt(math.Max(1-gamma*delta*s2/c2, m.Kappa))
	}
	return out
}

// Places ranks scores for a competition, higher first, ties sharing a place: scores
// 5, 9, 5, 1 are places 2, 1, 2, 4.
func Places(scores []float64) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	place := make([]int, len(scores))
	for k, i := range idx {
		if k > 0 && scores[i] == scores[idx[k-1]] {
			place[i] = place[idx[k-1]]
		} else {
			place[i] = k + 1
		}
	}
	return place
}
