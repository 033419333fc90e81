//go:build !linux

package live

import "net"

// checkPeer relies on the socket's directory (0700) and the socket's mode (0600) where
// the system offers no portable way to ask for the peer's user.
func checkPeer(net.Conn) error { return nil }
