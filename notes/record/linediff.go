package record

import (
	"encoding/json"
	"fmt"
	"strings"
)

// LineEdit replaces Del lines of a text, starting at line At of the original, by Ins.
// It is journaled as a JSON array [at, del, "inserted line", ...], the shortest form.
// An observation's summary is journaled as the edits since the one before (DiffLines);
// the prompt's "what changed in the world" is made from the same edits.
type LineEdit struct {
	At, Del int
	Ins     []string
}

// MarshalJSON writes [at, del, ins...].
func (e LineEdit) MarshalJSON() ([]byte, error) {
	v := make([]any, 0, 2+len(e.Ins))
	v = append(v, e.At, e.Del)
	for _, s := range e.Ins {
		v = append(v, s)
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads [at, del, ins...].
func (e *LineEdit) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) < 2 {
		return fmt.Errorf("line edit %s: want [at, del, lines...]", abbrev(b))
	}
	if err := json.Unmarshal(raw[0], &e.At); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[1], &e.Del); err != nil {
		return err
	}
	e.Ins = nil
	for _, r := range raw[2:] {
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			return err
		}
		e.Ins = append(e.Ins, s)
	}
	return nil
}

// maxDiffCells bounds the work of DiffLines (lines of one × lines of the other); past it
// the whole text is one edit.
const maxDiffCells = 250_000

// DiffLines returns the edits that turn a into b, line by line (a longest common
// subsequence: an observation's summary changes in a few lines between steps).
func DiffLines(a, b string) []LineEdit {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// Common prefix and suffix first: usually most of the text.
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	xs, ys := x[pre:len(x)-suf], y[pre:len(y)-suf]
	if len(xs)*len(ys) > maxDiffCells {
		return []LineEdit{{At: pre, Del: len(xs), Ins: ys}}
	}
	// lcs[i][j] is the LCS length of xs[i:] and ys[j:].
	n, m := len(xs), len(ys)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if xs[i] == ys[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []LineEdit
	var cur *LineEdit
	i, j := 0, 0
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for i < n || j < m {
		switch {
		case i < n && j < m && xs[i] == ys[j]:
			flush()
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			if cur == nil {
				cur = &LineEdit{At: pre + i}
			}
			cur.Ins = append(cur.Ins, ys[j])
			j++
		default:
			if cur == nil {
				cur = &LineEdit{At: pre + i}
			}
			cur.Del++
			i++
		}
	}
	flush()
	return out
}

// ApplyLines applies edits (in order, each At counted in the original text) to a; the
// error names the first edit that does not fit it.
func ApplyLines(a string, edits []LineEdit) (string, error) {
	x := strings.Split(a, "\n")
	out := make([]string, 0, len(x))
	pos := 0
	for i, e := range edits {
		if e.At < pos || e.Del < 0 || e.At > len(x) || e.Del > len(x)-e.At {
			return "", fmt.Errorf("line edit %d [%d, %d] does not fit a text of %d lines", i+1, e.At, e.Del, len(x))
		}
		out = append(out, x[pos:e.At]...)
		out = append(out, e.Ins...)
		pos = e.At + e.Del
	}
	out = append(out, x[pos:]...)
	return strings.Join(out, "\n"), nil
}
