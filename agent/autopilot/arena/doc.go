// Package arena is the autopilot of the arena (game/arena): a Brain that needs no model
// and plays by a few readable rules. Like the SpaceTraders autopilot it goes through the
// same approval gate as a model: every change to the game is a proposed call the person
// approves, vetoes or edits. It reads the world directly (arena.Game.View: reading
// changes nothing), or, for an arena served on another machine and joined (game/join),
// the same view as data (game.Viewer), and decides from scratch each step, in this order:
//
//   - Fight: when a battle its community fights in can still be joined, join it with
//     half its energy (5 to 40, keeping 15 back), eating first when energy is low.
//   - Report: once it fights in a battle, tell the leader, answering the leader's call.
//   - Answer: reply to recent messages to or about it (30 game minutes at most), two a
//     step, oldest first, in words that fit what was said (a call for help, a greeting,
//     a question about battles, a complaint). Before answering a member with a bad shared
//     history it reads their history with the member tool, and answers the next step
//     with an offer to make things right.
//   - Eat: below 35 energy, eat the food held that restores most without waste; with no
//     food, buy two of the food with the most energy per gold (max_price at today's
//     price, so a price that moved is refused rather than paid); with no gold, work a
//     farm shift. With no food and 30 gold or more it stocks up.
//   - Read: once three messages that need no answer are unread, read them.
//   - Work: from 40 energy, when nothing else is to be done and no battle of its
//     community is open, work one shift of the best-paying job that leaves 30 energy.
//   - With no community (the person made it leave), join the one whose leader trusts it
//     most.
//
// With nothing to do it proposes no game calls and says what it waits for (its work to
// end, a battle call, a message); the runner wakes it on the game's triggers.
//
// A call the person vetoed is not proposed again for 10 steps; one the game refused or
// that was invalid, for 3. New advice lifts the vetoes. Advice is kept word for word in
// the notes (section Advice); the autopilot understands only whether the person wants it
// to fight ("don't fight", "stay out of battles", "fight again"). It keeps the notes
// (Situation, Strategy) and the plan current with update_notes and set_plan, writing
// only what changed.
//
// The thresholds above are the balanced temperament's; SetTemperament picks another
// (temper.go): bold commits all the energy it can spare (up to 80, keeping 5) and works
// down to 10, careful fights only from 60 energy, commits at most 15 and eats below 55.
package arena
