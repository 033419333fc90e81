package live

// Unauthenticated is how many connections wait to authenticate now, for tests that
// must wait until a flood of refused connections has been counted.
func (s *SSH) Unauthenticated() int {
	s.guard.mu.Lock()
	defer s.guard.mu.Unlock()
	return s.guard.pending
}
