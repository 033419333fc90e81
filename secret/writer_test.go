package secret

import (
	"bytes"
	"strings"
	"testing"
)

func TestRedactorScrubsSecretsSplitAcrossWrites(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	var out bytes.Buffer
	r := NewWriter(&out, New(key, "short"))
	line := `{"type":"text","text":"my key is ` + key + ` and short stays"}` + "\n"
	for _, chunk := range []string{line[:30], line[30:40], line[40:], "tail " + key[:5], key[5:]} {
		if _, err := r.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, key) || strings.Count(got, "[REDACTED]") != 2 || !strings.Contains(got, "short stays") {
		t.Fatalf("redacted output: %q", got)
	}
}
