package config

import (
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Unknown keys: what toml left undecoded in a table it decoded into a struct.

var (
	// flagAliases are keys named after a flag rather than the key, too far from it to
	// be found as a typo.
	flagAliases = map[string]struct{ key, why string }{
		"max_tokens": {"max_run_tokens", " the run's token cap, --max-tokens; max_tokens is a profile's longest answer per model call"},
		"max_cost":   {"max_run_cost", ""},
		"max_spend":  {"max_run_cost", ""},
	}
	// secretKeys are keys people reach for to put a secret in the file.
	secretKeys = []string{"api_key", "key", "token", "secret", "password", "openai_api_key", "apikey"}
)

// unknownKeys reports the keys toml left undecoded (md.Undecoded) and the keys it
// matched only ignoring case (bind). What is reported is the key of the undecoded one
// that sits in a table the checker decoded (sub, for sub.deep = 1), once: the keys
// under an unknown key, or in a table refused whole, are that key's or table's problem.
func (c *checker) unknownKeys() {
	reported := map[string]bool{}
	for _, k := range append(c.md.Undecoded(), c.folded...) {
		for j := 1; j <= len(k); j++ {
			known, decoded := c.tables[k[:j-1].String()]
			if !decoded || slices.Contains(known, k[j-1]) {
				continue
			}
			if s := k[:j].String(); !reported[s] {
				reported[s] = true
				c.unknown(k[:j], known)
			}
			break
		}
	}
}

// unknown reports key as unknown in a table whose keys are known, saying what was
// probably meant.
func (c *checker) unknown(key toml.Key, known []string) {
	last := key[len(key)-1]
	if isSecretKey(last) {
		c.errf(key, "secrets never go in the config file: put the key in an environment variable and name the variable with api_key_env")
		return
	}
	if a, ok := flagAliases[strings.ReplaceAll(last, "-", "_")]; ok && slices.Contains(known, a.key) {
		c.errf(key, "unknown key (did you mean %s?%s)", a.key, a.why)
		return
	}
	c.errf(key, "unknown key%s", didYouMean(last, known, true))
}

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range secretKeys {
		if k == s || strings.HasSuffix(k, "_"+s) && k != "api_key_env" {
			return true
		}
	}
	return false
}
