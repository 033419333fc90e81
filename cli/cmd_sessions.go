package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/ui"
)

func init() { addCommand(newSessionsCmd) }

const sessionsUsage = `usage:
  coplay sessions [--json] [--data FILE]                 list saved sessions, newest first (a league's seats under it)
  coplay sessions export NAME [--data FILE] [-o FILE]    write a markdown transcript (to stdout, or -o FILE)
  coplay sessions rm NAME [--data FILE]                  delete a session (a league's name: every seat's)
  coplay sessions replay NAME [--json] [--data FILE]     replay it step by step (--json: one line a step)

NAME is a session's name, or a league's: export writes every seat's transcript in one
document, replay puts every seat on one timeline.
`

// newSessionsCmd is `coplay sessions`, which lists, and its subcommands.
func newSessionsCmd() *cobra.Command {
	cmd := newSessionsSub("list", "sessions", "list, export, replay or delete saved sessions")
	cmd.AddCommand(
		newSessionsSub("list", "list", "list saved sessions, newest first"),
		newSessionsSub("export", "export NAME", "write a session's (or a league's) markdown transcript"),
		newSessionsSub("rm", "rm NAME", "delete a session (or every seat's of a league)"),
		newReplayCmd(),
	)
	return cmd
}

// newSessionsSub is `coplay sessions SUB` (list, export or rm), used as use says.
func newSessionsSub(sub, use, short string) *cobra.Command {
	var data, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use: use, Short: short, Long: sessionsUsage,
		RunE: func(cmd *cobra.Command, pos []string) error {
			return runSessions(sub, pos, data, asJSON, out, cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&data, "data", "", "notebook `file` (default: the user data directory)")
	switch sub {
	case "list":
		fs.BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	case "export":
		fs.StringVarP(&out, "output", "o", "", "write the transcript to `file` instead of standard output (- for standard output)")
	}
	if sub != "list" {
		cmd.ValidArgsFunction = completeSessions(true)
	}
	return cmd
}

// runSessions lists, exports (to out) or deletes (sub) the sessions in the notebook at
// data (default: the user data directory); pos are the positional arguments.
func runSessions(sub string, pos []string, data string, asJSON bool, out string, stdout io.Writer) error {
	var err error
	switch {
	case sub == "list" && len(pos) > 0:
		return usagef("unexpected arguments %q (did you mean `coplay sessions export %s`?)", pos, pos[0])
	case sub != "list" && len(pos) != 1:
		return usagef("%s needs exactly one session or league name (see `coplay sessions`)", sub)
	}

	path := data
	if path == "" {
		if path, err = notes.DefaultPath(); err != nil {
			return err
		}
	}
	// Listing must not create a notebook as a side effect.
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if sub == "list" {
			if asJSON {
				fmt.Fprintln(stdout, "[]")
				return nil
			}
			fmt.Fprintf(stdout, "no sessions yet (no notebook at %s)\n", path)
			return nil
		}
		return fmt.Errorf("no notebook at %s", path)
	}
	// Listing and exporting only read: they open the notebook read-only, so they never
	// write to it (it may be on a read-only file system, or a backup to keep as it is).
	var book *notes.Book
	var playing []string
	if sub == "rm" {
		book, err = openNotebookWith(path, false)
	} else {
		book, playing, err = openReader(path)
	}
	if err != nil {
		return err
	}
	defer book.Close()

	switch sub {
	case "export":
		return exportSession(book, pos[0], out, stdout)
	case "rm":
		return removeSession(book, pos[0], stdout)
	}
	return listSessions(stdout, book, path, playing, asJSON)
}

