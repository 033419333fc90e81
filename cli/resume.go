package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/notes"
)

// resumeCommand is the command line that goes on with session name: coplay with the
// flags this run was given (the same notebook, game settings and brain), less --resume
// and --fork and the session named, then --resume NAME. fs is the flag set args were
// parsed with, to tell a flag's value from a positional argument.
func resumeCommand(fs *pflag.FlagSet, args []string, name string) string {
	out := []string{"coplay"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue // the session that was resumed, named again below
		}
		flagName, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(flagName)
		word := []string{shellWord(a)}
		if f != nil && !inline && f.NoOptDefVal == "" && i+1 < len(args) {
			i++
			word = append(word, shellWord(args[i]))
		}
		if f == nil || flagName == "resume" || flagName == "fork" {
			continue
		}
		out = append(out, word...)
	}
	return strings.Join(append(out, "--resume", shellWord(name)), " ")
}

// plainWord is a word a shell reads as it is, without quotes.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:@=,+%-]+$`)

// shellWord is s as a shell word: as it is when it is plain, else single-quoted.
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return shellQuote(s)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sayHowToResume tells the person, once the screen is gone, which session they played
// and the command that goes on with it: quitting must not leave them guessing a name.
func sayHowToResume(w io.Writer, p *play, command string) {
	steps := 0
	if info, err := p.session.Info(); err == nil {
		steps = info.Steps
	}
	fmt.Fprintf(w, "Session %s is saved (%s). To go on with it:\n  %s\n",
		p.session.Name(), plural(steps, "step"), p.scrub.String(command))
}

// scriptModel is what a session played by a cassette records as its model:
// "script:" and the cassette's absolute path, so that a resume finds it again from any
// directory (resumeBrain).
func scriptModel(brain string) string {
	file := strings.TrimPrefix(brain, "script:")
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	return "script:" + file
}

// resumeBrain decides the brain of a resumed session when the command line names none:
// the cassette the session was played with, if it recorded one and it is still there.
// Otherwise, when the session was played by something other than what this run would
// use, it returns a line saying so and how to choose (the run goes on, with that said).
func (o *options) resumeBrain(info notes.SessionInfo, kind string) string {
	if o.brain != "" || o.model != "" || o.preset != "" || o.pr.prof != nil {
		return "" // the person chose
	}
	recorded := info.Model
	if file, ok := strings.CutPrefix(recorded, "script:"); ok {
		if _, err := os.Stat(file); err == nil {
			o.brain = recorded
			return ""
		}
		return fmt.Sprintf("session %s was played by the cassette %s, which is not there any more: this run plays it with the %s (--brain script:FILE to choose)", info.Name, file, brainWords(kind))
	}
	switch {
	case recorded == "" || recorded == kind || kind == "model" && recorded != "autopilot" && recorded != "script":
		return ""
	case recorded == "script":
		return fmt.Sprintf("session %s was played by a cassette: this run plays it with the %s (--brain script:FILE goes on with the cassette)", info.Name, brainWords(kind))
	case recorded == "autopilot":
		return fmt.Sprintf("session %s was played by the autopilot: this run plays it with the %s (--brain autopilot goes on with the autopilot)", info.Name, brainWords(kind))
	}
	return fmt.Sprintf("session %s was played by the model %s: this run plays it with the %s (--model %s or --preset P goes on with a model)", info.Name, recorded, brainWords(kind), recorded)
}

// brainWords names a kind of brain for a sentence.
func brainWords(kind string) string {
	if kind == "model" {
		return "model from the environment"
	}
	return kind
}

// newestPlayed is the session a --resume without a name goes on with: the newest that
// played a step, so that a start that never got going (a server that did not answer)
// does not hide the game the person was playing. skipped says which newer sessions it
// passed over; name is "" (the newest, whatever it is) when none played a step.
func newestPlayed(book *notes.Book) (name, skipped string) {
	list, err := book.List()
	if err != nil {
		return "", "" // Session("") says it
	}
	var passed []string
	for _, s := range list {
		if s.Steps > 0 {
			if len(passed) > 0 {
				skipped = fmt.Sprintf("resuming %s, the newest session that played a step (newer, without one: %s; `coplay --resume NAME` picks any)", s.Name, strings.Join(passed, ", "))
			}
			return s.Name, skipped
		}
		passed = append(passed, s.Name)
	}
	return "", ""
}
