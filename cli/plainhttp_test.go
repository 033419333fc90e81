package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game/mcp/mcptest"
)

// A model key never goes over plain http to a host that is not this machine unless the
// person allows it: refused before anything is opened or connected, saying why and how
// to allow it, for the OpenAI wire and for Claude's.
func TestModelKeyOverPlainHTTPIsRefused(t *testing.T) {
	t.Parallel()
	// A server that is really there, named by an address that is not loopback as
	// written: it must get no connection.
	origin, conns := mcptest.NotLoopback(t)
	there := origin + "/v1"
	const openaiKey, claudeKey = "sk-plain-openai-0123456789", "sk-ant-plain-0123456789"
	env := []string{"OPENAI_API_KEY=" + openaiKey, "ANTHROPIC_API_KEY=" + claudeKey}
	for _, tc := range []struct {
		name, keyEnv string
		args         []string
	}{
		{"openai", "OPENAI_API_KEY", []string{"--model", "gpt-4o-mini", "--model-url", "http://models.invalid:9/v1"}},
		{"anthropic", "ANTHROPIC_API_KEY", []string{"--preset", "anthropic", "--model-url", "http://models.invalid:9/v1"}},
		{"openai to a listener", "OPENAI_API_KEY", []string{"--model", "gpt-4o-mini", "--model-url", there}},
		{"anthropic to a listener", "ANTHROPIC_API_KEY", []string{"--preset", "anthropic", "--model-url", there}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "c.db")
			var out, errOut strings.Builder
			code := runEnv(t, env, append([]string{"run", "--headless", "--data", data}, tc.args...), &out, &errOut)
			msg := errOut.String()
			if code == 0 {
				t.Fatalf("ran: %s", out.String())
			}
			for _, want := range []string{"plain http", "unencrypted", tc.keyEnv, "--allow-plain-http", "allow_plain_http"} {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr does not say %q: %s", want, msg)
				}
			}
			if strings.Contains(msg+out.String(), openaiKey) || strings.Contains(msg+out.String(), claudeKey) {
				t.Errorf("the key was printed: %s", msg)
			}
			if _, err := os.Stat(data); !os.IsNotExist(err) {
				t.Errorf("a notebook was made: %v", err)
			}
		})
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the plain http server got %d connections", n)
	}
}

// Allowed knowingly, by the flag or by config.toml; loopback (as written) and a run
// without a key need no leave. Serial: the options are parsed in-process, and read the
// keys from the process's environment (t.Setenv).
func TestPlainHTTPAllowedAndLoopback(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-plain-openai-0123456789")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-plain-0123456789")
	check := func(doc string, args ...string) error {
		t.Helper()
		o, err := parseWithConfig(t, doc, args...)
		if err != nil {
			t.Fatal(err)
		}
		return o.check()
	}
	remote := "http://models.invalid:9/v1"
	if err := check("", "--model", "gpt-4o-mini", "--model-url", remote); err == nil {
		t.Fatal("refused nothing")
	}
	if err := check("", "--model", "gpt-4o-mini", "--model-url", remote, "--allow-plain-http"); err != nil {
		t.Errorf("--allow-plain-http: %v", err)
	}
	if err := check("[defaults]\nallow_plain_http = true\n", "--preset", "anthropic", "--model-url", remote); err != nil {
		t.Errorf("allow_plain_http = true: %v", err)
	}
	if err := check("[defaults]\nallow_plain_http = true\n", "--preset", "anthropic", "--model-url", remote, "--allow-plain-http=false"); err == nil {
		t.Error("--allow-plain-http=false did not beat the file")
	}
	if err := check("[defaults]\nbase_url = \"" + remote + "\"\nmodel = \"m\"\napi_key_env = \"OPENAI_API_KEY\"\n"); err == nil || !strings.Contains(err.Error(), "base_url") {
		t.Errorf("config.toml's base_url over plain http: %v", err)
	}
	for _, local := range []string{"http://localhost:11434/v1", "http://127.0.0.1:8080/v1", "http://127.3.2.1:8080/v1", "http://[::1]:8080/v1", "https://models.invalid/v1"} {
		if err := check("", "--model", "gpt-4o-mini", "--model-url", local); err != nil {
			t.Errorf("%s: %v", local, err)
		}
		if err := check("", "--preset", "anthropic", "--model-url", local); err != nil {
			t.Errorf("%s for Claude: %v", local, err)
		}
	}
	t.Setenv("OPENAI_API_KEY", "")
	if err := check("", "--model", "llama3", "--model-url", remote); err != nil {
		t.Errorf("no key, nothing to protect: %v", err)
	}
}