// listSessions prints the notebook's sessions: as JSON (every session, a league's seats
// each with its league and seat), or as a table with forks under their parents and a
// league's seats under a row for the league; playing names the sessions a process has
// open now.
func listSessions(stdout io.Writer, book *notes.Book, path string, playing []string, asJSON bool) error {
	list, err := book.List()
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]sessionJSON, len(list))
		for i, s := range list {
			out[i] = sessionJSON{SessionInfo: s, CachedTokens: s.CachedTokens, Playing: slices.Contains(playing, s.Name)}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(list) == 0 {
		fmt.Fprintf(stdout, "no sessions yet in %s\n", path)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tGAME\tMODEL\tSTEPS\tTOKENS\tPROFILE\tLAST ACTIVE\tRECORDS")
	list, seats := leagueRows(list)
	list, depth := sessionTree(list) // forks under their parents
	for i, s := range list {
		name := s.Name
		if depth[i] > 0 {
			name = strings.Repeat("  ", depth[i]-1) + "└ " + s.Name + " (from @" + strings.TrimPrefix(s.Parent, parentName(s.Parent)+"@") + ")"
		}
		if isLeagueRow(s) {
			sessionRow(tw, name+" (league)", s, anyPlaying(playing, seats[s.Name]))
			for _, seat := range seats[s.Name] {
				sessionRow(tw, strings.Repeat("  ", depth[i]+1)+seat.Seat, seat, slices.Contains(playing, seat.Name))
			}
			continue
		}
		sessionRow(tw, name, s, slices.Contains(playing, s.Name))
	}
	return tw.Flush()
}

// sessionRow writes one row of the table: a session's, a league's or a seat's, under
// name.
func sessionRow(w io.Writer, name string, s notes.SessionInfo, playing bool) {
	profile := s.Profile
	if profile == "" {
		profile = "-"
	}
	if playing {
		name += " (playing now)"
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%d\n", name, s.Game, s.Model, s.Steps, tokensText(s), profile,
		s.LastActive.Local().Format(time.DateTime[:16]), s.Records)
}

// sessionJSON is a session as `coplay sessions --json` prints it: its SessionInfo,
// with cached_tokens always present (0 when the provider cached nothing or did not
// say), so a reader can count on the field.
type sessionJSON struct {
	notes.SessionInfo
	CachedTokens int64 `json:"cached_tokens"`
	// Playing is true for a session another coplay plays in now.
	Playing bool `json:"playing,omitempty"`
}

// tokensText is a session's tokens for the table: "41.2k tok (88% cached)", the share
// being of the prompt tokens; "-" before any model call.
func tokensText(s notes.SessionInfo) string {
	total := s.PromptTokens + s.CompletionTokens
	if total == 0 {
		return "-"
	}
	out := ui.ShortCount(total) + " tok"
	if s.CachedTokens > 0 && s.PromptTokens > 0 {
		out += fmt.Sprintf(" (%.0f%% cached)", 100*float64(s.CachedTokens)/float64(s.PromptTokens))
	}
	return out
}

// exportSession writes the transcript of one session to stdout or to file; of a league
// (a name no session has), one document with every seat's transcript.
func exportSession(book *notes.Book, name, file string, stdout io.Writer) error {
	var export func(io.Writer) error
	s, err := book.Session(name)
	switch {
	case err == nil:
		export = s.Export
	case errors.Is(err, notes.ErrNotFound):
		if _, lerr := book.LeagueInfo(name); lerr != nil {
			return nameErr(lerr, name, book.Path())
		}
		export = func(w io.Writer) error { return book.ExportLeague(name, w) }
	default:
		return err
	}
	if file == "" || file == "-" { // "-o -" is standard output, as for most tools
		return export(stdout)
	}
	// Written beside the target and renamed once whole: an export that stops at damage
	// leaves no partial transcript that could pass for the whole one.
	f, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := export(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), file); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", file)
	return nil
}

// sessionErr says a missing session plainly and where to look for names.
func sessionErr(err error, name, path string) error {
	if errors.Is(err, notes.ErrNotFound) {
		return fmt.Errorf("no session %q in %s (see `coplay sessions`)", name, path)
	}
	return err
}

// nameErr is sessionErr for the commands that take a league's name as well as a
// session's.
func nameErr(err error, name, path string) error {
	if errors.Is(err, notes.ErrNotFound) {
		return fmt.Errorf("no session or league %q in %s (see `coplay sessions`)", name, path)
	}
	return err
}
