package secret

import (
	"bytes"
	"io"
)

// Writer writes whole lines to an io.Writer with every secret replaced. It holds a
// partial line until its end arrives, so a secret split across writes is still caught;
// Flush writes what is left.
type Writer struct {
	w       io.Writer
	s       *Scrubber
	partial []byte
}

// NewWriter returns a Writer that scrubs what it passes to w with s.
func NewWriter(w io.Writer, s *Scrubber) *Writer { return &Writer{w: w, s: s} }

// Write passes on every complete line of p, scrubbed.
func (r *Writer) Write(p []byte) (int, error) {
	r.partial = append(r.partial, p...)
	end := bytes.LastIndexByte(r.partial, '\n')
	if end < 0 {
		return len(p), nil
	}
	if _, err := r.w.Write(r.s.Bytes(append([]byte(nil), r.partial[:end+1]...))); err != nil {
		return 0, err
	}
	r.partial = append(r.partial[:0], r.partial[end+1:]...)
	return len(p), nil
}

// Flush writes what is left of an unfinished line.
func (r *Writer) Flush() error {
	if len(r.partial) == 0 {
		return nil
	}
	_, err := r.w.Write(r.s.Bytes(append([]byte(nil), r.partial...)))
	r.partial = r.partial[:0]
	return err
}
