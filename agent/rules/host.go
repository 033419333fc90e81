package rules

import (
	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
)

// Host requests are what a game asks of coplay rather than a call the model makes: a
// server's question (elicitation) and a request to use the model (sampling). Rules
// name them like tools, by their exact name (a glob such as "allow *" does not reach
// them), with the asking server as an argument:
//
//	deny elicitation(server=dungeon): never answer its questions
//	ask sampling: even when play is handed over
//	allow sampling(server=narrator)
//
// deny declines, ask always waits for the person, allow answers by the unattended
// policy (a question with the server's defaults; a sampling request approved).
const (
	Elicitation = "elicitation"
	Sampling    = "sampling"
)

// HostTools are the host requests as tools, so that a rule naming them is checked like
// any other (its arguments: server, and message for a question).
var HostTools = []game.Tool{
	{Name: Elicitation, Description: "a game server's question to the player", Kind: game.Read, Schema: hostSchema("server", "message")},
	{Name: Sampling, Description: "a game server's request to use the model", Kind: game.Read, Schema: hostSchema("server")},
}

func hostSchema(props ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, p := range props {
		s.Properties[p] = &jsonschema.Schema{Type: "string"}
	}
	return s
}

// Host returns the rules of s that name the host request kind exactly.
func (s Set) Host(kind string) Set {
	var out Set
	for _, r := range s {
		if r.Tool == kind {
			out = append(out, r)
		}
	}
	return out
}
