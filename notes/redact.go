package notes

import "github.com/coplayhq/coplay/secret"

// minSecret is the shortest string Redact accepts (secret.MinLen).
const minSecret = secret.MinLen

// redacted replaces a registered secret wherever it would be written.
const redacted = secret.Redacted

// Redact registers secrets (API keys, game tokens) that must never reach
// the file. From then on every record, note, plan step, rule and saved
// state written through this book has each occurrence replaced by
// "[REDACTED]". Strings shorter than 8 bytes are ignored.
//
// This is a safety net, not the primary defence: callers should not hand
// secrets to the notebook in the first place.
func (b *Book) Redact(secrets ...string) { b.secrets.Add(secrets...) }

// scrub returns p with every registered secret replaced. It returns p
// itself when there is nothing to replace.
func (b *Book) scrub(p []byte) []byte { return b.secrets.Bytes(p) }

func (b *Book) scrubString(s string) string { return b.secrets.String(s) }
