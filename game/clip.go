package game

import "unicode/utf8"

// CutBytes is the longest start of s of at most n bytes that ends on a character
// boundary: what fits in n bytes without splitting a character.
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Clip shortens s to at most n bytes, cut on a character boundary and marked with "…"
// (the mark comes on top of the n), for a message that quotes something long.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return CutBytes(s, n) + "…"
}
