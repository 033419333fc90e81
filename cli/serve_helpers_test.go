package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tokens of the served seats in the tests (from the environment, as a person sets them).
const (
	heronSeatToken = "heron-seat-token-0123456789"
	finchSeatToken = "finch-seat-token-0123456789"
)

// seatEnv is the environment that gives Heron and Finch their tokens.
var seatEnv = []string{"COPLAY_SEAT_TOKEN_HERON=" + heronSeatToken, "COPLAY_SEAT_TOKEN_FINCH=" + finchSeatToken}

// serveProc is a `coplay serve` process: its URL, and its stderr as it comes.
type serveProc struct {
	cmd  *exec.Cmd
	URL  string
	mu   sync.Mutex
	log  strings.Builder
	done chan struct{}
}

var servingRe = regexp.MustCompile(`at (http://\S+/mcp)`)

// startServeProc starts `coplay serve ARGS` (on 127.0.0.1:0 unless args say) with env
// added, and waits until it serves. It is killed when the test ends.
func startServeProc(t testing.TB, env []string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(coplayBinary(t), append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, done: make(chan struct{})}
	url := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := servingRe.FindStringSubmatch(sc.Text()); m != nil {
				url <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() { p.kill() })
	select {
	case p.URL = <-url:
	case <-p.done:
		cmd.Wait()
		t.Fatalf("coplay serve %v stopped: %s", args, p.stderr())
	case <-time.After(time.Minute):
		t.Fatalf("coplay serve %v does not serve: %s", args, p.stderr())
	}
	return p
}

// stderr is what the server said so far.
func (p *serveProc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// kill kills the server with SIGKILL (kill -9) and waits for it.
func (p *serveProc) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		<-p.done
		p.cmd.Wait()
	}
}

// stop stops the server with SIGINT, as Ctrl-C does, and waits for it.
func (p *serveProc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(os.Interrupt)
	<-p.done
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("coplay serve on SIGINT: %v\n%s", err, p.stderr())
	}
}

// seatBearer adds a seat's token to every request.
type seatBearer struct{ token string }

func (b seatBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// seatClient is a go-sdk client of a served world with token; opts may be nil.
func seatClient(t testing.TB, url, token string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "seat-test", Version: "1"}, opts)
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: seatBearer{token}}, MaxRetries: -1}
	sess, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("joining %s: %v", url, err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// seatCall calls a tool and returns its text; a protocol error fails the test.
func seatCall(t testing.TB, sess *sdk.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := sess.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n"), res.IsError
}
