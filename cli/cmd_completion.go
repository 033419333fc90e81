package cli

import (
	"fmt"
	"io"
	"strings"
)

func init() {
	commands["completion"] = command{summary: "print a shell completion script: bash, zsh or fish", run: runCompletion}
}

const completionUsage = `usage: coplay completion bash|zsh|fish

Prints a script that completes coplay's commands, subcommands, flags and the values of
--game, --preset, --brain and --approve. Load it for this shell, or install it:

  bash   source <(coplay completion bash)                    (in ~/.bashrc)
         coplay completion bash > ~/.local/share/bash-completion/completions/coplay
  zsh    source <(coplay completion zsh)                     (in ~/.zshrc, after compinit)
         coplay completion zsh > "${fpath[1]}/_coplay"
  fish   coplay completion fish | source
         coplay completion fish > ~/.config/fish/completions/coplay.fish
`

// runCompletion prints the completion script for one shell.
func runCompletion(args []string, stdout, stderr io.Writer) error {
	for _, a := range args {
		if isHelpFlag(a) {
			fmt.Fprint(stdout, completionUsage)
			return nil
		}
	}
	shells := map[string]func(io.Writer, *compNode){"bash": writeBash, "zsh": writeZsh, "fish": writeFish}
	if len(args) != 1 {
		return usagef("completion needs one shell: bash, zsh or fish (`coplay completion --help` says how to load it)")
	}
	write := shells[args[0]]
	if write == nil {
		return usagef("no completion for %q: bash, zsh or fish%s", args[0], didYouMean(args[0], "bash", "zsh", "fish"))
	}
	write(stdout, completionTree())
	return nil
}

// shellQuote quotes s for a POSIX shell (bash, zsh, and fish, which reads '\” alike).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fishQuote quotes s for fish, where a single-quoted string escapes ' and \ with \.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// names lists the nodes' names, space-separated.
func names(nodes []*compNode) string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.name)
	}
	return strings.Join(out, " ")
}

// flagWords lists the flags as typed, space-separated.
func flagWords(flags []compFlag) string {
	var out []string
	for _, f := range flags {
		out = append(out, flagWord(f.name))
	}
	return strings.Join(out, " ")
}

// valueCases writes a shell case arm per flag with a short list of values: `--game|-game)`
// followed by body(values).
func valueCases(w io.Writer, root *compNode, body func(values []string) string) {
	for _, f := range root.allFlags() {
		if f.values != nil {
			fmt.Fprintf(w, "    --%s|-%s) %s; return ;;\n", f.name, f.name, body(f.values))
		}
	}
}

// walkWords is the shell code (bash and zsh alike) that finds, from the words before the
// cursor, the command being completed (node: "sessions/export") and whether the cursor
// is on a flag's value (skip). first is the index of the word after `coplay`.
func walkWords(w io.Writer, root *compNode, first string) {
	fmt.Fprintf(w, `    local nodes=" %s "
    local valueflags=" %s "
    local node="" skip="" word name next i
    for ((i = %s; i < cword; i++)); do
        word=${words[i]}
        if [[ -n $skip ]]; then skip=""; continue; fi
        case $word in
        --) break ;;
        -*=*) ;;
        -*)
            name=${word#-}; name=${name#-}
            [[ $valueflags == *" $name "* ]] && skip=1 ;;
        *)
            next=${node:+$node/}$word
            [[ $nodes == *" $next "* ]] && node=$next ;;
        esac
    done
`, root.nodePaths(), root.valueFlagNames(), first)
}

// writeBash writes the bash script: a function for `complete -F`, falling back to file
// names where coplay has nothing better (a flag's file, a config file).
func writeBash(w io.Writer, root *compNode) {
	fmt.Fprint(w, "# bash completion for coplay, written by `coplay completion bash`.\n# Load it with: source <(coplay completion bash)\n")
	fmt.Fprint(w, "_coplay() {\n    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n")
	fmt.Fprint(w, "    local cword=$COMP_CWORD\n    local -a words=(\"${COMP_WORDS[@]}\")\n    COMPREPLY=()\n")
	walkWords(w, root, "1")
	fmt.Fprint(w, "    case $prev in\n")
	valueCases(w, root, func(values []string) string {
		return fmt.Sprintf(`COMPREPLY=($(compgen -W %s -- "$cur"))`, shellQuote(strings.Join(values, " ")))
	})
	fmt.Fprint(w, "    esac\n    [[ -n $skip ]] && return # a flag's value: file names (complete -o default)\n")
	fmt.Fprint(w, "    local list\n    if [[ $cur == -* ]]; then\n        case $node in\n")
	listCases(w, root, func(n *compNode) string {
		if len(n.flags) == 0 {
			return ""
		}
		return shellQuote(flagWords(n.flags))
	})
	fmt.Fprint(w, "        esac\n    else\n        case $node in\n")
	listCases(w, root, func(n *compNode) string {
		if len(n.subs) == 0 {
			return ""
		}
		return shellQuote(names(n.subs))
	})
	fmt.Fprint(w, "        esac\n    fi\n    COMPREPLY=($(compgen -W \"$list\" -- \"$cur\"))\n}\n")
	fmt.Fprint(w, "complete -o default -F _coplay coplay\n")
}

