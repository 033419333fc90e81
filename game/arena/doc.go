// Package arena is coplay's second built-in world (--game arena): an offline,
// deterministic social battle world with its own clock. No key, no account, no network.
//
// # The world
//
// The agent (Kestrel) belongs to one of three communities (Ember, Tide, Thorn) of four
// members each; the first of each, as the seed shuffles them, is its leader. Every
// member has a trust in the agent (-100..100) and a shared history with it: memories
// such as "fought beside you in battle-41" or "you ignored my call for help". A new
// world gives three members a bad history and three a good one.
//
// The agent has energy (0-100), gold and an inventory. Food (apple, bread, stew)
// restores energy when consumed; energy drifts toward 25 over time. Work (farm, courier,
// guard, forge) costs energy at once, keeps the agent busy for shifts of 10 game
// minutes and pays when it ends. The market's prices are a pure function of the seed
// and the market period (5 game minutes): a slow swing and seeded noise around each
// item's base; stock refills every period; the market buys at 70% of its price.
//
// Members write to the agent and on the agent's community channel: greetings,
// mentions, chat, calls for help (which expect an answer within 10 game minutes), and
// answers to the agent's messages, worded by their trust. Every message has an id, an
// author, a recipient (a name or "#ember"), the id it replies to, and a time.
//
// Battles ("battle-456") are announced every 18 to 30 game minutes between two
// communities, usually including the agent's; the leader calls everyone on the channel.
// A battle has a join deadline, a start and an end; members commit energy as planned
// at the announcement; the agent commits with join_battle before the deadline. At the
// end the side with more energy, give or take 15% of seeded luck, wins; the agent's
// side winning pays 10 + 3/4 of its energy in gold and standing.
//
// Trust and standing move with what the agent does: answering (+2), answering a call
// for help in time (+5), reporting to the leader after joining a battle (+3), fighting
// beside members (+3); ignoring a call for help (-8), ignoring the leader's call to
// battle (-6, and 3 standing), fighting against the community, leaving it (-15).
//
// # Time and determinism
//
// Game time starts at day 1 08:00 and runs at the wall clock times Config.Speed (10 by
// default: a game minute every 6 seconds). Everything happens on whole game minutes,
// in order: prices, battles, work, energy, members' answers, calls for help running
// out, members' own messages. Every random choice is a hash of the seed and of what is
// being decided, so the same seed and the same calls at the same game times give the
// same world, and a saved world (Game.Save, JSON) continues exactly where it was.
//
// # Tools, dry runs and refusals
//
// Read tools (status, messages, member, battle, market) look; Act tools (send_message,
// join_battle, buy, sell, work, consume, leave_community, join_community) change the
// world, and each has a dry run decided by the same function as the call, so a
// prediction is what happens at the same game time. A predicted success reports
// Effects for approval rules (see the Effect constants: cost, income, energy,
// energy_after, gold_after, ...). A refusal is a game.Result with a game.Error whose
// code says what kind (see the Code constants) and whose message says what to do:
// "price changed: bread is now 8 gold, above your max_price 6", "unknown member "Mra":
// did you mean "Mara"?".
//
// # Observation and triggers
//
// The observation's summary is written for a pane 60 columns wide: the agent's bars,
// up to five unread messages, the open battles with their countdowns, the prices. Its
// metrics are gold, energy, standing, battles_won and score; its timers are the battles'
// starts and ends and work under way (on the wall clock, for the screen); IdleUntil is
// set only when nothing useful can be done before the next event.
//
// The game is a game.Triggers: a goroutine checks the clock (every second, or every game
// minute at high speeds) and sends message.received, battle.announced, battle.started,
// battle.ended, market.changed and schedule triggers as they happen, whether or not
// anyone calls the game. The channel never blocks the world: when it is full the oldest
// trigger is dropped. When six game minutes pass without a trigger, a member speaks up,
// so at the default speed something wakes the agent at least every 36 seconds. Close
// stops the clock and closes the channel.
//
// # Scenarios
//
// Config.Scenario (the driver's --scenario NAME) starts a new world from a named,
// deterministic situation, for tests and demos (scenario.go): a fixed roster (Ember:
// Mara, who leads, Oren, Vesna, Tomas; Tide: Ilka, Bram, Sefa, Juno; Thorn: Pell, Rhea,
// Dov, Wren), Kestrel in Ember, and the scenario's energy, gold, food, histories,
// messages, battles and prices, some at known game minutes. Until the scenario's quiet
// minute nothing else happens (no chatter, no other battle, no price but the scenario's);
// then the world lives on. The scenarios:
//
//   - hello: Oren says hi (#1); nothing else is going on.
//   - bad-history: Vesna, who remembers Kestrel fleeing battle-38 (trust -25), asks for
//     help (#1, due in 10 minutes).
//   - no-food: Mara calls Ember to battle-456 (#1, join by 08:45) while Kestrel has 30
//     energy, no food and no gold; bread costs 6 gold, then 7 from 08:10 (a buy with
//     max_price 6 is refused from then on).
//   - mid-plan: Oren asks for two apples (#1); at 08:05 Mara calls Ember to battle-456
//     (#2, join by 08:25).
//   - battle-starts: Mara has called Ember to battle-456 (#1), which starts at 08:04 and
//     takes fighters until 08:09 (a battle.started trigger then says so); Kestrel has
//     60 energy, Mara's loyalty is 85.
//
// # Leagues
//
// NewLeague (the driver's game.LeagueOpener) seats several agents, each a member named
// after its seat, in communities given round-robin by seat order; their worlds are kept
// in step (one clock, messages between seats as triggers, shared battles): see
// league.go.
package arena
