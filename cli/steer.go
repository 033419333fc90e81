package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/live"
	"github.com/coplayhq/coplay/ui"
)

// steerOptions are the flags that let the person steer from elsewhere: how the screen
// calls them, and the session served over SSH.
type steerOptions struct {
	notify       string // --notify: auto, bell, osc, desktop, off
	ssh          string // --ssh ADDR ("" = not served)
	sshKeys      string // --ssh-keys: keys that may watch
	sshSteerKeys string // --ssh-steer-keys: keys that may also decide and advise
	sshKeysSet   bool   // --ssh-keys was given: a missing file is then an error
}

func (s *steerOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.notify, "notify", "auto", "how the screen calls you when a call waits and its terminal is not focused: "+strings.Join(config.NotifyModes, ", "))
	fs.StringVar(&s.ssh, "ssh", "", "serve the session over SSH at `ADDR` (127.0.0.1:2222): each key gets a screen of its own")
	fs.Func("ssh-keys", "the authorized_keys `FILE` of the keys that may watch over --ssh (default ~/.ssh/authorized_keys)", func(v string) error {
		s.sshKeys, s.sshKeysSet = v, true
		return nil
	})
	fs.StringVar(&s.sshSteerKeys, "ssh-steer-keys", "", "the authorized_keys `FILE` of the keys that may also decide and advise over --ssh (none by default)")
}

// check refuses values that cannot work.
func (s *steerOptions) check() error {
	if !slices.Contains(config.NotifyModes, s.notify) {
		return usagef("--notify must be one of %s, not %q%s", strings.Join(config.NotifyModes, ", "), s.notify, didYouMean(s.notify, config.NotifyModes...))
	}
	if s.ssh == "" && (s.sshKeysSet || s.sshSteerKeys != "") {
		return usagef("--ssh-keys and --ssh-steer-keys go with --ssh ADDR")
	}
	if s.ssh == "" {
		return nil
	}
	if s.sshKeysSet {
		if _, err := os.Stat(s.sshKeys); err != nil {
			return usagef("--ssh-keys: %v", err)
		}
	}
	// The keys files are checked before anything is made: a coplay that will not serve
	// them leaves no session behind.
	return live.CheckSSHKeys(s.watchKeys(), s.sshSteerKeys)
}

// watchKeys is the file of the keys that may watch: --ssh-keys, else
// ~/.ssh/authorized_keys.
func (s *steerOptions) watchKeys() string {
	if !s.sshKeysSet {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, ".ssh", "authorized_keys")
		}
	}
	return s.sshKeys
}

// serveSSH serves what hub shares over SSH when --ssh asks for it, each connection with
// a screen of its own showing hello; note journals who connects. It returns the address
// served ("" = not) and what the person must know about it (the default watch file is
// missing: only steer keys connect; "" = nothing), its closer added to closers.
func serveSSH(o options, hub *live.Hub, hello live.Hello, note func(string), closers *[]func() error) (addr, missing string, err error) {
	s := o.steer
	if s.ssh == "" {
		return "", "", nil
	}
	watch := s.watchKeys()
	dir, err := config.Dir()
	if err != nil {
		return "", "", fmt.Errorf("--ssh: no place for the host key: %w", err)
	}
	keys, err := loadKeys()
	if err != nil {
		return "", "", fmt.Errorf("reading your key bindings: %w", err)
	}
	srv, err := live.ServeSSH(live.SSHConfig{
		Addr: s.ssh, WatchKeys: watch, SteerKeys: s.sshSteerKeys,
		HostKey: filepath.Join(dir, "ssh_host_ed25519_key"),
		Screen: func(sub *live.Sub) tea.Model {
			info := screenInfo(hello, keys, nil)
			info.Session += " (" + sub.Via() + ")"
			info.Notify = ui.NotifyMode(s.notify)
			info.ReadOnly = sub.ReadOnly()
			info.Attached = true // quitting detaches; the game plays on
			return ui.New(sub, info)
		},
		Log: note,
	}, hub)
	if err != nil {
		return "", "", err
	}
	*closers = append(*closers, srv.Close)
	if _, err := os.Stat(watch); err != nil && !s.sshKeysSet {
		missing = "no watch keys: " + watch + " is missing"
	}
	return srv.Addr().String(), missing, nil
}
