package cli

// How the tests run the coplay binary: built once per test binary, then run headless
// with its events read back as they come, or run to its end with its output kept.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game/mcp/mcptest"
)

var (
	binDir    string
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain gives the tests that run the coplay binary a directory to build it in, and
// removes it afterwards.
func TestMain(m *testing.M) {
	if os.Getenv("COPLAY_FAULTS_SERVE") == "1" {
		// The test binary re-executed as a stdio MCP server (faults_play_test.go).
		mcptest.ServeFaultsStdio("COPLAY_FAULTS_LOG")
	}
	if spec := os.Getenv(leagueFiguresEnv); spec != "" {
		// The test binary re-executed as BenchmarkLeague's child (bench_league_test.go).
		os.Exit(playLeagueFigures(spec))
	}
	widenParallel()
	stdin = noInput{} // parallel tests' in-process runs read it at once (parallel_test.go)
	var err error
	if binDir, err = os.MkdirTemp("", "coplay-reliability-"); err != nil {
		fmt.Fprintln(os.Stderr, "reliability tests:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// coplayBinary builds coplay once per test binary (only when a test needs it, so that
// `go test -run TestSessions` does not pay for the build) and returns its path.
func coplayBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		binPath = filepath.Join(binDir, "coplay")
		out, err := exec.Command("go", "build", "-o", binPath, "..").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// startPiped starts cmd (the binary, as a person or a script drives it) with its stdin
// and stdout piped and its stderr written to stderr.
func startPiped(t *testing.T, cmd *exec.Cmd, stderr io.Writer) (stdin io.WriteCloser, stdout io.ReadCloser) {
	t.Helper()
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}

// headlessCmd is `coplay run --headless ARGS`, stopped when ctx is done, with env added
// to an environment whose model and game variables are cleared (the person's own
// keys and tokens never reach a test run).
func headlessCmd(ctx context.Context, t *testing.T, args, env []string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, coplayBinary(t), append([]string{"run", "--headless"}, args...)...)
	cmd.Env = append(append(os.Environ(), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "SPACETRADERS_TOKEN="), env...)
	return cmd
}

// headlessOpen runs `coplay run --headless ARGS` with env (as headlessCmd) to its end,
// after writing commands on its stdin, which stays open until the run ends: nobody else
// speaks. A non-zero exit fails the test. It returns what the run printed on stdout.
func headlessOpen(t *testing.T, args, env []string, commands string) *bytes.Buffer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := headlessCmd(ctx, t, args, env)
	in, err := cmd.StdinPipe() // Wait closes it
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, commands)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("coplay run --headless %s: %v; stderr:\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return &out
}

// headlessRun starts `coplay run --headless` with args, hands every event to on (which
// may answer with commands), and returns the events once the run ends.
func headlessRun(t *testing.T, args []string, on func(ev agent.Event, send func(agent.Command))) []agent.Event {
	t.Helper()
	return headlessRunEnv(t, args, nil, on)
}

// headlessRunEnv is headlessRun with extra environment variables (NAME=value).
func headlessRunEnv(t *testing.T, args, env []string, on func(ev agent.Event, send func(agent.Command))) []agent.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := headlessCmd(ctx, t, args, env)
	var stderr strings.Builder
	stdin, stdout := startPiped(t, cmd, &stderr)
	send := func(c agent.Command) {
		b, _ := json.Marshal(c)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Errorf("sending %s: %v", b, err)
		}
	}
	var evs []agent.Event
	eachEvent(t, stdout, func(ev agent.Event, line []byte) {
		evs = append(evs, ev)
		if os.Getenv("COPLAY_TEST_TRACE") != "" {
			t.Logf("event: %.300s", line)
		}
		on(ev, send)
	})
	io.Copy(io.Discard, stdout)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("coplay run: %v\nstderr: %s", err, stderr.String())
	}
	return evs
}

// headlessLines runs the coplay binary headless with stdin, whatever its exit status,
// and returns the events it printed, decoded.
func headlessLines(t *testing.T, stdin string, args ...string) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := headlessCmd(ctx, t, append([]string{"--no-rate-limit"}, args...), nil)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("coplay %v did not finish in 2 minutes; stderr:\n%s", args, errOut.String())
	}
	var evs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("stdout line %q: %v (stderr %s)", l, err, errOut.String())
		}
		evs = append(evs, ev)
	}
	return evs
}

// coplayRun runs the binary with env added to the environment and returns stdout and
// stderr; an exit status other than 0 fails the test.
func coplayRun(t *testing.T, env []string, stdin string, args ...string) (string, string) {
	t.Helper()
	var out, errOut strings.Builder
	if code := runBinary(t, env, strings.NewReader(stdin), args, &out, &errOut); code != 0 {
		t.Fatalf("coplay %s: exit status %d\nstderr:\n%s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String(), errOut.String()
}

// eachEvent reads headless events, one JSON object a line, and hands each to f as it
// comes, with its line.
func eachEvent(t *testing.T, out io.Reader, f func(ev agent.Event, line []byte)) {
	t.Helper()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev agent.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("bad event line %q: %v", sc.Text(), err)
		}
		f(ev, sc.Bytes())
	}
}
