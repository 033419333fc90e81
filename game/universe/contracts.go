package universe

import (
	"github.com/coplayhq/coplay/game/spacetraders/wire"
	"math"
	"slices"
	"strings"
	"time"
)

// This file serves contracts: offers, accept, deliver, fulfil and negotiation.

// Contract deadlines are calendar time and do not scale with the game speed, so a player
// is never rushed by a fast clock.
const (
	contractDeadline = 7 * 24 * time.Hour
	acceptDeadline   = 24 * time.Hour
)

// contractGoods are what procurement contracts ask for: ores a new agent can mine at the
// engineered asteroid near its headquarters or buy at the asteroid's market.
var contractGoods = []string{"IRON_ORE", "COPPER_ORE", "ALUMINUM_ORE"}

// newContract offers a procurement contract delivering to a market in home that imports
// the good.
func (u *Universe) newContract(a *agent, home *system) *contract {
	good := contractGoods[u.rng.IntN(len(contractGoods))]
	dest := a.HQ
	for _, w := range home.Waypoints {
		if w.Market != nil {
			if g := findGood(w.Market, good); g != nil && g.Kind == "IMPORT" {
				dest = w.Symbol
				break
			}
		}
	}
	units := 30 + u.rng.IntN(31)
	value := float64(units * goods[good].base)
	return &contract{
		ID: u.randomID("c", 24), Faction: a.Faction, Type: "PROCUREMENT",
		Deadline: u.now.Add(contractDeadline), DeadlineToAccept: u.now.Add(acceptDeadline),
		OnAccepted: int(math.Round(value * 0.3)), OnFulfilled: int(math.Round(value * 1.6)),
		Deliver: []*deliverGood{{Good: good, Destination: dest, Required: units}},
	}
}

func (u *Universe) lookupContract(c *call) (*contract, *apiError) {
	id := c.r.PathValue("id")
	i := slices.IndexFunc(c.a.Contracts, func(k *contract) bool { return k.ID == id })
	if i < 0 {
		return nil, notFound("Contract %s not found for agent %s.", id, c.a.Symbol)
	}
	return c.a.Contracts[i], nil
}

// inProgress refuses a contract that cannot take deliveries or be fulfilled: done
// already, not accepted, or past its deadline.
func (u *Universe) inProgress(k *contract) *apiError {
	switch {
	case k.Fulfilled:
		return gameErr(codeContractFulfilled, "Contract %s is already fulfilled.", k.ID)
	case !k.Accepted:
		return gameErr(codeContractNotAccepted, "Contract %s has not been accepted.", k.ID)
	case !u.now.Before(k.Deadline):
		return gameErr(codeContractDeadline, "Contract %s passed its deadline at %s.", k.ID, ts(k.Deadline))
	}
	return nil
}

func (u *Universe) getContracts(c *call) (int, any, *apiError) {
	out := []wire.Contract{}
	for _, k := range c.a.Contracts {
		out = append(out, renderContract(k))
	}
	return page(c, out)
}

func (u *Universe) acceptContract(c *call) (int, any, *apiError) {
	k, e := u.lookupContract(c)
	if e != nil {
		return fail(e)
	}
	switch {
	case k.Fulfilled:
		return fail(gameErr(codeContractFulfilled, "Contract %s is already fulfilled.", k.ID))
	case k.Accepted:
		return fail(gameErr(codeContractAccepted, "Contract %s is already accepted.", k.ID))
	case !u.now.Before(k.DeadlineToAccept):
		return fail(gameErr(codeContractDeadline, "Contract %s can no longer be accepted: the offer expired at %s.", k.ID, ts(k.DeadlineToAccept)))
	}
	k.Accepted = true
	c.a.Credits += int64(k.OnAccepted)
	return ok(contractAndAgent(renderContract(k), renderAgent(c.a, true)))
}

