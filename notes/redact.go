package notes

import "bytes"

// redacted replaces a registered secret wherever it would be written.
const redacted = "[REDACTED]"

// minSecret is the shortest string Redact accepts: shorter ones would
// mangle ordinary text and are not credentials anyway.
const minSecret = 8

// Redact registers secrets (API keys, game tokens) that must never reach
// the file. From then on every record, note, plan step, rule and saved
// state written through this book has each occurrence replaced by
// "[REDACTED]". Strings shorter than 8 bytes are ignored.
//
// This is a safety net, not the primary defence: callers should not hand
// secrets to the notebook in the first place.
func (b *Book) Redact(secrets ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range secrets {
		if len(s) >= minSecret {
			b.secrets = append(b.secrets, []byte(s))
		}
	}
}

// scrub returns p with every registered secret replaced. It returns p
// itself when there is nothing to replace.
func (b *Book) scrub(p []byte) []byte {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, s := range b.secrets {
		if bytes.Contains(p, s) {
			p = bytes.ReplaceAll(p, s, []byte(redacted))
		}
	}
	return p
}

func (b *Book) scrubString(s string) string { return string(b.scrub([]byte(s))) }
