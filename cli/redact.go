package cli

import (
	"bytes"
	"io"
	"os"
)

// secrets are the environment's keys and tokens. coplay never hands them to a model,
// but a model or server that echoes one back must not get it written anywhere.
func secrets() []string {
	s := []string{os.Getenv("OPENAI_API_KEY"), os.Getenv("OPENROUTER_API_KEY"),
		os.Getenv("SPACETRADERS_TOKEN"), os.Getenv("SPACETRADERS_ACCOUNT_TOKEN")}
	for _, env := range configSecretEnvs { // keys the config file names (profile.go)
		s = append(s, os.Getenv(env))
	}
	return s
}

// redactor writes whole lines with every secret replaced by [REDACTED]. It holds a
// partial line until its end arrives, so a secret split across writes is still caught.
type redactor struct {
	w       io.Writer
	secrets [][]byte
	partial []byte
}

// newRedactor returns a redactor for w; secrets shorter than 8 bytes are ignored
// (they would mangle ordinary text, and are not credentials).
func newRedactor(w io.Writer, secrets ...string) *redactor {
	r := &redactor{w: w}
	for _, s := range secrets {
		if len(s) >= 8 {
			r.secrets = append(r.secrets, []byte(s))
		}
	}
	return r
}

// Write passes on every complete line of p, scrubbed.
func (r *redactor) Write(p []byte) (int, error) {
	r.partial = append(r.partial, p...)
	end := bytes.LastIndexByte(r.partial, '\n')
	if end < 0 {
		return len(p), nil
	}
	if _, err := r.w.Write(r.scrub(r.partial[:end+1])); err != nil {
		return 0, err
	}
	r.partial = append(r.partial[:0], r.partial[end+1:]...)
	return len(p), nil
}

// Flush writes what is left of an unfinished line.
func (r *redactor) Flush() error {
	if len(r.partial) == 0 {
		return nil
	}
	_, err := r.w.Write(r.scrub(r.partial))
	r.partial = r.partial[:0]
	return err
}

func (r *redactor) scrub(p []byte) []byte {
	for _, s := range r.secrets {
		p = bytes.ReplaceAll(p, s, []byte("[REDACTED]"))
	}
	return p
}
