package cli

import (
	"io"

	"github.com/spf13/cobra"
)

func init() { addCommand(newCompletionCmd) }

const completionUsage = `usage: coplay completion bash|zsh|fish

Prints a script that completes coplay's commands, subcommands, flags, the values of
--game, --preset, --brain, --approve and the games' own flags, the session names after
--resume, attach and sessions export|rm|replay, and the profile names after --profile
and --seat NAME=. Load it for this shell, or install it:

  bash   source <(coplay completion bash)                    (in ~/.bashrc; needs bash-completion)
         coplay completion bash > ~/.local/share/bash-completion/completions/coplay
  zsh    source <(coplay completion zsh)                     (in ~/.zshrc, after compinit)
         coplay completion zsh > "${fpath[1]}/_coplay"
  fish   coplay completion fish | source
         coplay completion fish > ~/.config/fish/completions/coplay.fish`

// shells are the shells coplay writes a completion script for.
var shells = []string{"bash", "zsh", "fish"}

// newCompletionCmd is `coplay completion SHELL`: cobra's scripts, which ask coplay
// itself (`coplay __complete`) what comes next, so session and profile names are
// the ones there are when Tab is pressed.
func newCompletionCmd() *cobra.Command {
	return &cobra.Command{
		Use: "completion bash|zsh|fish", Short: "print a shell completion script: bash, zsh or fish", Long: completionUsage,
		ValidArgs: shells,
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeCompletion(cmd.Root(), args, cmd.OutOrStdout())
		},
	}
}

// writeCompletion writes root's completion script for the shell args name.
func writeCompletion(root *cobra.Command, args []string, w io.Writer) error {
	if len(args) != 1 {
		return usagef("completion needs one shell: bash, zsh or fish (`coplay completion --help` says how to load it)")
	}
	switch args[0] {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	}
	return usagef("no completion for %q: bash, zsh or fish%s", args[0], didYouMean(args[0], shells...))
}
