package live

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	gossh "golang.org/x/crypto/ssh"
)

// sshKey is one line of an authorized_keys file, as coplay honours it (sshd(8),
// "AUTHORIZED_KEYS FILE FORMAT").
type sshKey struct {
	key     gossh.PublicKey
	fp      string // SHA256 fingerprint
	comment string // the line's comment, stripped of control characters
	from    string // from="pattern-list": the addresses it may connect from ("" = any)
	// watchOnly: restrict or no-pty: the key may watch, never steer, whatever file it
	// is in.
	watchOnly bool
	// refused says why the key may not connect at all: it carries an option coplay
	// cannot honour (command=, permitopen=…), which would otherwise be ignored.
	refused string
}

// name is how the journal and a decision's via name the key: its fingerprint, which
// nobody chooses, with the comment, which the file's writer chose, beside it.
func (k sshKey) name() string {
	if k.comment == "" {
		return k.fp
	}
	return k.fp + " (" + k.comment + ")"
}

// allows says whether the key may connect from addr, or why not.
func (k sshKey) allows(addr net.Addr) error {
	if k.refused != "" {
		return errors.New(k.refused)
	}
	if k.from == "" {
		return nil
	}
	ip := ipOf(addr)
	if ip == nil || !fromAllows(k.from, ip) {
		return fmt.Errorf("key %s may not connect from %s (from=%q)", k.name(), addrHost(addr), k.from)
	}
	return nil
}

// Options that coplay honours. Those that forbid what it never offers (forwarding,
// ~/.ssh/rc) and those that allow it (and it still does not offer) change nothing;
// restrict and no-pty make the key watch-only, from= is checked on every connection.
// Any other option (command=, permitopen=, environment=, expiry-time=…) would change
// what the key may do in a way coplay cannot follow, so such a key is refused.
var keyOptions = map[string]bool{
	"from": true, "restrict": true, "no-pty": true, "pty": true,
	"no-port-forwarding": true, "no-agent-forwarding": true, "no-x11-forwarding": true, "no-user-rc": true,
	"port-forwarding": true, "agent-forwarding": true, "x11-forwarding": true, "user-rc": true,
}

// parseKeyLine reads one authorized_keys line.
func parseKeyLine(line []byte) (sshKey, error) {
	pub, comment, options, _, err := gossh.ParseAuthorizedKey(line)
	if err != nil {
		return sshKey{}, err
	}
	k := sshKey{key: pub, fp: gossh.FingerprintSHA256(pub), comment: cleanComment(comment)}
	for _, o := range options {
		name, value, hasValue := strings.Cut(o, "=")
		name = strings.ToLower(name)
		switch {
		case !keyOptions[name]:
			if hasValue {
				name += "="
			}
			if k.refused == "" {
				k.refused = fmt.Sprintf("key %s carries %s, which coplay cannot honour", k.name(), name)
			}
		case name == "from":
			k.from = strings.Trim(value, `"`)
		case name == "restrict" || name == "no-pty":
			k.watchOnly = true
		}
	}
	return k, nil
}

// cleanComment keeps a comment to one printable line of at most 64 characters: it is
// written to the journal and drawn on screens.
func cleanComment(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == 64 {
			b.WriteRune('…')
			break
		}
		if unicode.IsPrint(r) {
			b.WriteRune(r)
			n++
		}
	}
	return strings.TrimSpace(b.String())
}

// fromAllows matches ip against a from= pattern list as sshd does without DNS
// (UseDNS no, its default): patterns of addresses with * and ?, CIDR ranges, and any
// pattern negated with ! refuses outright. A host name never matches an address.
func fromAllows(list string, ip net.IP) bool {
	allowed := false
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		var match bool
		if strings.Contains(p, "/") {
			_, n, err := net.ParseCIDR(p)
			match = err == nil && n.Contains(ip)
		} else {
			match = wildcard(strings.ToLower(p), ip.String())
		}
		if match && neg {
			return false
		}
		allowed = allowed || match
	}
	return allowed
}

// wildcard matches s against a pattern of * (any run) and ? (any one character).
func wildcard(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if wildcard(p[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
		}
		p, s = p[1:], s[1:]
	}
	return s == ""
}

// ipOf is the address a connection comes from.
func ipOf(addr net.Addr) net.IP {
	if a, ok := addr.(*net.TCPAddr); ok {
		return a.IP
	}
	return net.ParseIP(addrHost(addr))
}

func addrHost(addr net.Addr) string {
	if addr == nil {
		return "?"
	}
	h, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return h
}

// keyFile is an authorized_keys file, read again whenever it changes (its size, time,
// mode, owner or inode): a key removed from it can no longer connect, a key added can.
type keyFile struct {
	path     string
	optional bool // a missing file is no keys (the default watch file)
	log      func(string)

	mu   sync.Mutex
	sig  fileSig
	keys []sshKey
	bad  string // why the file's keys are all refused now ("" = they are not)
}

// fileSig is what tells that a file changed.
type fileSig struct {
	size  int64
	mod   time.Time
	mode  os.FileMode
	owner string // the owner and inode, where the system has them
}

// openKeyFile reads path for the first time: a file coplay cannot trust (StrictModes),
// or one it cannot read, is an error naming it.
func openKeyFile(path string, optional bool, log func(string)) (*keyFile, error) {
	f := &keyFile{path: path, optional: optional, log: log}
	if path == "" {
		return f, nil
	}
	sig, keys, err := f.read()
	if err != nil {
		return nil, err
	}
	f.sig, f.keys = sig, keys
	f.sayRefused(keys)
	return f, nil
}

// current returns the file's keys, reading it again if it changed since. A file that
// became untrustworthy or unreadable refuses every key, said once.
func (f *keyFile) current() []sshKey {
	if f.path == "" {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	sig, _ := signature(f.path)
	if sig == f.sig {
		return f.keys
	}
	sig, keys, err := f.read()
	f.sig, f.keys = sig, keys
	if err != nil {
		if msg := err.Error(); msg != f.bad {
			f.bad = msg
			f.log("SSH: " + msg + "; its keys are refused until that is fixed")
		}
		return nil
	}
	f.bad = ""
	f.log(fmt.Sprintf("SSH: %s changed: %d key(s) read again", f.path, len(keys)))
	f.sayRefused(keys)
	return keys
}

// sayRefused journals, once a reading, each key coplay refuses for its options.
func (f *keyFile) sayRefused(keys []sshKey) {
	for _, k := range keys {
		if k.refused != "" {
			f.log(fmt.Sprintf("SSH: %s: %s, so it may not connect", f.path, k.refused))
		}
	}
}

// read checks the file and reads its keys.
func (f *keyFile) read() (fileSig, []sshKey, error) {
	sig, err := signature(f.path)
	if errors.Is(err, os.ErrNotExist) && f.optional {
		return sig, nil, nil
	}
	if err != nil {
		return sig, nil, fmt.Errorf("reading SSH keys: %w", err)
	}
	if err := checkKeyFile(f.path); err != nil {
		return sig, nil, err
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return sig, nil, fmt.Errorf("reading SSH keys: %w", err)
	}
	var keys []sshKey
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, err := parseKeyLine(line)
		if err != nil {
			return sig, nil, fmt.Errorf("%s line %d: not an authorized key: %v", f.path, n, err)
		}
		keys = append(keys, k)
	}
	if err := sc.Err(); err != nil {
		return sig, nil, fmt.Errorf("reading SSH keys from %s: %w", f.path, err)
	}
	return sig, keys, nil
}
