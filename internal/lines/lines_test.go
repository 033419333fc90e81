package lines

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// Lines at the bound pass; one over it is reported with its length and skipped to its
// newline, and the lines around it read as usual; a last line without a newline is a
// line, then io.EOF.
func TestReaderSkipsLongLines(t *testing.T) {
	t.Parallel()
	at := strings.Repeat("a", 16)
	in := "one\n" + at + "\n" + strings.Repeat("b", 5000) + "\nthree\r\nlast"
	r := NewReader(strings.NewReader(in), 16)
	var got []string
	for {
		line, err := r.Next()
		var long *TooLongError
		switch {
		case errors.As(err, &long):
			got = append(got, long.Error())
			continue
		case errors.Is(err, io.EOF):
		case err != nil:
			t.Fatal(err)
		default:
			got = append(got, string(line))
			continue
		}
		break
	}
	want := []string{"one", at, "a line may be at most 16 bytes, and this one was 4.9 KiB: it was dropped", "three\r", "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") || r.N != 5 {
		t.Fatalf("lines %q (N %d), want %q (N 5)", got, r.N, want)
	}
	if (&TooLongError{Max: 1 << 20, Bytes: 2 << 20}).Error() != "a line may be at most 1 MiB, and this one was 2.0 MiB: it was dropped" {
		t.Fatal("a bound in MiB is not said in MiB")
	}
}
