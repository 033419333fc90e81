package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The release build (.goreleaser.yaml) sets the version through -X flags: each must name
// a string variable of this package that exists, or the linker ignores it and a release
// says (devel). Cheap: the config and the source are read, nothing is built.
func TestReleaseLdflagsNameRealVariables(t *testing.T) {
	t.Parallel()
	cfg, err := os.ReadFile(filepath.Join("..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sets := regexp.MustCompile(`-X ([\w./-]+)\.(\w+)=`).FindAllStringSubmatch(string(cfg), -1)
	if len(sets) != 3 {
		t.Fatalf("the release config sets %d variables, want version, commit and date: %q", len(sets), sets)
	}
	vars := map[string]bool{}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cmd_version.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					vars[n.Name] = true
				}
			}
		}
	}
	for _, s := range sets {
		if s[1] != "github.com/coplayhq/coplay/cli" || !vars[s[2]] {
			t.Errorf("-X %s.%s names no variable of cli (cmd_version.go has %v)", s[1], s[2], vars)
		}
	}
	for _, want := range []string{"goos: [linux, darwin, windows]", "goarch: [amd64, arm64]", "- README.md", "- LICENSE", "- completions/*", "checksums.txt", "homebrew_casks:", "scoops:"} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf(".goreleaser.yaml lacks %q", want)
		}
	}
}

// A release binary names the version, commit and date it was given; any other build
// falls back to the build info. Serial: it sets the package's version variables, which
// in-process runs read.
func TestVersionLineFromLdflags(t *testing.T) {
	if got := versionLine(); !strings.HasPrefix(got, "coplay ") {
		t.Errorf("versionLine() = %q", got)
	}
	version, commit, date = "0.3.1", "2c3f4c9e1a7b55aa", "2026-11-26T10:02:11Z"
	defer func() { version, commit, date = "", "", "" }()
	if got, want := versionLine(), "coplay 0.3.1 (revision 2c3f4c9e1a7b, 2026-11-26T10:02:11Z) go"; !strings.HasPrefix(got, want) {
		t.Errorf("versionLine() = %q, want it to begin %q", got, want)
	}
}
