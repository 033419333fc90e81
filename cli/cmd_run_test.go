package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// TestHeadlessAutopilotCompletesStartingContract plays `coplay run --headless
// --approve all` with the autopilot against the offline universe, the way a person
// would start it, and checks the starting contract is fulfilled and credits went up.
func TestHeadlessAutopilotCompletesStartingContract(t *testing.T) {
	data := filepath.Join(t.TempDir(), "coplay.db")
	stdin = strings.NewReader("")
	defer func() { stdin = nil }()
	var out, errOut bytes.Buffer
	code := run([]string{"run", "--headless", "--approve", "all", "--data", data,
		"--no-rate-limit", "--speed", "400", "--steps", "40"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}

	var firstCredits, lastCredits float64
	fulfilled := false
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev agent.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("bad event line %q: %v", sc.Text(), err)
		}
		switch ev.Type {
		case agent.EventObservation:
			for _, m := range ev.Observation.Metrics {
				if m.Name == "credits" {
					if firstCredits == 0 {
						firstCredits = m.Value
					}
					lastCredits = m.Value
				}
			}
		case agent.EventResult:
			if ev.Call.Tool == "fulfill_contract" && ev.Result.OK() {
				fulfilled = true
			}
		}
	}
	if !fulfilled {
		t.Fatalf("the starting contract was not fulfilled in 40 steps; output:\n%s", tail(out.String(), 3000))
	}
	if firstCredits == 0 || lastCredits <= firstCredits {
		t.Fatalf("credits did not go up: %v → %v", firstCredits, lastCredits)
	}
	t.Logf("credits %v → %v", firstCredits, lastCredits)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
