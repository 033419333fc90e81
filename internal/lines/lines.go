// Package lines reads lines of bounded length from a person or a client: a line over
// the bound is read on to its newline without being held, reported, and the next line
// reads as usual, so one long line costs nothing but the reading and stops nothing
// after it. It imports only internal/infile, so every package may use it.
package lines

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/coplayhq/coplay/internal/infile"
)

// TooLongError is a line over the bound: it was read to its end, or to the end of the
// input, and dropped.
type TooLongError struct {
	Max   int   // the bound, in bytes
	Bytes int64 // how long the line was, as far as it was read
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("a line may be at most %s, and this one was %s: it was dropped", infile.Limit(int64(e.Max)), Size(e.Bytes))
}

// Size is a byte count as a person reads it ("2.0 MiB").
func Size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Read reads one line of at most max bytes from r, without its newline. A longer line
// is a *TooLongError; when skip is set its bytes are read on to the newline (and
// dropped, never held), so that the next call reads the next line, otherwise reading
// stops at the bound. At the end of the input, a last line without a newline is
// returned with a nil error, then io.EOF.
func Read(r *bufio.Reader, max int, skip bool) ([]byte, error) {
	var line []byte
	var n int64 // the line's bytes read so far, its newline included
	for {
		frag, err := r.ReadSlice('\n')
		n += int64(len(frag))
		over := n > int64(max)+1 || n == int64(max)+1 && frag[len(frag)-1] != '\n'
		if !over {
			line = append(line, frag...)
		} else {
			line = nil // let go of what was kept
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if over && !skip {
				return nil, &TooLongError{Max: max, Bytes: n}
			}
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return nil, err
		case err != nil && n == 0:
			return nil, err // io.EOF: no line left
		case over:
			if err == nil {
				n-- // the newline
			}
			return nil, &TooLongError{Max: max, Bytes: n}
		case err == nil:
			line = line[:len(line)-1]
		}
		return line, nil
	}
}

// Reader reads lines of at most a bound each: a longer one is read to its end, dropped,
// and reported as a *TooLongError, and the next line reads as usual.
type Reader struct {
	r   *bufio.Reader
	max int
	// N is the number of the line last read, from 1.
	N int
}

// NewReader reads lines of at most max bytes from r.
func NewReader(r io.Reader, max int) *Reader { return &Reader{r: bufio.NewReader(r), max: max} }

// Next returns the next line, without its newline; io.EOF at the end of the input.
func (l *Reader) Next() ([]byte, error) {
	line, err := Read(l.r, l.max, true)
	if err == nil || !errors.Is(err, io.EOF) {
		l.N++
	}
	return line, err
}
