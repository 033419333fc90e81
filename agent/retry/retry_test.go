package retry

import (
	"testing"
	"time"
)

func TestRetryAfterHeader(t *testing.T) {
	h := make(map[string][]string)
	set := func(k, v string) { h[k] = []string{v} }
	set("Retry-After", "2")
	if d := After(h, timeNow()); d.Seconds() != 2 {
		t.Errorf("Retry-After 2 = %v", d)
	}
	set("Retry-After-Ms", "250")
	if d := After(h, timeNow()); d.Milliseconds() != 250 {
		t.Errorf("retry-after-ms 250 = %v", d)
	}
	delete(h, "Retry-After-Ms")
	set("Retry-After", timeNow().Add(90e9).UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT"))
	if d := After(h, timeNow()); d.Seconds() < 85 || d.Seconds() > 91 {
		t.Errorf("Retry-After as a date = %v, want about 90s", d)
	}
	set("Retry-After", "soon")
	if d := After(h, timeNow()); d != 0 {
		t.Errorf("Retry-After soon = %v, want 0", d)
	}
}

func timeNow() time.Time { return time.Unix(1767225600, 0) }
