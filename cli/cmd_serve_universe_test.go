package cli

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeUniverse starts `coplay serve-universe` as a bot developer would, reads the
// base URL and token it prints, plays one authenticated request against it, and stops
// it with SIGINT.
func TestServeUniverse(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(coplayBinary(t), "serve-universe", "--addr", "127.0.0.1:0", "--seed", "4", "--no-rate-limit")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	var base, token string
	sc := bufio.NewScanner(out)
	deadline := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	for (base == "" || token == "") && sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "base URL:"); ok {
			base = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "token:"); ok {
			token = strings.TrimSpace(v)
		}
	}
	deadline.Stop()
	if base == "" || token == "" {
		t.Fatalf("no base URL or token printed (base %q, token %q)", base, token)
	}

	req, _ := http.NewRequest("GET", base+"/my/agent", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Data struct {
			Symbol  string `json:"symbol"`
			Credits int    `json:"credits"`
		} `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || body.Data.Symbol == "" || body.Data.Credits <= 0 {
		t.Fatalf("GET /my/agent: status %d, body %+v, err %v", resp.StatusCode, body.Data, err)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve-universe did not exit cleanly on SIGINT: %v", err)
		}
	case <-time.After(time.Minute): // only a hung test waits this long
		t.Fatal("serve-universe still running a minute after SIGINT")
	}
}
