// Package autopilot is a Brain that needs no model: a rule-based player of SpaceTraders
// (the real server or coplay's offline universe). It is what coplay plays with when no
// model is configured, and it goes through the same approval gate as a model: every
// change to the game is a proposed tool call the person approves, vetoes or edits.
//
// # How it plays
//
// Each step it reads the game's live world (agent, ships, contracts, the system's
// waypoints and markets; see spacetraders.Game.Snapshot: what the game already knows
// costs no request, and prices where a ship is are read again only when older than
// spacetraders.Game.PriceMaxAge; reading changes nothing), decides one call per ship
// from scratch, and explains each call in a line of plain text. It keeps only what a
// player would remember between looks: market listings and the last prices seen (live
// prices are visible only where a ship is), surveys it made, calls that were vetoed or
// failed, and the advice it was given.
//
// The contract loop, for the ship that can carry cargo:
//
//   - accept the offered contract; when none is open, dock at a faction waypoint and
//     negotiate the next one;
//   - get the contract's good: buy it where a market sells it at a price that keeps the
//     contract profitable (at least 10% margin on the whole payment, and a credit reserve
//     kept back), otherwise mine it at the nearest asteroid whose deposits yield it,
//     surveying first when the ship has a surveyor and no survey rich in the good is at
//     hand; whatever else the laser brings up is sold where the market buys it, or
//     jettisoned when the hold needs the room;
//   - fly to the destination when the hold carries everything still owed or is full,
//     dock, deliver, and fulfil the contract once every unit is delivered;
//   - with no contract work, sell cargo where the market here buys it.
//
// Travel: before leaving a market that sells fuel the ship tops up when its tank is
// under three quarters or the trip would leave it under a quarter. The flight mode is
// BURN when the tank stays at least half full after a burn, CRUISE when the fuel covers
// the trip, DRIFT (one unit of fuel, slow) otherwise; the mode is set before undocking.
//
// The probe (a ship with no tank and no hold) visits the system's markets it has not
// seen, the ones selling the contract's good first, so the buy-or-mine choice is made
// on real prices. It does nothing else.
//
// # Respecting the person
//
// A vetoed call is not proposed again while the ship is where it was when the person
// said no; the autopilot takes the next best option (mine instead of buy, another source,
// another flight mode) or waits and says what it waits for. New advice lifts those
// blocks, since the person may have explained, except a vetoed flight mode: another mode
// always makes the trip, so the identical call is not put back where the person said no.
// A flight mode named in a veto's reason or in advice ("keep CRUISE to save fuel", "don't
// burn") is honoured from then on, wherever the ship goes, as far as the fuel allows
// (modes.go). A call the game refused is not repeated
// unchanged for the next two steps unless the ship's situation changed, so it never loops
// on a failing call.
//
// Advice is folded into the notes (section "Advice") word for word. The autopilot cannot
// understand language and says so; it only recognises a preference for mining or for
// buying ("mine it", "don't buy", "buy the ore") and a flight mode.
//
// Each call carries its own reason (brain.ToolCall.Why), which the screen shows as the
// call's why; the step's text lists them all. It keeps the notes (Situation,
// Strategy, Next, Waiting on) and the plan current with update_notes, set_plan and
// update_step, writing a section only when its content changes.
//
// When every ship is busy (travelling, cooling down) it proposes nothing and says what it
// waits for; the runner then waits until the game's Observation.IdleUntil. When a ship is
// idle but the others are busy, the game may not report an idle time; the autopilot then
// waits inside Next, up to MaxInlineWait, rather than ending the turn with nothing to do.
//
// The reserve and the margin are the balanced temperament's; SetTemperament picks another
// (temper.go): bold keeps 1,000 credits and buys up to the contract's full pay per unit,
// careful keeps 40,000, buys at 30% at most (mining otherwise) and never flies BURN.
package autopilot
