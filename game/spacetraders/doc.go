// Package spacetraders plays SpaceTraders v2 (https://spacetraders.io) as a coplay game:
// a typed HTTP client for the API and a small catalogue of typed tools built on it.
//
// The same client speaks to the real server (https://api.spacetraders.io/v2, with the
// player's agent token) and to the built-in offline universe (game/universe), which
// StartOffline serves on a loopback listener. Tools are typed from the facts of the
// official OpenAPI spec: their argument names, types, required fields and enums are the
// operations' path parameters and request bodies, flattened into one object. Each tool
// is defined once (catalog in tools.go) and its symbols, trade goods and traits are
// checked during validation (checks.go), before anyone is asked. The JSON shapes are
// package wire's, shared with the universe.
//
// The client shares one rate limiter per Game (2 requests/s, burst 30, corrected by the
// server's x-ratelimit-* headers). A 429 becomes a wait, not a failure. GETs are retried on
// network errors and 5xx; POSTs and PATCHes never are, because a lost response must not
// buy cargo twice: the result says the outcome is unknown and the agent observes again.
//
// Tokens live in memory only; nothing in this package writes them anywhere.
package spacetraders
