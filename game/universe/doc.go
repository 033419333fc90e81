// Package universe is an offline SpaceTraders v2 universe: an in-process HTTP server that
// speaks the same API as https://api.spacetraders.io/v2 (paths, JSON shapes, error codes
// and rate-limit headers) for the operations the offline game supports. Its answers are
// built from the client's own wire types (game/spacetraders/wire).
//
// A Universe is generated deterministically from a seed: systems, waypoints with types and
// traits, jump gates, markets and shipyards. Registering an agent gives it credits, a
// headquarters, a command ship that can mine, a probe and a procurement contract, as the
// real game does. Markets move with trades and drift back; mining yields by deposit and
// ships cool down; travel costs time and fuel by distance, engine speed and flight mode.
//
// The universe reads the time from a Clock. Timestamps in responses are wall-clock times;
// Config.Speed divides game durations (travel, cooldowns, survey expiry, market drift) so
// the offline game is pleasant to play. Tests use a FakeClock. State can be saved to bytes
// with Save and brought back exactly with Restore.
//
// Errors use the real shape {"error": {"message", "code", "data"}}: rule violations are
// HTTP 400 with the game's code (409 for cooldowns), unknown resources 404, malformed
// requests 422, and missing or unknown tokens 401 (codes 4103, 4104). Operations of the
// real API that the offline universe does not support (refine, siphon, warp, scans,
// mounts, modules, scrap, repair, construction, supply chain) answer 501 with a message
// saying they are not available in the offline universe.
//
// With Config.RateLimit, each token (or client address) gets 2 requests per second and,
// once those are spent, a burst pool of 30 that refills 60 seconds after first use: at a
// frozen clock 32 requests pass and the 33rd gets 429 with Retry-After.
//
// Agent tokens are derived from the seed and the registration order, so Save never
// writes them and Restore brings them back; AgentToken reads one.
package universe
