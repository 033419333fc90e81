package universe

import (
	"math"
	"time"
)

// marketDriftTime is the game time over which a market recovers about two thirds of the
// way back to its usual supply after trades.
const marketDriftTime = 30 * time.Minute

// tradeImpact is how far one full trade volume moves a good's supply level.
const tradeImpact = 0.2

// priceFactor maps supply (0 scarce .. 4 abundant) to a multiple of the base price.
func priceFactor(supply float64) float64 { return 1.5 - 0.25*supply }

// prices returns what an agent pays to buy one unit and receives for selling one.
func prices(g *marketGood) (purchase, sell int) {
	base := float64(goods[g.Symbol].base) * priceFactor(g.Supply)
	return max(1, int(math.Round(base*1.04))), max(1, int(math.Round(base*0.96)))
}

func supplyLevel(s float64) string {
	switch {
	case s < 0.5:
		return "SCARCE"
	case s < 1.5:
		return "LIMITED"
	case s < 2.5:
		return "MODERATE"
	case s < 3.5:
		return "HIGH"
	default:
		return "ABUNDANT"
	}
}

// drift pulls a good's supply back toward its equilibrium for the time since it was last
// touched. Computing it lazily keeps the market deterministic for a given clock.
func (u *Universe) drift(g *marketGood) {
	dt := u.now.Sub(g.Updated)
	if dt <= 0 {
		return
	}
	k := math.Exp(-float64(dt) / float64(u.game(marketDriftTime)))
	g.Supply = g.Equilibrium + (g.Supply-g.Equilibrium)*k
	g.Updated = u.now
}

// trade moves supply after units change hands: buying drains it, selling floods it.
func (u *Universe) trade(g *marketGood, units int, buying bool) {
	d := tradeImpact * float64(units) / float64(goods[g.Symbol].volume)
	if buying {
		d = -d
	}
	g.Supply = min(4, max(0, g.Supply+d))
	g.Updated = u.now
}

func findGood(m *market, symbol string) *marketGood {
	for _, g := range m.Goods {
		if g.Symbol == symbol {
			return g
		}
	}
	return nil
}

// record keeps the market's recent transactions, newest last, bounded.
func (u *Universe) record(m *market, t *transaction) {
	m.Transactions = append(m.Transactions, t)
	if n := len(m.Transactions); n > 20 {
		m.Transactions = append(m.Transactions[:0:0], m.Transactions[n-20:]...)
	}
}