// writeZsh writes the zsh script: the same walk as bash, with descriptions.
func writeZsh(w io.Writer, root *compNode) {
	fmt.Fprint(w, "#compdef coplay\n# zsh completion for coplay, written by `coplay completion zsh`.\n")
	fmt.Fprint(w, "# Load it with: source <(coplay completion zsh) after compinit, or save it as _coplay in $fpath.\n")
	fmt.Fprint(w, "_coplay() {\n    local cur=${words[CURRENT]} prev=${words[CURRENT-1]}\n    local cword=$CURRENT\n")
	walkWords(w, root, "2")
	fmt.Fprint(w, "    case $prev in\n")
	valueCases(w, root, func(values []string) string {
		return "compadd -- " + strings.Join(values, " ")
	})
	fmt.Fprint(w, "    esac\n    if [[ -n $skip ]]; then _files; return; fi\n    local -a list\n")
	fmt.Fprint(w, "    if [[ $cur == -* ]]; then\n        case $node in\n")
	listCases(w, root, func(n *compNode) string {
		var items []string
		for _, f := range n.flags {
			items = append(items, shellQuote(flagWord(f.name)+":"+f.usage))
		}
		return zshList(items)
	})
	fmt.Fprint(w, "        esac\n        _describe -t flags flag list\n    else\n        case $node in\n")
	listCases(w, root, func(n *compNode) string {
		var items []string
		for _, s := range n.subs {
			items = append(items, shellQuote(s.name+":"+s.summary))
		}
		return zshList(items)
	})
	fmt.Fprint(w, "        esac\n        if (( ${#list} )); then _describe -t commands command list; else _files; fi\n    fi\n}\n")
	fmt.Fprint(w, "if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then _coplay \"$@\"; else compdef _coplay coplay; fi\n")
}

// listCases writes the arms of a shell case on $node, `PATH) list=LIST ;;`, for the
// nodes list gives a LIST for ("" for none), in the order of root.nodes().
func listCases(w io.Writer, root *compNode, list func(n *compNode) string) {
	for _, n := range root.nodes() {
		if l := list(n); l != "" {
			fmt.Fprintf(w, "        %s) list=%s ;;\n", shellQuote(n.path), l)
		}
	}
}

// zshList is a zsh array of items, or "" for none.
func zshList(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return "(" + strings.Join(items, " ") + ")"
}

// writeFish writes the fish script: one `complete` line per command and flag, each under
// the condition that the words before it lead there.
func writeFish(w io.Writer, root *compNode) {
	fmt.Fprint(w, "# fish completion for coplay, written by `coplay completion fish`.\n# Load it with: coplay completion fish | source\n")
	fmt.Fprint(w, "complete -c coplay -e\n")
	for _, n := range root.nodes() {
		cond := fishCondition(root, n)
		for _, s := range n.subs {
			fmt.Fprintf(w, "complete -c coplay -f -n %s -a %s -d %s\n", fishQuote(cond), fishQuote(s.name), fishQuote(s.summary))
		}
		for _, f := range n.flags {
			opt := "-l " + f.name
			if len(f.name) == 1 {
				opt = "-s " + f.name
			}
			switch {
			case f.values != nil:
				opt += " -x -a " + fishQuote(strings.Join(f.values, " "))
			case f.files:
				opt += " -r -F"
			case f.value:
				opt += " -x"
			}
			fmt.Fprintf(w, "complete -c coplay -n %s %s -d %s\n", fishQuote(cond), opt, fishQuote(f.usage))
		}
	}
}

// fishCondition is the fish test that the command line is at node n: the words of its
// path seen, and none of its subcommands yet (nor, at the root, any command).
func fishCondition(root, n *compNode) string {
	if n == root {
		return "__fish_use_subcommand"
	}
	var parts []string
	for _, word := range strings.Split(n.path, "/") {
		parts = append(parts, "__fish_seen_subcommand_from "+word)
	}
	if len(n.subs) > 0 {
		parts = append(parts, "not __fish_seen_subcommand_from "+names(n.subs))
	}
	return strings.Join(parts, "; and ")
}
