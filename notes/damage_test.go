package notes

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

// TestDamagedPagesGiveErrorsNotCrashes scribbles over one page in the
// middle of a notebook: each read must fail with ErrCorrupt (or succeed
// where bbolt never reads that page), never crash the program.
func TestDamagedPagesGiveErrorsNotCrashes(t *testing.T) {
	orig := tempPath(t)
	b, err := Open(orig, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := b.Create("x", "g", "m")
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
