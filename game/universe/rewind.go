package universe

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Rewind takes bytes made by Save `ago` in the past and returns them with every time in
// the universe moved forward by ago (game.ShiftTimes): restored now, the universe stands
// as it stood when it was saved, a ship in transit then still in transit for the time it
// had left, a cooldown still running, a deadline as far off.
func Rewind(data []byte, ago time.Duration) ([]byte, error) {
	var s saved
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("universe: rewind: not a saved universe: %w", err)
	}
	if s.Format != saveFormat || s.State == nil {
		return nil, fmt.Errorf("universe: rewind: unknown format %q, want %q", s.Format, saveFormat)
	}
	game.ShiftTimes(s.State, ago)
	out, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("universe: rewind: %w", err)
	}
	return out, nil
}
