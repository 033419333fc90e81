package notes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/maphash"
)

// A game's saved state (the universe's is about 160 KB of JSON) changes in a few places
// from one save to the next: credits, a ship's nav and fuel, a market's volumes. The
// state history (snapshots.go) keeps each save as the chunks that changed since the one
// before. A chunk ends after each of , { } [ ] so that a changed value ("credits":1200,)
// is one chunk; the chunking is only a way to cut the bytes, and joining the chunks
// gives them back exactly, whatever the bytes are (JSON or not).

// chunks cuts p after each of , { } [ ] (the last chunk may end otherwise).
func chunks(p []byte) [][]byte {
	out := make([][]byte, 0, len(p)/12+1)
	start := 0
	for i, c := range p {
		switch c {
		case ',', '{', '}', '[', ']':
			out = append(out, p[start:i+1])
			start = i + 1
		}
	}
	if start < len(p) {
		out = append(out, p[start:])
	}
	return out
}

// maxDiffCost bounds the edit distance (in chunks) diffState looks for; a state that
// changed more than that is stored whole, which is then about as small.
const maxDiffCost = 600

var chunkSeed = maphash.MakeSeed()

// diffState encodes cur as edits of prev: a list of hunks, each
//
//	uvarint chunks kept since the last hunk, uvarint chunks deleted, uvarint length,
//	the inserted bytes
//
// ok is false when they differ too much for a diff to be worth it.
func diffState(prev, cur []byte) (edits []byte, ok bool) {
	a, b := chunks(prev), chunks(cur)
	// The common prefix and suffix are most of it: diff only the middle.
	pre := 0
	for pre < len(a) && pre < len(b) && bytes.Equal(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && bytes.Equal(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	ha, hb := hashes(a[pre:len(a)-suf]), hashes(b[pre:len(b)-suf])
	script, ok := myers(ha, hb, maxDiffCost)
	if !ok {
		return nil, false
	}
	// Turn the script (keep / delete / insert per chunk) into hunks.
	var out []byte
	kept := pre
	i, j := 0, 0 // positions in the middle of a and b
	for k := 0; k < len(script); {
		if script[k] == opKeep {
			kept++
			i++
			j++
			k++
			continue
		}
		del := 0
		var ins []byte
		for k < len(script) && script[k] != opKeep {
			if script[k] == opDelete {
				del++
				i++
			} else {
				ins = append(ins, b[pre+j]...)
				j++
			}
			k++
		}
		out = binary.AppendUvarint(out, uint64(kept))
		out = binary.AppendUvarint(out, uint64(del))
		out = binary.AppendUvarint(out, uint64(len(ins)))
		out = append(out, ins...)
		kept = 0
	}
	return out, true
}

// patchState applies edits made by diffState to prev.
func patchState(prev, edits []byte) ([]byte, error) {
	a := chunks(prev)
	out := make([]byte, 0, len(prev)+len(edits))
	pos := 0
	for len(edits) > 0 {
		var n [3]uint64
		for x := range n {
			v, k := binary.Uvarint(edits)
			if k <= 0 {
				return nil, errors.New("truncated edit")
			}
			n[x], edits = v, edits[k:]
		}
		keep, del, ins := n[0], n[1], n[2]
		if keep > uint64(len(a)-pos) || del > uint64(len(a)-pos)-keep || ins > uint64(len(edits)) {
			return nil, errors.New("edit out of range")
		}
		for _, c := range a[pos : pos+int(keep)] {
			out = append(out, c...)
		}
		pos += int(keep) + int(del)
		out = append(out, edits[:ins]...)
		edits = edits[ins:]
	}
	for _, c := range a[pos:] {
		out = append(out, c...)
	}
	return out, nil
}

func hashes(cs [][]byte) []uint64 {
	out := make([]uint64, len(cs))
	for i, c := range cs {
		out[i] = maphash.Bytes(chunkSeed, c)
	}
	return out
}

// Operations of an edit script.
const (
	opKeep byte = iota
	opDelete
	opInsert
)

// myers returns the shortest edit script from a to b (Myers' O(ND) algorithm), or
// ok=false when it needs more than max edits.
func myers(a, b []uint64, max int) (script []byte, ok bool) {
	n, m := len(a), len(b)
	if n+m == 0 {
		return nil, true
	}
	limit := min(n+m, max)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	found := -1
	for d := 0; d <= limit && found < 0; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return nil, false
	}
	// Walk back through the trace.
	x, y := n, m
	var rev []byte
	for d := found; d > 0; d-- {
		pv := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && pv[off+k-1] < pv[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := pv[off+pk]
		py := px - pk
		for x > px && y > py {
			rev = append(rev, opKeep)
			x--
			y--
		}
		if x == px {
			rev = append(rev, opInsert)
			y--
		} else {
			rev = append(rev, opDelete)
			x--
		}
	}
	for x > 0 && y > 0 {
		rev = append(rev, opKeep)
		x--
		y--
	}
	script = make([]byte, len(rev))
	for i, op := range rev {
		script[len(rev)-1-i] = op
	}
	return script, true
}
