package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/secret"
)

const replayUsage = `usage:
  coplay sessions replay NAME [--data FILE]          replay the session on the screen, read-only
  coplay sessions replay NAME --json [--data FILE]   print one JSON object per step
`

// runReplay reads a session back step by step: on the screen (read-only, with a key to
// fork at the selected step and play on), or as JSON lines (docs/PROTOCOL.md).
func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sessions replay", stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), replayUsage); fs.PrintDefaults() }
	data := fs.String("data", "", "notebook `file` (default: the user data directory)")
	asJSON := fs.Bool("json", false, "print one JSON object per step instead of opening the screen")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("replay needs exactly one session name (see `coplay sessions`)")
	}
	path := *data
	if path == "" {
		if path, err = notes.DefaultPath(); err != nil {
			return err
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no notebook at %s", path)
	}
	book, err := openNotebookWith(path, true)
	if err != nil {
		return err
	}
	s, err := book.Session(pos[0])
	if err != nil {
		book.Close()
		return sessionErr(err, pos[0], path)
	}
	rp, err := agent.ReadReplay(s)
	if err != nil {
		book.Close()
		return fmt.Errorf("reading session %s: %w", pos[0], err)
	}
	if !*asJSON {
		// The screen may fork and play on: it opens the notebook for writing then, so
		// this read-only handle is put away first.
		book.Close()
		return replayScreen(path, rp)
	}
	defer book.Close()
	w := secret.NewWriter(stdout, scrubber())
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range rp.Steps {
		if err := enc.Encode(&rp.Steps[i]); err != nil {
			return err
		}
	}
	return w.Flush()
}

// replayScreen opens the replay screen (ui/replay.go).
func replayScreen(path string, rp *agent.Replay) error {
	return errors.New("the replay screen is not built yet: use --json")
}
