package cli

import (
	"os"
	"slices"

	"github.com/coplayhq/coplay/agent/models"
	"github.com/coplayhq/coplay/secret"
)

// secretEnvs are the environment variables that hold keys and tokens.
var secretEnvs = append(presetKeyEnvs(), "SPACETRADERS_TOKEN", "SPACETRADERS_ACCOUNT_TOKEN")

// presetKeyEnvs are the key variables of every model preset (OPENAI_API_KEY,
// ANTHROPIC_API_KEY, GEMINI_API_KEY, ...), each once.
func presetKeyEnvs() []string {
	var out []string
	for _, p := range models.Presets() {
		if p.KeyEnv != "" && !slices.Contains(out, p.KeyEnv) {
			out = append(out, p.KeyEnv)
		}
	}
	return out
}

// secrets are the environment's keys and tokens. coplay never hands them to a model,
// but a model or server that echoes one back must not get it written anywhere.
func secrets() []string {
	var s []string
	for _, env := range append(append([]string(nil), secretEnvs...), configSecretEnvs...) { // configSecretEnvs: keys the config file names (profile.go)
		s = append(s, os.Getenv(env))
	}
	return s
}

// scrubber is the one scrubber (package secret) for the environment's secrets, each
// named by its variable, so a refusal can say which one a text holds.
func scrubber() *secret.Scrubber {
	s := secret.New()
	for _, env := range append(append([]string(nil), secretEnvs...), configSecretEnvs...) {
		s.AddNamed(env, os.Getenv(env))
	}
	return s
}
