package cli

import (
	"errors"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/notes"
)

// Completion is cobra's: the scripts `coplay completion SHELL` prints ask
// `coplay __complete WORDS...` for the words that may come next. What cobra cannot
// know by itself is here: the values a flag takes (flagValues, and the valuesKey
// annotation: the drivers' enums, eval's games), the session names in the notebook, and the profile names in config.toml.

// flagValues complete the value of the flags so named, whichever command has them
// (a flag's valuesKey annotation comes first).
var flagValues = map[string]cobra.CompletionFunc{
	"game":    fixed(driverNames),
	"preset":  fixed(presetNames),
	"brain":   fixed(func() []string { return []string{"autopilot", "model", "script:"} }),
	"approve": fixed(func() []string { return []string{"ask", "all"} }),
	"notify":  fixed(func() []string { return config.NotifyModes }),
	"profile": completeProfiles,
	"seat":    completeSeat,
	"fork":    completeFork,
}

// valuesKey is the pflag annotation of a flag's values, when they are a short list
// that depends on nothing (a game's --catalog ops|grouped, eval's --game): completion
// offers them.
const valuesKey = "coplay_values"

// addCompletions registers the completion of every flag with values to offer on cmd
// and its subcommands: its valuesKey annotation, else flagValues by its name. Cobra
// keeps them in a table of its own for the life of the process, so run does this only
// when the shell asks.
func addCompletions(cmd *cobra.Command) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		complete := flagValues[f.Name]
		if values, ok := f.Annotations[valuesKey]; ok {
			complete = fixed(func() []string { return values })
		}
		if complete != nil {
			_ = cmd.RegisterFlagCompletionFunc(f.Name, complete)
		}
	})
	for _, sub := range cmd.Commands() {
		addCompletions(sub)
	}
}

// fixed completes from a list that does not depend on the command line.
func fixed(values func() []string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values(), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeSessions completes a positional session name (sessions export, rm and
// replay take a league's name too: leagues). Once one is given, nothing more.
func completeSessions(leagues bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names, playing := notebookNames(cmd, leagues)
		if cmd.Name() == "attach" && len(playing) > 0 {
			names = playing // attach goes to a session another coplay plays
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeResume completes the session name after --resume (play and run).
func completeResume(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if resume, _ := cmd.Flags().GetBool("resume"); !resume {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return completeSessions(true)(cmd, args, toComplete)
}

// completeFork completes --fork NAME@STEP up to the @: the step is the person's.
func completeFork(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if strings.Contains(toComplete, "@") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, _ := notebookNames(cmd, true)
	for i := range names {
		names[i] += "@"
	}
	return names, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// notebookNames are the names of the sessions (and, with leagues, the leagues) in the
// notebook the command line names with --data, else the default one, read as
// `coplay sessions` reads them: never creating the notebook, through the coplay that
// plays in it if one does. playing are the sessions a coplay plays now. A notebook
// that cannot be read completes nothing.
func notebookNames(cmd *cobra.Command, leagues bool) (names, playing []string) {
	path, _ := cmd.Flags().GetString("data")
	if path == "" {
		var err error
		if path, err = notes.DefaultPath(); err != nil {
			return nil, nil
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	book, playing, err := openReader(path)
	if err != nil {
		return nil, nil
	}
	defer book.Close()
	list, err := book.List()
	if err != nil {
		return nil, nil
	}
	for _, s := range list {
		names = append(names, s.Name)
	}
	if leagues {
		for _, l := range notes.LeaguesOf(list) {
			names = append(names, l.Name)
		}
	}
	sort.Strings(names)
	return names, playing
}

// completeProfiles completes --profile: the profiles of the config file the command
// line names with --config, else the default one.
func completeProfiles(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return profileNames(cmd), cobra.ShellCompDirectiveNoFileComp
}

// completeSeat completes --seat NAME=PROFILE once NAME= is typed: the profiles (the
// built-in autopilots among them), script:FILE, and person where a person may sit (play
// and run; eval refuses it). The name is the person's.
func completeSeat(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	name, _, ok := strings.Cut(toComplete, "=")
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	kinds := []string{"script:"}
	if cmd.Name() != "eval" {
		kinds = append(kinds, personSeat)
	}
	var out []cobra.Completion
	for _, p := range append(profileNames(cmd), kinds...) {
		out = append(out, name+"="+p)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// profileNames are the profiles a --profile or a seat may name: every NAME and
// NAME/EXPERIMENT of the config file (its built-ins, autopilot, included). A file that
// cannot be read offers the built-ins.
func profileNames(cmd *cobra.Command) []string {
	path, _ := cmd.Flags().GetString("config")
	file, err := loadConfigFile(path, path != "")
	if err != nil {
		file = config.Empty()
	}
	var out []string
	for _, full := range file.ProfileNames() {
		base, _, _ := strings.Cut(full, "/")
		if !slices.Contains(out, base) {
			out = append(out, base)
		}
		out = append(out, full)
	}
	sort.Strings(out)
	return out
}
