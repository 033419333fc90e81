package cli

// How the package's tests share the machine (issue 48). Most of them start a coplay,
// in-process or the built binary, and then wait on it, on a scripted model or on a game
// server whose clock runs in real time: they call t.Parallel and many run at once.
//
// A test stays serial only when it must, and says why: it changes the process's
// environment (t.Setenv: a child gets its variables through cmd.Env instead, see
// runEnv and headlessRunEnv) or its working directory, or it gives the in-process
// run a stdin of its own (the package's stdin variable is one for the whole process).
// Serial tests all run first; the parallel ones start when they are done.

import (
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitingTestsPerCPU is how many parallel tests run at once per CPU when `go test` is not
// given -parallel (its default is one per CPU, for tests that compute). These tests
// mostly wait: with one per CPU the package took minutes with the machine idle.
const waitingTestsPerCPU = 4

// widenParallel lets more of the package's tests run at once than the machine has CPUs,
// unless -parallel was given. Called by TestMain before m.Run.
func widenParallel() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(waitingTestsPerCPU*runtime.GOMAXPROCS(0)))
	}
}

// noInput is the in-process run's stdin between tests: it has ended, as /dev/null has.
// It holds no state, so runs in parallel tests may read it at once.
type noInput struct{}

func (noInput) Read([]byte) (int, error) { return 0, io.EOF }

// setStdin gives the in-process run the stdin r until the test ends. The test must be
// serial: stdin is one variable for the whole process.
func setStdin(t *testing.T, r io.Reader) {
	t.Helper()
	stdin = r
	t.Cleanup(func() { stdin = noInput{} })
}

// runEnv is run(args, stdout, stderr) through the built binary, with env added to the
// test's environment and an empty stdin: what t.Setenv gave an in-process run, given to
// this child alone, so that the test can be parallel. It returns the exit status.
func runEnv(t *testing.T, env, args []string, stdout, stderr io.Writer) int {
	t.Helper()
	return runBinary(t, env, strings.NewReader(""), args, stdout, stderr)
}

// runBinary runs the built binary with args, env added to the test's environment and
// stdin, waits at most two minutes for it, and returns its exit status.
func runBinary(t *testing.T, env []string, stdin io.Reader, args []string, stdout, stderr io.Writer) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, coplayBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("coplay %s did not finish in 2 minutes", strings.Join(args, " "))
	}
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("coplay %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode()
}
