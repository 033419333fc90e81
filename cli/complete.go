package cli

import (
	"flag"
	"io"
	"sort"
	"strings"
)

// compNode is one command the shell completes, with its flags and subcommands: the
// root is `coplay` itself (the screen's flags and every command).
type compNode struct {
	name    string // "" for the root
	path    string // "sessions/export": the words that lead to it, joined by "/"
	summary string
	flags   []compFlag
	subs    []*compNode
}

// compFlag is one flag of a command, as the shell completes it.
type compFlag struct {
	name   string
	usage  string   // its help, on one line
	value  bool     // it takes a value (not a bool flag)
	values []string // the values it takes, when they are a short list
	files  bool     // its value is a file
}

// subcommands are the commands that take a subcommand as their first word, each with
// its line for a completion menu; their flags are read from `coplay CMD SUB --help`.
var subcommands = map[string][][2]string{
	"sessions": {
		{"list", "list saved sessions, newest first"},
		{"export", "write a session's (or a league's) markdown transcript"},
		{"rm", "delete a session (or every seat's of a league)"},
		{"replay", "replay a session (or a league's seats on one timeline) step by step"},
	},
	"config": {
		{"init", "write a commented example config file"},
		{"check", "check a config file: every problem, with its line and key"},
		{"profiles", "list the profiles with their versions"},
		{"path", "print where the config file is read from"},
	},
	"mcp":        {{"logout", "forget an MCP server's OAuth authorization"}},
	"completion": {{"bash", "the bash script"}, {"zsh", "the zsh script"}, {"fish", "the fish script"}},
}

// flagValues are the values of flags that take one of a few, for completion.
var flagValues = map[string]func() []string{
	"game":    driverNames,
	"preset":  presetNames,
	"brain":   func() []string { return []string{"autopilot", "model", "script:"} },
	"approve": func() []string { return []string{"ask", "all"} },
	"catalog": func() []string { return []string{"ops", "grouped"} },
}

// flagCollector is the stdout parseFlags is given when completion asks a command for
// its flags: parseFlags keeps the flag set here instead of printing its help.
type flagCollector struct {
	fs *flag.FlagSet
}

// Write swallows what a command prints for --help outside parseFlags (a usage text).
func (c *flagCollector) Write(p []byte) (int, error) { return len(p), nil }

// completionTree reads every command's flags, by asking each for its help with a
// flagCollector for stdout: the flags are the ones the commands really parse.
func completionTree() *compNode {
	root := &compNode{flags: commandFlags("play")}
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	help := &compNode{name: "help", path: "help", summary: "print the commands, or a command's flags (help COMMAND)"}
	for _, n := range names {
		node := &compNode{name: n, path: n, summary: commands[n].summary, flags: commandFlags(n)}
		for _, sub := range subcommands[n] {
			node.subs = append(node.subs, &compNode{name: sub[0], path: n + "/" + sub[0], summary: sub[1], flags: commandFlags(n, sub[0])})
		}
		root.subs = append(root.subs, node)
		help.subs = append(help.subs, &compNode{name: n, path: "help/" + n, summary: node.summary})
	}
	root.subs = append(root.subs, help)
	sort.Slice(root.subs, func(i, j int) bool { return root.subs[i].name < root.subs[j].name })
	return root
}

// commandFlags are the flags of `coplay WORDS...`, read from its flag set.
func commandFlags(words ...string) []compFlag {
	c := &flagCollector{}
	commands[words[0]].run(append(words[1:], "--help"), c, io.Discard)
	if c.fs == nil {
		return nil
	}
	var out []compFlag
	c.fs.VisitAll(func(f *flag.Flag) {
		placeholder, usage := flag.UnquoteUsage(f)
		cf := compFlag{name: f.Name, usage: oneLine(usage), value: !isBoolFlag(f)}
		if values := flagValues[f.Name]; values != nil && cf.value {
			cf.values = values()
		}
		cf.files = cf.value && cf.values == nil && (strings.Contains(strings.ToLower(placeholder), "file") || strings.EqualFold(placeholder, "dir"))
		out = append(out, cf)
	})
	return out
}

// isBoolFlag reports whether f is given without a value (--json).
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// oneLine is s on one line, cut to what a completion menu shows.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 90 {
		cut := strings.LastIndex(s[:90], " ")
		if cut < 40 {
			cut = 90
		}
		s = s[:cut] + "…"
	}
	return s
}

// nodes lists n and every node under it, depth first.
func (n *compNode) nodes() []*compNode {
	out := []*compNode{n}
	for _, s := range n.subs {
		out = append(out, s.nodes()...)
	}
	return out
}

// allFlags is every flag of every command once, by name (the shells' scripts skip the
// value after a flag that takes one, whichever command it belongs to).
func (n *compNode) allFlags() []compFlag {
	seen := map[string]bool{}
	var out []compFlag
	for _, node := range n.nodes() {
		for _, f := range node.flags {
			if !seen[f.name] {
				seen[f.name] = true
				out = append(out, f)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// valueFlagNames are the names of the flags that take a value, space-separated.
func (n *compNode) valueFlagNames() string {
	var names []string
	for _, f := range n.allFlags() {
		if f.value {
			names = append(names, f.name)
		}
	}
	return strings.Join(names, " ")
}

// nodePaths are the paths of every command below the root, space-separated.
func (n *compNode) nodePaths() string {
	var paths []string
	for _, node := range n.nodes()[1:] {
		paths = append(paths, node.path)
	}
	return strings.Join(paths, " ")
}

// flagWord is how a flag is typed: --name, or -o for a one-letter name.
func flagWord(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
