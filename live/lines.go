package live

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the longest line the socket takes from a client: its request, and each
// command line of an attached client (tmux caps its messages at 16 KiB too). A line is
// held in memory only up to this length, so a client that sends gigabytes without a
// newline costs the coplay that plays nothing but the reading.
const MaxLine = 16 << 10

// LineTooLongError is a line over MaxLine: it was read to its end, or to the end of
// the input, and dropped.
type LineTooLongError struct {
	Bytes int64 // how long it was, as far as it was read
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("a line may be at most %d KiB, and this one was %s: it was dropped", MaxLine>>10, sizeWords(e.Bytes))
}

// sizeWords is a byte count as a person reads it.
func sizeWords(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// readLine reads one line of at most max bytes from r, without its newline. A longer
// line is a *LineTooLongError; when skip is set its bytes are read on to the newline
// (and dropped, never held), so that the next call reads the next line, otherwise
// reading stops at the cap. At the end of the input, a last line without a newline is
// returned with a nil error, then io.EOF.
func readLine(r *bufio.Reader, max int, skip bool) ([]byte, error) {
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
				return nil, &LineTooLongError{Bytes: n}
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
			return nil, &LineTooLongError{Bytes: n}
		case err == nil:
			line = line[:len(line)-1]
		}
		return line, nil
	}
}

// Lines reads a client's lines of at most MaxLine bytes each: a longer one is read to its
// end, dropped, and reported as a *LineTooLongError, and the next line reads as usual.
type Lines struct {
	r *bufio.Reader
	// N is the number of the line last read, from 1.
	N int
}

// NewLines reads lines from r.
func NewLines(r io.Reader) *Lines { return &Lines{r: bufio.NewReader(r)} }

// Next returns the next line, without its newline; io.EOF at the end of the input.
func (l *Lines) Next() ([]byte, error) {
	line, err := readLine(l.r, MaxLine, true)
	if err == nil || !errors.Is(err, io.EOF) {
		l.N++
	}
	return line, err
}
