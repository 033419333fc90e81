// Package openapi plays any HTTP API described by an OpenAPI 3.0 or 3.1 spec as a
// game: each operation becomes a typed tool (or each tag one tool, with an operation
// enum), its parameters and request body flattened into one argument object whose
// schema the game validator checks before any request is made. GET and HEAD operations
// are Read tools; everything else is an Act tool a person approves. A request body is
// sent as JSON when the operation offers it, else as a url-encoded or multipart form
// (file fields left out) or as text; an operation that cannot be a tool (a required
// file, a body of another type) is listed with why by Game.Skipped.
//
// Responses reach the model summarised (long lists cut with a count, long strings
// trimmed, about 8 KB in all); the last_response tool shows a call's whole response.
// The bearer token comes from an environment variable and is scrubbed from every
// output, error and observation.
package openapi
