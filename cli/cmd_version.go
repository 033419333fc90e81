package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func init() { addCommand(newVersionCmd) }

// newVersionCmd is `coplay version`.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use: "version", Short: "print coplay's version, VCS revision and Go version (also --version)", Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}

// A release build sets these with -ldflags "-X github.com/coplayhq/coplay/cli.version=..."
// (.goreleaser.yaml); in any other build they are empty and versionLine reads the build
// info instead. A test checks that the release config names these three.
var (
	version = "" // "0.3.1", the release's tag without its v
	commit  = "" // the full commit hash the release was built from
	date    = "" // when it was built, RFC 3339
)

// versionLine says which coplay this is: "coplay 0.3.1 (revision 2c3f4c9e1a7b,
// 2026-11-26T10:02:11Z) go1.26.8 linux/amd64". A release build names its version,
// commit and date (set through ldflags); any other build reads the build info the Go
// toolchain put in the binary: a binary built from a checkout says (devel) and its
// revision, and `go run` has no VCS information and says so.
func versionLine() string {
	if version != "" {
		return describeVersion(version, commit, date, false)
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "coplay (no build information) " + goVersion()
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return describeVersion(v, rev, at, modified)
}

// describeVersion is the version line from its parts (rev and at may be "").
func describeVersion(v, rev, at string, modified bool) string {
	var parts []string
	if rev != "" {
		parts = append(parts, "revision "+rev[:min(12, len(rev))])
	} else {
		parts = append(parts, "no VCS revision")
	}
	if at != "" {
		parts = append(parts, at)
	}
	if modified {
		parts = append(parts, "modified")
	}
	return fmt.Sprintf("coplay %s (%s) %s", v, strings.Join(parts, ", "), goVersion())
}

func goVersion() string {
	info, _ := debug.ReadBuildInfo()
	v := "go?"
	if info != nil {
		v = info.GoVersion
	}
	return v + " " + runtimeOSArch
}

// runtimeOSArch is the platform the binary was built for.
var runtimeOSArch = runtime.GOOS + "/" + runtime.GOARCH
