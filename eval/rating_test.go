package eval

import (
	"math"
	"testing"
)

// The known answers below are what the reference implementation prints: the npm
// package openskill 5.0.1 (philihp/openskill.js, a port of openskill.py), run as
//
//	const { rating, rate } = require('openskill')
//	rate([[rating()], [rating()]], { tau: 0 })                       // "2 players"
//	rate([[rating()], [rating()], [rating()]], { tau: 0 })           // "3 players"
//	rate([[r], [r], [r], [r]], { tau: 0, rank: [1, 2, 2, 4] })       // "ranks 1 2 2 4"
//	rate([[r], [r]], { tau: 0, rank: [1, 1] })                       // "a tie"
//	rate([[rating({mu: 30, sigma: 5})], [rating({mu: 22, sigma: 7})],
//	      [rating({mu: 25, sigma: 3})]], { tau: 0, score: [5, 5, 9] }) // "uneven, tied"
//	rate([[rating()], [rating()]])                                    // "with tau" (tau 25/300)
//
// The first two are also in openskill.js's own tests (src/models/__tests__/plackett-luce.test.ts).
func TestRateKnownAnswers(t *testing.T) {
	m := DefaultModel()
	n := m.New()
	withTau := m
	withTau.Tau = 25.0 / 300
	cases := []struct {
		name   string
		model  Model
		in     []Rating
		scores []float64
		want   []Rating
	}{
		{"2 players", m, []Rating{n, n}, []float64{2, 1},
			[]Rating{{27.63523138347365, 8.065506316323548}, {22.36476861652635, 8.065506316323548}}},
		{"3 players", m, []Rating{n, n, n}, []float64{3, 2, 1},
			[]Rating{{27.868876552746237, 8.204837030780652}, {25.717219138186557, 8.057829747583874}, {21.413904309067206, 8.057829747583874}}},
		{"3 players, seats in another order", m, []Rating{n, n, n}, []float64{10, 30, 20},
			[]Rating{{21.413904309067206, 8.057829747583874}, {27.868876552746237, 8.204837030780652}, {25.717219138186557, 8.057829747583874}}},
		{"ranks 1 2 2 4", m, []Rating{n, n, n, n}, []float64{4, 3, 3, 1},
			[]Rating{{27.795084971874736, 8.263160757613477}, {24.68943500312503, 8.179213704945203}, {24.68943500312503, 8.179213704945203}, {22.826045021875203, 8.179213704945203}}},
		{"a tie", m, []Rating{n, n}, []float64{7, 7},
			[]Rating{{25, 8.065506316323548}, {25, 8.065506316323548}}},
		{"uneven, tied", m, []Rating{{30, 5}, {22, 7}, {25, 3}}, []float64{5, 5, 9},
			[]Rating{{28.644650487389303, 4.905290030489372}, {21.71421222584258, 6.685956220005442}, {25.540417456527948, 2.994556256554602}}},
		{"with tau", withTau, []Rating{n, n}, []float64{1, 0},
			[]Rating{{27.635389493140497, 8.06590141354368}, {22.364610506859503, 8.06590141354368}}},
		{"one player", m, []Rating{n}, []float64{1}, []Rating{n}},
	}
	for _, c := range cases {
		got := c.model.Rate(c.in, c.scores)
		for i := range c.want {
			if !near(got[i].Mu, c.want[i].Mu) || !near(got[i].Sigma, c.want[i].Sigma) {
				t.Errorf("%s: player %d = %+v, want %+v", c.name, i, got[i], c.want[i])
			}
		}
	}
}

// TestRateSequence plays A > B > C and then C > A, as the reference does with
//
//	[A, B, C] = rate([A, B, C], { tau: 0 }); [C, A] = rate([C, A], { tau: 0 })
func TestRateSequence(t *testing.T) {
	m := DefaultModel()
	r := m.Rate([]Rating{m.New(), m.New(), m.New()}, []float64{3, 2, 1})
	ca := m.Rate([]Rating{r[2], r[0]}, []float64{1, 0})
	want := []Rating{{24.626549157944456, 7.9541685058777185}, {25.717219138186557, 8.057829747583874}, {24.541086046858528, 7.8248428543902895}}
	for i, got := range []Rating{ca[1], r[1], ca[0]} {
		if !near(got.Mu, want[i].Mu) || !near(got.Sigma, want[i].Sigma) {
			t.Errorf("player %d = %+v, want %+v", i, got, want[i])
		}
	}
}

func TestPlaces(t *testing.T) {
	got := Places([]float64{5, 9, 5, 1})
	want := []int{2, 1, 2, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Places = %v, want %v", got, want)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
