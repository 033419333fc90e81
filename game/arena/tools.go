package arena

import (
	"context"

	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
)

// Names of the tools other packages refer to (the autopilot).
const (
	ToolStatus         = "status"
	ToolMessages       = "messages"
	ToolMember         = "member"
	ToolBattle         = "battle"
	ToolMarket         = "market"
	ToolSendMessage    = "send_message"
	ToolJoinBattle     = "join_battle"
	ToolBuy            = "buy"
	ToolSell           = "sell"
	ToolWork           = "work"
	ToolConsume        = "consume"
	ToolLeaveCommunity = "leave_community"
	ToolJoinCommunity  = "join_community"
)

// read builds a Read tool: it looks at the world brought up to now.
func read[T any](g *Game, name, desc string, look func(w *world, a T) (string, *game.Error)) game.Tool {
	return game.NewTool(game.ToolDef[T]{
		Name: name, Description: desc, Kind: game.Read, SchemaOptions: enums(),
		Run: func(_ context.Context, a T) (game.Result, error) {
			var res game.Result
			g.locked(func(w *world) { res.Output, res.Err = look(w, a) })
			return res, nil
		},
	})
}

// actEffects are the Effect names each Act tool's dry run reports when it predicts
// success (its plan's outcome.effects), for approval rules' conditions.
var actEffects = map[string][]string{
	ToolSendMessage:    {EffectCost, EffectEnergy},
	ToolJoinBattle:     {EffectEnergy, EffectEnergyAfter},
	ToolBuy:            {EffectCost, EffectUnits, EffectPrice, EffectGoldAfter},
	ToolSell:           {EffectIncome, EffectUnits, EffectPrice, EffectGoldAfter},
	ToolWork:           {EffectEnergy, EffectIncome, EffectMinutes, EffectEnergyAfter, EffectGoldAfter},
	ToolConsume:        {EffectEnergyGained, EffectEnergyAfter, EffectUnits},
	ToolLeaveCommunity: {EffectStandingLost},
	ToolJoinCommunity:  {EffectStandingLost},
}

// act builds an Act tool and its dry run from one plan: the dry run reports the plan,
// the call applies it, so what is predicted is what happens at the same game time.
func act[T any](g *Game, name, desc string, adjust func(*jsonschema.Schema) *jsonschema.Schema, plan func(w *world, a T) (outcome, *game.Error)) game.Tool {
	return game.NewTool(game.ToolDef[T]{
		Name: name, Description: desc, Kind: game.Act, SchemaOptions: enums(), Adjust: adjust, Effects: actEffects[name],
		Run: func(_ context.Context, a T) (game.Result, error) {
			var res game.Result
			g.locked(func(w *world) {
				o, err := plan(w, a)
				if err != nil {
					res.Err = err
					return
				}
				res.Output = o.apply()
			})
			return res, nil
		},
		DryRun: func(_ context.Context, a T) (game.Simulation, bool, error) {
			var sim game.Simulation
			g.locked(func(w *world) { sim = simulation(plan(w, a)) })
			return sim, true, nil
		},
	})
}

// simulation words a plan as a dry run; a refusal is a predicted failure, without effects.
func simulation(o outcome, err *game.Error) game.Simulation {
	if err != nil {
		return game.Simulation{Summary: "would fail: " + err.Error(), Fails: true}
	}
	return game.Simulation{Summary: o.summary, Warning: o.warning, Effects: o.effects}
}

func noAdjust(s *jsonschema.Schema) *jsonschema.Schema { return s }

// catalog defines every tool, in the order the model reads them.
func catalog(g *Game) game.Tools {
	return game.Tools{
		read(g, ToolStatus, "Your energy, gold, food and inventory, community and standing, battles won and any work under way.",
			func(w *world, _ noArgs) (string, *game.Error) { return w.statusText(), nil }),
		read(g, ToolMessages, "Read your messages, unread first (id, time, author, recipient, the message it replies to); marks them read. Filter by member or by channel (direct or community).",
			(*world).messagesText),
		read(g, ToolMember, "A member's profile (community, leader or not, trust in you, loyalty) and your shared history: read it before answering someone you have a bad history with.",
			(*world).memberText),
		read(g, ToolBattle, "A battle's sides, energy committed per side, start, join deadline, countdowns and whether it can still be joined; without an id, the open battles and the latest results.",
			(*world).battleText),
		read(g, ToolMarket, "Prices (what you pay and what the market pays you), stock, and what each food restores. Prices move every 5 game minutes.",
			func(w *world, _ noArgs) (string, *game.Error) { return w.marketText(), nil }),
		act(g, ToolSendMessage, "Write to a member or to your community's channel (to: channel), optionally replying to a message id. Answering raises trust; answering a call for help in time, more.",
			noAdjust, (*world).planSend),
		act(g, ToolJoinBattle, "Commit energy to a battle before its join deadline, for your community's side unless you name one. The energy is spent; the side with more energy (give or take luck) wins gold and standing.",
			bounds("energy", MinCommit, MaxEnergy), (*world).planJoinBattle),
		act(g, ToolBuy, "Buy items at this period's price; max_price refuses the purchase if the price moved above it.",
			bounds("quantity", 1, 100), (*world).planBuy),
		act(g, ToolSell, "Sell items from your inventory at 70% of the price; min_price refuses the sale if the market pays less.",
			bounds("quantity", 1, 100), (*world).planSell),
		act(g, ToolWork, "Work shifts of 10 game minutes for gold: the energy is spent now, the pay comes when the work ends; you cannot join a battle until then.",
			bounds("shifts", 1, MaxShifts), (*world).planWork),
		act(g, ToolConsume, "Eat food you hold to restore energy (apple +8, bread +15, stew +30; at most 100).",
			bounds("quantity", 0, 20), (*world).planConsume),
		act(g, ToolLeaveCommunity, "Leave your community: your standing goes to 0 and its members trust you less.",
			noAdjust, func(w *world, _ noArgs) (outcome, *game.Error) { return w.planLeave() }),
		act(g, ToolJoinCommunity, "Join a community when you are in none; its leader must not distrust you (trust below -30).",
			noAdjust, (*world).planJoinCommunity),
	}
}

// Catalog returns the tool catalogue of an arena that is not started, for listing.
func Catalog() []game.Tool {
	g, err := New(Config{Poll: -1})
	if err != nil {
		return nil // a new world of the default seed always starts
	}
	defer g.Close()
	return g.Tools()
}
