package cli

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/coplayhq/coplay/agent"
)

// sshKeyPair makes a key and its authorized_keys line, with comment.
func sshKeyPair(t *testing.T, comment string) (gossh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey()))) + " " + comment + "\n"
	return signer, line
}

// sshScreen is one SSH connection's screen: what it printed, without escapes.
type sshScreen struct {
	mu   sync.Mutex
	text strings.Builder
	in   io.WriteCloser
	sess *gossh.Session
	cl   *gossh.Client
}

func (s *sshScreen) has(sub string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Contains(s.text.String(), sub)
}

// dialScreen connects with key and asks for a terminal and a shell: coplay's screen.
func dialScreen(addr string, key gossh.Signer) (*sshScreen, error) {
	cl, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User: "player", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), // a test server's own key
		Timeout:         time.Minute,
	})
	if err != nil {
		return nil, err
	}
	sess, err := cl.NewSession()
	if err != nil {
		cl.Close()
		return nil, err
	}
	if err := sess.RequestPty("xterm-256color", 48, 160, gossh.TerminalModes{}); err != nil {
		cl.Close()
		return nil, err
	}
	s := &sshScreen{sess: sess, cl: cl}
	s.in, _ = sess.StdinPipe()
	out, _ := sess.StdoutPipe()
	if err := sess.Shell(); err != nil {
		cl.Close()
		return nil, err
	}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := out.Read(buf)
			s.mu.Lock()
			s.text.WriteString(ansi.Strip(string(buf[:n])))
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s, nil
}

func (s *sshScreen) Close() { s.cl.Close() }

// waitFor polls what a screen printed until it holds sub (the screen is another
// process: there is no event to wait on but its output).
func waitFor(ctx context.Context, t *testing.T, s *sshScreen, sub string) {
	t.Helper()
	for !s.has(sub) {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("the SSH screen never showed %q; it showed:\n%s", sub, tail(s.text.String(), 3000))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// The session served over SSH: an unknown key is refused; a watching key sees the
// panes and cannot decide; a steering key approves a call, with via naming ssh and
// the key (its SHA256 fingerprint, its comment beside it); connections are journaled
// as notices.
func TestSSHWatchAndSteer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	watchKey, watchLine := sshKeyPair(t, "watcher@laptop")
	steerKey, steerLine := sshKeyPair(t, "steerer@phone")
	strangerKey, _ := sshKeyPair(t, "stranger")
	watchFile, steerFile := filepath.Join(dir, "watch_keys"), filepath.Join(dir, "steer_keys")
	os.Chmod(dir, 0o700) // keys files and their directory are the user's alone, as sshd wants
	os.WriteFile(watchFile, []byte(watchLine), 0o600)
	os.WriteFile(steerFile, []byte(steerLine), 0o600)

	cmd := exec.CommandContext(ctx, coplayBinary(t), "run", "--headless", "--approve", "ask",
		"--data", filepath.Join(dir, "coplay.db"), "--no-rate-limit",
		"--ssh", "127.0.0.1:0", "--ssh-keys", watchFile, "--ssh-steer-keys", steerFile)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	addr := ""
	errLines := bufio.NewScanner(stderr)
	for errLines.Scan() {
		if a, ok := strings.CutPrefix(errLines.Text(), "served over SSH at "); ok {
			addr = a
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if addr == "" {
		t.Fatal("coplay run --ssh never said where it serves")
	}
	events := make(chan agent.Event, 1024)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var ev agent.Event
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				events <- ev
			}
		}
	}()
	next := func(what string, match func(agent.Event) bool) agent.Event {
		t.Helper()
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("the run ended before %s", what)
				}
				if match(ev) {
					return ev
				}
			case <-ctx.Done():
				t.Fatalf("no %s", what)
			}
		}
	}
	waiting := next("call waiting for a decision", func(ev agent.Event) bool {
		return ev.Type == agent.EventProposed && ev.Call != nil && ev.Call.NeedsOK
	})

	if _, err := dialScreen(addr, strangerKey); err == nil {
		t.Fatal("an unknown key was let in")
	}

	watcher, err := dialScreen(addr, watchKey)
	if err != nil {
		t.Fatalf("the watching key: %v", err)
	}
	defer watcher.Close()
	waitFor(ctx, t, watcher, waiting.Call.Tool)
	waitFor(ctx, t, watcher, "watching only")
	next("notice of the watcher", func(ev agent.Event) bool {
		return ev.Type == agent.EventNotice && strings.Contains(ev.Text, "ssh:"+gossh.FingerprintSHA256(watchKey.PublicKey())+" (watcher@laptop) watches")
	})
	for !watcher.has("only watches") {
		fmt.Fprint(watcher.in, "a")
		select {
		case <-ctx.Done():
			t.Fatal("the watcher's approve key never said it may only watch")
		case <-time.After(200 * time.Millisecond):
		}
	}

	steerer, err := dialScreen(addr, steerKey)
	if err != nil {
		t.Fatalf("the steering key: %v", err)
	}
	defer steerer.Close()
	waitFor(ctx, t, steerer, waiting.Call.Tool)
	done := make(chan struct{})
	go func() {
		// The screen ignores decision keys for a moment after a call appears (its
		// grace): press until the owner hears a decision.
		for {
			select {
			case <-done:
				return
			case <-time.After(250 * time.Millisecond):
				fmt.Fprint(steerer.in, "a")
			}
		}
	}()
	dec := next("decision from the steering key", func(ev agent.Event) bool {
		return ev.Type == agent.EventDecision && ev.Decision != nil && ev.Decision.By == "person"
	})
	close(done)
	steerVia := "ssh:" + gossh.FingerprintSHA256(steerKey.PublicKey()) + " (steerer@phone)"
	if dec.Decision.Via != steerVia || dec.Decision.Decision != agent.Approve {
		t.Fatalf("decision = %+v, want approve via %s", dec.Decision, steerVia)
	}
	// Advice over SSH names its key too.
	fmt.Fprint(steerer.in, "/mine first\r") // the screen takes the keys in order: the input opens, then is typed into
	adv := next("advice from the steering key", func(ev agent.Event) bool { return ev.Type == agent.EventAdvice })
	if adv.Via != steerVia || adv.Text != "mine first" {
		t.Fatalf("advice = %+v, want it via %s", adv, steerVia)
	}
	fmt.Fprintln(stdin, `{"cmd":"stop"}`)
}

