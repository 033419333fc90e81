package arena

import (
	"fmt"

	"github.com/coplayhq/coplay/game"
)

// Codes of the game's refusals (game.Error.Code), HTTP-like.
const (
	CodeBadRequest   = 400 // an argument the game cannot use: an empty message, a side not in the battle
	CodeNoGold       = 402 // not enough gold
	CodeNotAllowed   = 403 // a community that will not have the agent, a channel it is not in
	CodeUnknown      = 404 // no such member, battle, message or item held
	CodeConflict     = 409 // not now: a battle closed or over, busy working, already in a community
	CodePriceChanged = 412 // the price moved past max_price or min_price
	CodeNotEnough    = 422 // not enough energy, stock or items
)

// refuse makes a refusal.
func refuse(code int, format string, a ...any) *game.Error {
	return &game.Error{Code: code, Message: fmt.Sprintf(format, a...)}
}
