// Package mcp plays any MCP server as a game: its tools become the game's typed tools,
// its instructions become the rules, and the resources or the read tool named in the
// Config make the observation. Servers are reached with the official go-sdk over stdio
// (Config.Command), streamable HTTP (Config.URL), or the 2024-11-05 HTTP+SSE transport
// for a URL server that answers as an old one (sse.go, Config.Transport).
//
// # Using it
//
//	g, err := mcp.Open(ctx, mcp.Config{Command: "node ./dist/index.js stdio", LogDir: dir})
//	defer g.Close()
//
// *Game implements game.Game. A command line needs one flag per Config field: the
// command or the URL, headers as "Name: value" (values may name environment variables,
// "Bearer $TOKEN", expanded at connect time and never stored expanded), resource URIs
// to observe, an observe tool, and a log directory for a stdio server's stderr.
//
// # Tools
//
// A tool with annotations.readOnlyHint true is game.Read; every other tool is game.Act
// (no other hint lets anything run without a person). The title leads the description
// when it differs from the name. Names are kept as the server gives them (get-sum)
// when a model's function-calling API can take them (letters, digits, '_' and '-', up
// to 64); other names are mapped ('.' and '/' become '_', a number is added on a clash)
// and the map is kept, so the server is always called by its own name.
//
// The input schema is kept as the server sent it (draft-07 or 2020-12; $ref, anyOf and
// the rest are checked by game.Validate), with one change: a top level that lists its
// parameters and says nothing about others is closed (additionalProperties false),
// because servers silently drop unknown arguments and a misspelt parameter would then
// run a different call from the one a person approved. Nested objects and schemas
// that allow more on purpose are left open. A tool whose schema cannot be used (a $ref
// that names nothing, a type other than object) is left out, and the model is told.
// Arguments are validated before anything is sent, against the current catalogue.
//
// # A catalogue that changes
//
// game.Game.Tools says a catalogue does not change while the game runs; an MCP
// server's can (notifications/tools/list_changed). The notification only sets a flag;
// the catalogue is read again before the next Observe or Call. Then the observation's
// summary tells the model what appeared, changed and disappeared; Changes returns the
// same text for a log; and ToolsChanged reports it once, which is the hook a runner
// needs to rebuild its registry. It is proposed as an optional interface in package
// game:
//
//	type Refresher interface { ToolsChanged() bool }
//
// # Results
//
// isError is a game error (Result.Err, code CodeToolError, with the text). Text and
// structuredContent both reach the model (the structured JSON is left out when a text
// block already says the same); images, audio and binary resources are one line each
// ("[image image/png, 12 KB]"); text resources keep their text. Output is capped at
// 16 KB with a line saying how much was cut.
//
// # Faults
//
// A stdio server's stderr goes to LogDir/mcp-NAME.log; lines on its stdout that are not
// JSON-RPC are dropped, counted (Skipped) and warned about in the same log. A server
// that exits or drops is reconnected with backoff, each wait reported with
// game.NotifyWait; if it stays away, Observe and Call return an error naming it. A call
// whose answer was lost is Result{Unknown: true} and is never sent again; the next
// observation says the world may have moved on.
//
// # The rest of the client
//
// A server may ask the person (elicitation, form or URL mode), borrow the model
// (sampling, offered only when Config.Sampling), report a call's progress and log
// (logging/setLevel at Config.LogLevel): each goes to the game.Host the runner lends in
// the context of the call in flight (host.go). Observed resources are subscribed to when
// the server allows it, and their updates are triggers of type resource.updated
// (Triggers). A URL server that answers 401 is authorized with OAuth's authorization
// code flow through the browser (oauth.go, Config.OAuth); the grant is kept across runs
// in Config.Tokens (tokens.go: the OS keyring, else a 0600 file) and refreshed before
// it expires (grant.go); Logout revokes and forgets it.
//
// Nothing a server sends (descriptions, results, notifications) can approve a call or
// add a rule: this package has no access to either, and only turns what the server
// says into text for the model.
package mcp