// A --ssh-steer-keys file anyone may write: coplay refuses to start, naming it, plays
// nothing and makes no notebook (the files are checked with the flags).
func TestSSHRefusesWorldWritableSteerKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	_, line := sshKeyPair(t, "me@laptop")
	steerFile := filepath.Join(dir, "steer_keys")
	os.WriteFile(steerFile, []byte(line), 0o600)
	os.Chmod(steerFile, 0o666)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, coplayBinary(t), "run", "--headless", "--approve", "ask",
		"--data", filepath.Join(dir, "coplay.db"), "--no-rate-limit", "--steps", "1",
		"--ssh", "127.0.0.1:0", "--ssh-keys", steerFile, "--ssh-steer-keys", steerFile)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		t.Fatalf("coplay started with a world-writable steer keys file; stdout:\n%s", tail(string(out), 2000))
	}
	if !strings.Contains(stderr.String(), steerFile+" is writable by others (mode 0666)") {
		t.Fatalf("the refusal does not name the file: %s", stderr.String())
	}
	if strings.Contains(string(out), `"type":"tool_proposed"`) {
		t.Fatal("the game was played before the refusal")
	}
	if _, err := os.Stat(filepath.Join(dir, "coplay.db")); err == nil {
		t.Fatal("a notebook (and a session in it) was made before the refusal")
	}
}

// TestSSHMissingWatchKeysSaid: served over SSH with no ~/.ssh/authorized_keys, coplay
// run says so on its start-up lines, beside the address, and who can connect.
func TestSSHMissingWatchKeysSaid(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	_, steerLine := sshKeyPair(t, "steerer@phone")
	steerFile := filepath.Join(dir, "steer_keys")
	os.WriteFile(steerFile, []byte(steerLine), 0o600)
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	cmd := exec.CommandContext(ctx, coplayBinary(t), "run", "--headless", "--approve", "ask", "--game", "arena",
		"--data", filepath.Join(dir, "coplay.db"), "--ssh", "127.0.0.1:0", "--ssh-steer-keys", steerFile)
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
	stdin, _ := cmd.StdinPipe()
	stderr, _ := cmd.StderrPipe()
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	lines := bufio.NewScanner(stderr)
	var said []string
	for lines.Scan() {
		said = append(said, lines.Text())
		if strings.HasPrefix(lines.Text(), "served over SSH at ") {
			lines.Scan()
			said = append(said, lines.Text())
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	want := "no watch keys: " + filepath.Join(dir, ".ssh", "authorized_keys") + " is missing: only the keys in --ssh-steer-keys connect"
	if !slices.Contains(said, want) {
		t.Fatalf("start-up lines %q lack %q", said, want)
	}
}
