package game

import (
	"context"
	"encoding/json"
)

// Viewer is implemented by a game whose world a rule-based player (an autopilot) reads
// as data rather than as the model's markdown: the arena's View. ViewJSON returns that
// data as JSON; reading it changes nothing. A served world (game/mcpserve) gives it to
// its seat's client with the observation, and a joined world (game/join) hands it back
// as its own ViewJSON, so an autopilot plays a world on another machine as it plays one
// here.
type Viewer interface {
	ViewJSON(ctx context.Context) (json.RawMessage, error)
}
