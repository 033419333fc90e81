package live_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/live"
)

// newKey makes an SSH key.
func newKey(t testing.TB) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// keyLine is k's authorized_keys line, with options before it and a comment after.
func keyLine(k gossh.Signer, options, comment string) string {
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k.PublicKey()))) + " " + comment + "\n"
	if options != "" {
		line = options + " " + line
	}
	return line
}

// keysDir is a directory only this user may write, as sshd wants it.
func keysDir(t testing.TB) string {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeKeys writes an authorized_keys file (0600).
func writeKeys(t testing.TB, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// logLines is what an SSH server journals.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// idle is a screen that draws nothing: these tests are about who gets in.
type idle struct{}

func (idle) Init() tea.Cmd                       { return nil }
func (idle) Update(tea.Msg) (tea.Model, tea.Cmd) { return idle{}, nil }
func (idle) View() tea.View                      { return tea.NewView("") }

// sshServer serves a hub over SSH on loopback with the given key files; screens hear
// each subscriber on subs.
func sshServer(t testing.TB, h *live.Hub, watch, steer string, log func(string)) (*live.SSH, chan *live.Sub) {
	t.Helper()
	subs := make(chan *live.Sub, 16)
	srv, err := live.ServeSSH(live.SSHConfig{
		Addr: "127.0.0.1:0", WatchKeys: watch, SteerKeys: steer,
		HostKey: filepath.Join(keysDir(t), "host_key"),
		Screen: func(sub *live.Sub) tea.Model {
			subs <- sub
			return idle{}
		},
		Log: log,
	}, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, subs
}

// quietHub is a hub on a runner that says nothing.
type quietRunner struct{ events chan agent.Event }

func (q quietRunner) Events() <-chan agent.Event { return q.events }
func (quietRunner) Send(agent.Command) error     { return nil }
func (quietRunner) Waiting() []agent.Event       { return nil }

func quietHub(t testing.TB) *live.Hub {
	q := quietRunner{events: make(chan agent.Event)}
	h := live.NewHub(q)
	h.Subscribe("screen", false)
	t.Cleanup(func() { close(q.events) })
	return h
}

// login connects with keys and opens a screen (a terminal and a shell).
func login(addr string, keys ...gossh.Signer) (*gossh.Client, error) {
	cl, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User: "player", Auth: []gossh.AuthMethod{gossh.PublicKeys(keys...)},
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
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		cl.Close()
		return nil, err
	}
	if err := sess.Shell(); err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

// nextSub waits for the screen of a connection that got in.
func nextSub(t *testing.T, subs chan *live.Sub) *live.Sub {
	t.Helper()
	select {
	case s := <-subs:
		return s
	case <-time.After(time.Minute):
		t.Fatal("no screen for a key that got in")
	}
	return nil
}

// A keys file, or its directory, that others may write: coplay refuses to serve,
// naming it.
func TestSSHRefusesKeyFilesOthersMayWrite(t *testing.T) {
	t.Parallel()
	k := newKey(t)
	dir := keysDir(t)
	steer := filepath.Join(dir, "steer_keys")
	writeKeys(t, steer, keyLine(k, "", "me"))
	os.Chmod(steer, 0o666)
	_, err := live.ServeSSH(live.SSHConfig{Addr: "127.0.0.1:0", SteerKeys: steer, HostKey: filepath.Join(dir, "host")}, quietHub(t))
	if err == nil || !strings.Contains(err.Error(), steer+" is writable by others (mode 0666)") {
		t.Fatalf("a world-writable keys file: %v", err)
	}
	os.Chmod(steer, 0o600)
	os.Chmod(dir, 0o770)
	_, err = live.ServeSSH(live.SSHConfig{Addr: "127.0.0.1:0", SteerKeys: steer, HostKey: filepath.Join(dir, "host")}, quietHub(t))
	if err == nil || !strings.Contains(err.Error(), "the directory of the SSH keys file "+steer+" is writable by others") {
		t.Fatalf("a group-writable directory: %v", err)
	}
}

// authorized_keys options, as sshd honours them: from= (a key under from="10.9.9.9" is
// refused from 127.0.0.1; a pattern or range that matches lets it in, a negated one
// keeps it out), a key with command= is refused whatever file it is in, restrict and
// no-pty make a steering key watch-only. The journal names each key by its SHA256
// fingerprint with its comment beside it.
func TestSSHHonoursKeyOptions(t *testing.T) {
	t.Parallel()
	far, near, ranged, notHere, forced, restricted, nopty := newKey(t), newKey(t), newKey(t), newKey(t), newKey(t), newKey(t), newKey(t)
	dir := keysDir(t)
	steer := filepath.Join(dir, "steer_keys")
	writeKeys(t, steer,
		keyLine(far, `from="10.9.9.9"`, "far"),
		keyLine(near, `from="10.9.9.9,127.0.0.*"`, "near"),
		keyLine(ranged, `from="127.0.0.0/8"`, "ranged"),
		keyLine(notHere, `from="*,!127.0.0.1"`, "not-here"),
		keyLine(forced, `from="127.0.0.1",no-pty,command="/bin/false"`, "forced"),
		keyLine(restricted, `restrict`, "restricted"),
		keyLine(nopty, `no-pty`, "nopty"),
	)
	var log logLines
	srv, subs := sshServer(t, quietHub(t), "", steer, log.add)
	addr := srv.Addr().String()

	for _, k := range []gossh.Signer{far, notHere, forced} {
		if cl, err := login(addr, k); err == nil {
			cl.Close()
			t.Fatalf("key %s got in", gossh.FingerprintSHA256(k.PublicKey()))
		}
	}
	for _, c := range []struct {
		key   gossh.Signer
		name  string
		steer bool
	}{{near, "near", true}, {ranged, "ranged", true}, {restricted, "restricted", false}, {nopty, "nopty", false}} {
		cl, err := login(addr, c.key)
		if err != nil {
			t.Fatalf("key %s: %v", c.name, err)
		}
		sub := nextSub(t, subs)
		want := "ssh:" + gossh.FingerprintSHA256(c.key.PublicKey()) + " (" + c.name + ")"
		if sub.Via() != want || sub.ReadOnly() == c.steer {
			t.Fatalf("key %s: via %q read-only %v, want %q read-only %v", c.name, sub.Via(), sub.ReadOnly(), want, !c.steer)
		}
		cl.Close()
	}
	if !slices.ContainsFunc(log.all(), func(l string) bool {
		return strings.Contains(l, "key "+gossh.FingerprintSHA256(forced.PublicKey())+" (forced) carries command=, which coplay cannot honour")
	}) {
		t.Errorf("the journal does not say why the forced key is refused: %q", log.all())
	}
}

// A keys file is read again when it changes: a key taken out can no longer connect, a
// key put in can.
func TestSSHReadsKeysAgainWhenTheyChange(t *testing.T) {
	t.Parallel()
	old, fresh := newKey(t), newKey(t)
	dir := keysDir(t)
	steer := filepath.Join(dir, "steer_keys")
	writeKeys(t, steer, keyLine(old, "", "old"))
	srv, subs := sshServer(t, quietHub(t), "", steer, func(string) {})
	addr := srv.Addr().String()
	cl, err := login(addr, old)
	if err != nil {
		t.Fatal(err)
	}
	nextSub(t, subs)
	cl.Close()
	writeKeys(t, steer, keyLine(fresh, "", "fresh"), "# old was here\n")
	if cl, err := login(addr, old); err == nil {
		cl.Close()
		t.Fatal("a key taken out of the file still got in")
	}
	cl, err = login(addr, fresh)
	if err != nil {
		t.Fatalf("a key put in the file: %v", err)
	}
	nextSub(t, subs)
	cl.Close()
}

// At most 10 connections wait to authenticate at once, the 11th is closed at once. The
// grace is the product's 30 s, so the ten are surely still waiting when the 11th comes
// however slowly the machine dials; the test closes them itself.
func TestSSHUnauthenticatedConnectionsAreBounded(t *testing.T) {
	t.Parallel()
	srv := unauthenticatedServer(t, 0)
	addr := srv.Addr().String()
	for range 10 {
		c := dialUnauthenticated(t, addr)
		// The server speaks first: its version line says the connection was taken.
		if _, err := c.Read(make([]byte, 64)); err != nil {
			t.Fatalf("a connection within the bound: %v", err)
		}
	}
	eleventh := dialUnauthenticated(t, addr)
	if n, err := eleventh.Read(make([]byte, 64)); err == nil {
		t.Fatalf("the 11th connection was taken (%d bytes)", n)
	}
}

// A connection that never authenticates is closed at the end of its login grace, not
// before. The grace is set short (the product's is 30 s, TestSSHLoginGraceDefault) so
// the test waits on the closing itself, not on half a minute of clock.
func TestSSHUnauthenticatedConnectionsAreClosedAfterGrace(t *testing.T) {
	t.Parallel()
	const grace = 2 * time.Second
	srv := unauthenticatedServer(t, grace)
	var waiting []net.Conn
	start := time.Now()
	for range 3 {
		c := dialUnauthenticated(t, srv.Addr().String())
		if _, err := c.Read(make([]byte, 64)); err != nil {
			t.Fatalf("a connection within the bound: %v", err)
		}
		waiting = append(waiting, c)
	}
	// They say nothing more: each is closed at the end of its grace (the read deadline
	// of a minute only catches a server that never closes).
	for _, c := range waiting {
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Fatalf("a connection that never authenticated was still open: %v", err)
		}
	}
	if took := time.Since(start); took < grace {
		t.Fatalf("the connections were closed %v after they opened, before the %v grace", took, grace)
	}
	t.Logf("3 unauthenticated connections closed %.1f s after they opened (grace %v)", time.Since(start).Seconds(), grace)
}

// unauthenticatedServer serves SSH to one steering key with the given login grace
// (0: the product's).
func unauthenticatedServer(t *testing.T, grace time.Duration) *live.SSH {
	t.Helper()
	dir := keysDir(t)
	steer := filepath.Join(dir, "steer_keys")
	writeKeys(t, steer, keyLine(newKey(t), "", "someone"))
	srv, err := live.ServeSSH(live.SSHConfig{
		Addr: "127.0.0.1:0", SteerKeys: steer, HostKey: filepath.Join(dir, "host_key"),
		Screen: func(*live.Sub) tea.Model { return idle{} }, LoginGrace: grace,
	}, quietHub(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// dialUnauthenticated opens a TCP connection that will never authenticate, closed at the
// test's end; its reads give up after a minute, which only a hung server reaches.
func dialUnauthenticated(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetReadDeadline(time.Now().Add(time.Minute))
	return c
}

// A flood of refused connections (50, each offering 6 unknown keys) is journaled as a
// count a minute: the first refusal at once, the other 49 in one record.
func TestSSHRefusalsAreCountedAMinute(t *testing.T) {
	t.Parallel()
	dir := keysDir(t)
	steer := filepath.Join(dir, "steer_keys")
	writeKeys(t, steer, keyLine(newKey(t), "", "someone"))
	var log logLines
	srv, _ := sshServer(t, quietHub(t), "", steer, log.add)
	start := time.Now()
	flood(t, srv.Addr().String(), 50, 6)
	flooded := time.Since(start)
	for srv.Unauthenticated() > 0 {
		time.Sleep(10 * time.Millisecond) // the server counts each as it closes it
	}
	t.Logf("50 connections refused in %.2f s, all counted after %.2f s", flooded.Seconds(), time.Since(start).Seconds())
	srv.Close()
	var refusals []string
	for _, l := range log.all() {
		if strings.HasPrefix(l, "SSH: refused") {
			refusals = append(refusals, l)
		}
	}
	if len(refusals) != 2 || !strings.HasPrefix(refusals[0], "SSH: refused 127.0.0.1: ") ||
		!strings.HasPrefix(refusals[1], "SSH: refused 49 more connection(s) in the last minute: ") || !strings.Contains(strings.Join(refusals, " "), "an unknown key SHA256:") {
		t.Fatalf("refusals journaled: %q", refusals)
	}
}

// flood makes n connections at once, each offering keys unknown keys, and waits until
// each was refused (for its keys, or at the door when too many wait already).
func flood(t testing.TB, addr string, n, keys int) {
	t.Helper()
	var signers []gossh.Signer
	for range keys {
		signers = append(signers, newKey(t))
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
				User: "stranger", Auth: []gossh.AuthMethod{gossh.PublicKeys(signers...)},
				HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: time.Minute,
			})
			// Refused for its keys (after six, sshd's MaxAuthTries, the server
			// disconnects), or at the door: more than 10 at once wait to authenticate.
			if err == nil {
				cl.Close()
				err = errors.New("an unknown key got in")
			} else {
				err = nil
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
