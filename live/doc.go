// Package live lets a second coplay process reach the one that plays.
//
// The coplay that holds a notebook open for writing listens on a Unix socket of its
// own, one per notebook, in a directory only its user may enter (0700; the socket is
// 0600, and on Linux each peer's user id is checked as well). Another coplay of the same
// user — `coplay sessions`, `sessions replay`, `sessions export`, and later `coplay
// attach` — connects there instead of waiting for the writer's lock, which it would
// never get while a game is open.
//
// The wire: the client sends one JSON line, a [Request]; the server answers with one
// JSON line, a [Reply], and then whatever the operation streams (for "snapshot", the
// notebook file's bytes, as many as the reply says). Operations are registered with
// [Server.Handle]; an unknown one gets a reply with an error.
//
// Nothing here holds up the writer: a snapshot is one bbolt read transaction copied to a
// private file, which is streamed to the client only once the transaction has ended, so
// a client that stops reading never keeps the writer from growing the file. Every line
// a client sends is capped (MaxLine).
package live
