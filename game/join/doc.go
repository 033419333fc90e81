// Package join plays a seat of a world that another coplay serves (coplay serve,
// game/mcpserve) as the built-in game it is: `coplay --game arena --join URL` is the
// arena, its tools, rules, observation and triggers, with its world on the server.
// So everything that plays a local arena plays a served one unchanged: the built-in
// autopilot (it reads the view, game.Viewer), a model, the approval rules, the screen
// and the journal; and a league can span machines with no model at all.
//
// It is an MCP client of the served world, built on game/mcp (which keeps the
// connection: streamable HTTP, reconnects with backoff, a lost answer as an unknown
// outcome):
//
//   - the seat's token is read from an environment variable (DefaultTokenEnv, or the
//     one Config.TokenEnv names) when connecting, sent as "Authorization: Bearer", and
//     never kept: not in the Config, the session's state (State keeps the URL and the
//     variable's name) or anything shown; Opened.Secrets names it for scrubbing;
//   - the server must say it is the world asked for (serverInfo "coplay-arena" for
//     --game arena), so a URL of another world or another server is refused in words;
//   - each step observes coplay://observation (mcpserve.ObservationURI): the seat's
//     observation as the local game makes it (summary, metrics, timers, idle time) and
//     the view, kept for ViewJSON until the next call changes the world;
//   - the tools are the served seat's, named and checked as locally (the previews
//     stay out of the catalogue and answer Simulate);
//   - coplay://world is subscribed to, and each of its updates carries the seat's
//     trigger (a message to it, a battle), which wakes the runner as a local trigger
//     does;
//   - a call or read the server refuses for the seat's rate limit (429, nothing done)
//     is waited out, as the server says, and sent again, the wait shown as the game's.
package join
