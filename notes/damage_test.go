package notes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"
)

// TestDamagedPagesGiveErrorsNotCrashes scribbles over one page in the
// middle of a notebook: each read must fail with ErrCorrupt (or succeed
// where bbolt never reads that page), never crash the program.
func TestDamagedPagesGiveErrorsNotCrashes(t *testing.T) {
	t.Parallel()
	orig := tempPath(t)
	b, s := createAt(t, orig, "x", "g", "m")
	fill(t, s, 30000)
	b.Close()
	good, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	damaged := 0
	for _, page := range []int64{2, 3, 5, 8, 13, 21, 34, 55} {
		if (page+1)*4096 > int64(len(good)) {
			continue
		}
		bad := bytes.Clone(good)
		copy(bad[page*4096:], bytes.Repeat([]byte{0xA5, 0x17, 0xFF, 0x00}, 1024))
		path := tempPath(t)
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := Open(path, nil)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("page %d: Open: %v, want ErrCorrupt", page, err)
			}
			damaged++
			continue
		}
		var errs []error
		s, err := b.Session("x")
		errs = append(errs, err)
		if err == nil {
			_, err = s.Recover()
			errs = append(errs, s.Export(io.Discard), err)
		}
		for _, err := range errs {
			if err != nil {
				damaged++
				if !errors.Is(err, ErrCorrupt) || !bytes.Contains([]byte(err.Error()), []byte(path)) {
					t.Errorf("page %d: %v, want ErrCorrupt naming the file", page, err)
				}
				break
			}
		}
		b.Close()
	}
	if damaged == 0 {
		t.Error("no damage was detected at all; the test is not hitting live pages")
	}
}

// miningNotebook creates a notebook at path whose session "x" has 2,000 records and
// forty versions of its Situation: pages enough for a flipped byte to land in.
func miningNotebook(t *testing.T, path string) (*Book, *Session) {
	t.Helper()
	b, s := createAt(t, path, "x", "g", "m")
	fill(t, s, 2000)
	for i := range 40 {
		if _, err := s.UpdateSection("Situation", fmt.Sprintf("Step %d: still mining at X1-DF55-B7.", i), i); err != nil {
			t.Fatal(err)
		}
	}
	return b, s
}

// TestFlippedBytesNeverAlterAnExportSilently flips one byte at a time across a
// notebook's pages (past bbolt's two meta pages, which bbolt checksums itself and falls
// back between by design, so a torn commit is rolled back): each export is then either
// exactly the original one or an error naming the damage, never a different transcript.
func TestFlippedBytesNeverAlterAnExportSilently(t *testing.T) {
	t.Parallel()
	orig := tempPath(t)
	b, s := miningNotebook(t, orig)
	s.SetPlan([]PlanStep{{Text: "mine"}, {Text: "sell"}}, 3)
	s.SaveState(bytes.Repeat([]byte(`{"ship":"X-1","fuel":300}`), 100))
	size, _ := b.FileBytes()
	var want bytes.Buffer
	if err := s.Export(&want); err != nil {
		t.Fatal(err)
	}
	b.Close()
	good, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	silent, caught, same := 0, 0, 0
	tried := flipBits(t, good, size, 200, 0x9E3779B97F4A7C15, func(path string, off int64) {
		got, err := exportFile(path)
		switch {
		case err != nil:
			caught++
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotFound) {
				t.Errorf("flip at %d: %v, want ErrCorrupt", off, err)
			}
		case got == want.String():
			same++
		default:
			silent++
			t.Errorf("flip at %d changed the export silently", off)
		}
	})
	t.Logf("%d single-bit flips: %d reported as damage, %d harmless (export identical), %d silent", tried, caught, same, silent)
	if caught == 0 {
		t.Error("no flip was reported: the test is not hitting stored data")
	}
}

// flipBits writes n copies of the notebook good (size bytes in use), each with one bit
// flipped at a seeded place past the two meta pages, and hands each file and the offset
// to check. It returns how many it tried. Under the race detector only bytes bbolt
// copies without pointer arithmetic are flipped (inLeafData).
func flipBits(t *testing.T, good []byte, size int64, n int, seed uint64, check func(path string, off int64)) int {
	t.Helper()
	const pageSize = 4096
	rng, tried := seed, 0
	for attempt := 0; tried < n && attempt < 100_000; attempt++ {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		off := 2*pageSize + int64(rng%uint64(size-2*pageSize))
		if raceEnabled && !inLeafData(good, off, pageSize) {
			continue
		}
		tried++
		bad := bytes.Clone(good)
		bad[off] ^= byte(1 << (rng >> 60 % 8))
		path := tempPath(t)
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		check(path, off)
	}
	return tried
}

// inLeafData reports whether off is in the key or value of a leaf page's element (not
// the page header, the element table, or a nested bucket's value, which holds a page of
// its own): bytes bbolt copies without pointer arithmetic.
func inLeafData(file []byte, off int64, pageSize int64) bool {
	p := off / pageSize * pageSize
	if p+16 > int64(len(file)) {
		return false
	}
	flags := binary.LittleEndian.Uint16(file[p+8:])
	count := int64(binary.LittleEndian.Uint16(file[p+10:]))
	overflow := binary.LittleEndian.Uint32(file[p+12:])
	if flags != 0x02 || overflow != 0 {
		return false
	}
	for i := int64(0); i < count; i++ {
		e := p + 16 + i*16
		if e+16 > int64(len(file)) {
			return false
		}
		eflags := binary.LittleEndian.Uint32(file[e:])
		pos := int64(binary.LittleEndian.Uint32(file[e+4:]))
		ksize := int64(binary.LittleEndian.Uint32(file[e+8:]))
		vsize := int64(binary.LittleEndian.Uint32(file[e+12:]))
		k := e + pos
		switch {
		case off >= k && off < k+ksize:
			return true
		case off >= k+ksize && off < k+ksize+vsize:
			return eflags&0x01 == 0 // a bucket's value is its header and maybe a page
		}
	}
	return false
}

// exportFile opens path read-only and exports its session "x".
func exportFile(path string) (string, error) {
	b, err := OpenReadOnly(path, nil)
	if err != nil {
		return "", err
	}
	defer b.Close()
	s, err := b.Session("x")
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	err = s.Export(&buf)
	return buf.String(), err
}
