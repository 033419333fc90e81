// Package mcpserve serves a league's world (game.League: the arena, the offline
// universe) to any MCP client, with the official go-sdk's server: streamable HTTP at
// /mcp, or one seat on stdin and stdout.
//
// Each seat is an MCP server of its own (an sdk.Server), chosen by the bearer token of
// the request, so a seat acts only as itself and hears only its own world:
//
//   - tools: the seat's game tools, with the names, descriptions and input schemas
//     coplay's own agent sees (game.Tool.SchemaJSON); Read tools carry readOnlyHint.
//     Arguments are checked by game.Registry (the same problems, paths and hints a
//     local agent reads) before the game sees them. A tool with a dry run has a
//     preview_NAME tool beside it: the same arguments, read-only, answering the game's
//     own prediction (game.Simulation as JSON).
//   - resources: coplay://world (the seat's observation, markdown), coplay://triggers
//     (its latest triggers, JSON), coplay://rules (the rules, also the server's
//     instructions) and coplay://observation (the observation as data, with the game's
//     view when it has one, game.Viewer: what a joined coplay, game/join, reads). Both of the first two can be subscribed to: each trigger of the
//     seat's game (a message, a battle, a finished shift) is a
//     notifications/resources/updated on each, whose _meta carries the trigger under
//     TriggerMeta, so coplay's own client (game/mcp) wakes with the trigger a local
//     agent reads.
//   - saving: after every Act call (one that succeeded, or whose outcome is unknown) the
//     seat's state (its Opened.Save, as game.OpenLeague wraps it) goes to
//     Config.Commit before the call is answered, so a restart goes on from the last
//     answered act.
//
// The HTTP door (guard.go) refuses, in this order: an Origin that is not the server's
// own or an allowed one (403, against DNS rebinding; the SDK refuses a non-loopback Host
// on a loopback listener), a request without a seat's token (401), a new session over
// the seat's rate limit (429); a seat over its session count has its oldest session
// closed. Calls are rate-limited per seat (ratelimit.SpaceTraders by default): a call
// past the limit is a tool error saying when to retry, and nothing runs. Bodies are
// capped (MaxBody). Joins, leaves and refusals are journaled (journal.go), refusals as
// a count a minute.
//
// The package imports game, game/ratelimit and the go-sdk; it keeps nothing on disk
// itself (the caller's Commit does).
package mcpserve
