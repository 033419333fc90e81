package live

import (
	"io"

	"github.com/coplayhq/coplay/internal/lines"
)

// MaxLine is the longest line the socket takes from a client: its request, and each
// command line of an attached client (tmux caps its messages at 16 KiB too). A line is
// held in memory only up to this length, so a client that sends gigabytes without a
// newline costs the coplay that plays nothing but the reading.
const MaxLine = 16 << 10

// LineTooLongError is a line over MaxLine: it was read to its end, or to the end of
// the input, and dropped.
type LineTooLongError = lines.TooLongError

// tooLong is the error of a line of n bytes, over MaxLine.
func tooLong(n int) error { return &LineTooLongError{Max: MaxLine, Bytes: int64(n)} }

// NewLines reads a client's lines of at most MaxLine bytes each: a longer one is read to
// its end, dropped, and reported as a *LineTooLongError, and the next line reads as
// usual.
func NewLines(r io.Reader) *lines.Reader { return lines.NewReader(r, MaxLine) }
