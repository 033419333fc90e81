// Package polite is the HTTP layer coplay's games talk through: it keeps to the server's
// published request budget, waits out what the server asks it to wait, and retries only
// what is safe to retry.
//
//   - A Limiter hands out permission to send, one request at a time, so that the
//     requests never exceed a Budget (a steady rate plus a burst pool that refills as a
//     whole, the way rate-limited game servers count). It adapts to the server's
//     x-ratelimit-* headers and to a 429's Retry-After, and every permission takes a
//     token, a request resent after a 429 included.
//   - A Client sends requests through a Limiter. A 429 is waited out and the request
//     sent again (the server refused it, so nothing happened). A GET that fails for a
//     passing reason (5xx, a refused, reset or timed-out connection) is retried with
//     capped exponential backoff for as long as its context lives. Any other method is
//     sent once: a lost answer is an *UnknownOutcomeError, never a second attempt.
//   - Every wait longer than a moment is reported with game.NotifyWait, and its end
//     with a zero game.Wait, so whoever runs the game can show the countdown.
//
// Nothing here knows a particular game or API: the same layer serves SpaceTraders and
// a generic OpenAPI driver.
package polite
