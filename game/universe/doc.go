// Package universe is an offline SpaceTraders v2 universe: an in-process HTTP server that
// speaks the same API as https://api.spacetraders.io/v2 (paths, JSON shapes, error codes
// and rate-limit headers) for the operations the offline game supports.
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
// Operations of the real API that the offline universe does not support answer with an
// error in the real error shape whose message says so.
package universe
