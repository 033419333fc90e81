package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

func init() {
	commands["version"] = command{summary: "print coplay's version, VCS revision and Go version (also --version)", run: runVersion}
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("coplay version", stderr)
	if err := parseNoArgs(fs, args, stdout); err != nil {
		return err
	}
	fmt.Fprintln(stdout, versionLine())
	return nil
}

// versionLine reads the build info the Go toolchain put in the binary: "coplay
// v0.3.1 (revision 2c3f4c9e1a7b, 2026-11-26T10:02:11Z, modified) go1.26.8 linux/amd64".
// A binary built from a checkout says (devel) and its revision; `go run` has no VCS
// information and says so.
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "coplay (no build information) " + goVersion()
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
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
	return fmt.Sprintf("coplay %s (%s) %s", version, strings.Join(parts, ", "), goVersion())
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
