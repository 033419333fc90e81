package live

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/activeterm"
	"charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"
)

// SSHConfig says who may reach a session over SSH, and how.
type SSHConfig struct {
	// Addr is where to listen ("127.0.0.1:2222", ":2222").
	Addr string
	// WatchKeys and SteerKeys are authorized_keys files: the first may watch, the second
	// may also decide and advise. A key in neither is refused. An empty path: none.
	WatchKeys, SteerKeys string
	// HostKey is the server's private key file, made (ed25519, 0600) if missing.
	HostKey string
	// Screen makes the screen of one connection: the model, drawn on its terminal and
	// sized to it, reading and steering through sub.
	Screen func(sub *Sub) tea.Model
	// Log, if not nil, hears each connection, refusal and departure, in words
	// (the session journals them).
	Log func(string)
}

// sshKey is an authorized key and the name its decisions carry.
type sshKey struct {
	key  gossh.PublicKey
	name string // the key's comment, else its SHA256 fingerprint
}

// readKeys reads an authorized_keys file. A missing file is no keys when optional.
func readKeys(path string, optional bool) ([]sshKey, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && optional {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading SSH keys: %w", err)
	}
	var keys []sshKey
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, comment, _, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: not an authorized key: %v", path, n, err)
		}
		name := comment
		if name == "" {
			name = gossh.FingerprintSHA256(k)
		}
		keys = append(keys, sshKey{key: k, name: name})
	}
	return keys, nil
}

// SSH is a session served over SSH.
type SSH struct {
	srv  *ssh.Server
	ln   net.Listener
	done chan error
}

// Addr is where the server listens.
func (s *SSH) Addr() net.Addr { return s.ln.Addr() }

// Close stops the server and ends its connections.
func (s *SSH) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

// roles are what each connection may do, by its ssh.Context.
type roleKey struct{}

type role struct {
	name  string // "ssh:" + the key's name
	steer bool
}

// ServeSSH serves the hub's session over SSH: public keys only; each connection gets a
// screen of its own, sized to its terminal, that watches (WatchKeys) or also steers
// (SteerKeys). A watcher's decision keys say that it may only watch.
func ServeSSH(cfg SSHConfig, h *Hub) (*SSH, error) {
	watch, err := readKeys(cfg.WatchKeys, true)
	if err != nil {
		return nil, err
	}
	steer, err := readKeys(cfg.SteerKeys, false)
	if err != nil {
		return nil, err
	}
	if len(watch)+len(steer) == 0 {
		return nil, fmt.Errorf("--ssh: no key may connect: add public keys to %s (to watch) or pass --ssh-steer-keys FILE (to steer)", cfg.WatchKeys)
	}
	if err := hostKey(cfg.HostKey); err != nil {
		return nil, err
	}
	logf := func(format string, a ...any) {
		if cfg.Log != nil {
			cfg.Log(fmt.Sprintf(format, a...))
		}
	}
	subs := sync.Map{} // ssh.Session -> *Sub
	srv, err := wish.NewServer(
		wish.WithAddress(cfg.Addr),
		wish.WithHostKeyPath(cfg.HostKey),
		wish.WithPublicKeyAuth(func(ctx ssh.Context, key ssh.PublicKey) bool {
			// Steering keys first: a key in both files may steer.
			for _, k := range steer {
				if ssh.KeysEqual(key, k.key) {
					ctx.SetValue(roleKey{}, role{name: "ssh:" + k.name, steer: true})
					return true
				}
			}
			for _, k := range watch {
				if ssh.KeysEqual(key, k.key) {
					ctx.SetValue(roleKey{}, role{name: "ssh:" + k.name})
					return true
				}
			}
			logf("SSH: refused an unknown key %s from %s", gossh.FingerprintSHA256(key), ctx.RemoteAddr())
			return false
		}),
		wish.WithMiddleware(
			bubbletea.Middleware(func(sess ssh.Session) (tea.Model, []tea.ProgramOption) {
				r, _ := sess.Context().Value(roleKey{}).(role)
				sub := h.Subscribe(r.name, !r.steer)
				subs.Store(sess, sub)
				what := "watches"
				if r.steer {
					what = "steers"
				}
				logf("SSH: %s %s from %s", r.name, what, sess.RemoteAddr())
				return cfg.Screen(sub), nil
			}),
			activeterm.Middleware(),
			func(next ssh.Handler) ssh.Handler {
				return func(sess ssh.Session) {
					next(sess)
					if sub, ok := subs.LoadAndDelete(sess); ok {
						sub.(*Sub).Close()
						r, _ := sess.Context().Value(roleKey{}).(role)
						logf("SSH: %s left", r.name)
					}
				}
			},
		),
	)
	if err != nil {
		return nil, fmt.Errorf("--ssh: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("--ssh %s: %w", cfg.Addr, err)
	}
	s := &SSH{srv: srv, ln: ln, done: make(chan error, 1)}
	go func() {
		err := srv.Serve(ln)
		if errors.Is(err, ssh.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// hostKey makes sure the host key's directory exists and the key, if there, is the
// user's alone (wish makes a missing one, 0600).
func hostKey(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("--ssh: %w", err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return fmt.Errorf("--ssh: the host key %s is readable by others and cannot be closed: %w", path, err)
		}
	}
	return nil
}