func (u *Universe) deliverContract(c *call) (int, any, *apiError) {
	k, e := u.lookupContract(c)
	if e != nil {
		return fail(e)
	}
	var req wire.DeliverRequest
	if e := decode(c, &req, false); e != nil {
		return fail(e)
	}
	if e := atLeastOneUnit(req.Units); e != nil {
		return fail(e)
	}
	s := u.ships[strings.ToUpper(req.ShipSymbol)]
	if s == nil || s.Agent != c.a.Symbol {
		return fail(notFound("Ship %s not found for agent %s.", req.ShipSymbol, c.a.Symbol))
	}
	u.settle(s)
	if e := u.inProgress(k); e != nil {
		return fail(e)
	}
	i := slices.IndexFunc(k.Deliver, func(d *deliverGood) bool { return d.Good == req.TradeSymbol })
	if i < 0 {
		return fail(gameErr(codeDeliverMismatch, "Contract %s does not ask for %s.", k.ID, req.TradeSymbol))
	}
	d := k.Deliver[i]
	if d.Fulfilled >= d.Required {
		return fail(gameErr(codeDeliverFulfilled, "Contract %s already has all %d units of %s.", k.ID, d.Required, d.Good))
	}
	if req.Units > d.Required-d.Fulfilled {
		return fail(gameErr(codeDeliverMismatch, "Contract %s needs %d more units of %s, not %d.", k.ID, d.Required-d.Fulfilled, d.Good, req.Units))
	}
	if e := u.mustDock(s); e != nil {
		return fail(e)
	}
	if s.Waypoint != d.Destination {
		return fail(gameErr(codeDeliverWrongWaypoint, "Ship %s is at %s; contract %s takes %s at %s.", s.Symbol, s.Waypoint, k.ID, d.Good, d.Destination))
	}
	if e := takeCargo(s, d.Good, req.Units); e != nil {
		return fail(e)
	}
	d.Fulfilled += req.Units
	cargo := renderCargo(s)
	return ok(wire.ContractResult{Contract: renderContract(k), Cargo: &cargo})
}

func (u *Universe) fulfillContract(c *call) (int, any, *apiError) {
	k, e := u.lookupContract(c)
	if e != nil {
		return fail(e)
	}
	if e := u.inProgress(k); e != nil {
		return fail(e)
	}
	for _, d := range k.Deliver {
		if d.Fulfilled < d.Required {
			return fail(gameErr(codeContractIncomplete, "Contract %s still needs %d units of %s at %s.", k.ID, d.Required-d.Fulfilled, d.Good, d.Destination))
		}
	}
	k.Fulfilled = true
	c.a.Credits += int64(k.OnFulfilled)
	return ok(contractAndAgent(renderContract(k), renderAgent(c.a, true)))
}

// negotiate offers a new contract to a ship docked at a faction waypoint, once the agent
// has no open contract left.
func (u *Universe) negotiate(c *call) (int, any, *apiError) {
	s, e := u.readyShip(c, u.mustDock)
	if e != nil {
		return fail(e)
	}
	w := u.waypoints[s.Waypoint]
	if w.Faction == "" {
		return fail(gameErr(codeNoFaction, "Waypoint %s has no faction to negotiate a contract with.", w.Symbol))
	}
	for _, k := range c.a.Contracts {
		open := !k.Fulfilled && u.now.Before(k.Deadline) && (k.Accepted || u.now.Before(k.DeadlineToAccept))
		if open {
			return fail(gameErr(codeContractOpen, "Agent %s already has an open contract %s; fulfil it or let it expire first.", c.a.Symbol, k.ID).
				with("contractId", k.ID))
		}
	}
	k := u.newContract(c.a, u.systems[w.System])
	k.Faction = w.Faction
	c.a.Contracts = append(c.a.Contracts, k)
	return created(wire.ContractResult{Contract: renderContract(k)})
}

// contractAndAgent is the answer to accepting or fulfilling a contract.
func contractAndAgent(k wire.Contract, a wire.Agent) wire.ContractResult {
	return wire.ContractResult{Contract: k, Agent: &a}
}
