package live

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

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
	// Log, if not nil, hears each connection and departure, in words (the session
	// journals them), and the refusals: the first of a quiet spell, then a count a
	// minute.
	Log func(string)
	// LoginGrace is how long a connection has to authenticate (0: 30 s);
	// MaxUnauthenticated how many may try at once (0: 10).
	LoginGrace         time.Duration
	MaxUnauthenticated int
}

// loginGrace is LoginGrace, or the product's 30 s when it is 0 (tests set a short one
// so as not to wait half a minute for a closing they assert).
func (cfg SSHConfig) loginGrace() time.Duration {
	if cfg.LoginGrace == 0 {
		return sshLoginGrace
	}
	return cfg.LoginGrace
}

// SSH is a session served over SSH.
type SSH struct {
	srv   *ssh.Server
	ln    net.Listener
	guard *sshGuard
	done  chan error
	once  sync.Once
	err   error
}

// Addr is where the server listens.
func (s *SSH) Addr() net.Addr { return s.ln.Addr() }

// Close stops the server and ends its connections. Closing again does nothing.
func (s *SSH) Close() error {
	s.once.Do(func() {
		s.err = s.srv.Close()
		<-s.done
		s.guard.close()
	})
	return s.err
}

// roles are what each connection may do, by its ssh.Context.
type roleKey struct{}

type role struct {
	name  string // "ssh:" + the key's name
	steer bool
}

// connKey finds a connection's guardedConn in its ssh.Context.
type connKey struct{}

// ServeSSH serves the hub's session over SSH, as OpenSSH would serve a login: public
// keys only, from authorized_keys files that nobody else may write (StrictModes),
// honouring from=, refusing a key with an option coplay cannot honour (command=,
// permitopen=…), restrict and no-pty making a key watch-only; the files are read again
// when they change. A connection has 30 s to authenticate and at most 10 may try at
// once (LoginGraceTime, MaxStartups); refusals are journaled as a count a minute. Each
// connection gets a screen of its own, sized to its terminal, that watches (WatchKeys)
// or also steers (SteerKeys). A watcher's decision keys say that it may only watch.
func ServeSSH(cfg SSHConfig, h *Hub) (*SSH, error) {
	logf := func(format string, a ...any) {
		if cfg.Log != nil {
			cfg.Log(fmt.Sprintf(format, a...))
		}
	}
	say := func(s string) { logf("%s", s) }
	watch, steer, err := openKeys(cfg.WatchKeys, cfg.SteerKeys, say)
	if err != nil {
		return nil, err
	}
	if err := hostKey(cfg.HostKey); err != nil {
		return nil, err
	}
	grace, most := cfg.loginGrace(), cfg.MaxUnauthenticated
	if most == 0 {
		most = sshMaxUnauthenticated
	}
	guard := newGuard(say, most, grace)
	subs := sync.Map{} // ssh.Session -> *Sub
	srv, err := wish.NewServer(
		wish.WithAddress(cfg.Addr),
		wish.WithHostKeyPath(cfg.HostKey),
		func(s *ssh.Server) error {
			s.HandshakeTimeout = grace // authenticating included
			s.ConnCallback = func(ctx ssh.Context, c net.Conn) net.Conn {
				gc := guard.admit(c)
				if gc == nil {
					return nil
				}
				ctx.SetValue(connKey{}, gc)
				return gc
			}
			// A connection has authenticated once it opens a session: the public key
			// handler hears a key before its signature is checked, and a key's public
			// half is no secret.
			s.ChannelHandlers = map[string]ssh.ChannelHandler{
				"session": func(srv *ssh.Server, conn *gossh.ServerConn, ch gossh.NewChannel, ctx ssh.Context) {
					if gc, ok := ctx.Value(connKey{}).(*guardedConn); ok {
						gc.authenticated()
					}
					ssh.DefaultSessionHandler(srv, conn, ch, ctx)
				},
			}
			return nil
		},
		wish.WithPublicKeyAuth(func(ctx ssh.Context, key ssh.PublicKey) bool {
			gc, _ := ctx.Value(connKey{}).(*guardedConn)
			r, why, known := authorize(key, ctx.RemoteAddr(), steer.current(), watch.current())
			if why != "" {
				if gc != nil {
					gc.refused(why, known)
				}
				return false
			}
			ctx.SetValue(roleKey{}, r)
			return true
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
	s := &SSH{srv: srv, ln: ln, guard: guard, done: make(chan error, 1)}
	go func() {
		err := srv.Serve(ln)
		if errors.Is(err, ssh.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// CheckSSHKeys reads the keys files as ServeSSH will, so that a coplay can refuse to
// start before it makes anything: a file others may write, or one that lets no key in,
// is an error naming it.
func CheckSSHKeys(watchKeys, steerKeys string) error {
	_, _, err := openKeys(watchKeys, steerKeys, func(string) {})
	return err
}

// openKeys opens the watching and steering keys files; at least one key must be in
// them.
func openKeys(watchKeys, steerKeys string, say func(string)) (watch, steer *keyFile, err error) {
	if watch, err = openKeyFile(watchKeys, true, say); err != nil {
		return nil, nil, err
	}
	if steer, err = openKeyFile(steerKeys, false, say); err != nil {
		return nil, nil, err
	}
	if len(watch.current())+len(steer.current()) == 0 {
		return nil, nil, fmt.Errorf("--ssh: no key may connect: add public keys to %s (to watch) or pass --ssh-steer-keys FILE (to steer)", watchKeys)
	}
	return watch, steer, nil
}

// authorize finds what key may do from addr: the steering keys first, then the watching
// ones, the first line that allows it deciding (a key in both files may steer, unless
// that line forbids it from here). why says why it may not connect (known: coplay knows
// the key, and refused it for its options or its address).
func authorize(key ssh.PublicKey, addr net.Addr, steer, watch []sshKey) (r role, why string, known bool) {
	for i, k := range append(slices.Clip(steer), watch...) {
		if !ssh.KeysEqual(key, k.key) {
			continue
		}
		if err := k.allows(addr); err != nil {
			if why == "" {
				why, known = err.Error(), true
			}
			continue
		}
		return role{name: "ssh:" + k.name(), steer: i < len(steer) && !k.watchOnly}, "", true
	}
	if why == "" {
		why = "an unknown key " + gossh.FingerprintSHA256(key)
	}
	return role{}, why, known
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
