package live

import (
	"testing"
	"time"
)

// The product gives a connection 30 s to authenticate; tests that watch the grace end
// set a shorter one, and must not change what a user gets.
func TestSSHLoginGraceDefault(t *testing.T) {
	t.Parallel()
	if got := (SSHConfig{}).loginGrace(); got != 30*time.Second {
		t.Fatalf("the default login grace is %v, want 30s", got)
	}
	if got := (SSHConfig{LoginGrace: time.Second}).loginGrace(); got != time.Second {
		t.Fatalf("a set login grace is %v, want 1s", got)
	}
}
