package live

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Snapshotter is what a snapshot is taken of: *notes.Book.
type Snapshotter interface {
	Snapshot(w io.Writer, size func(int64) error) (int64, error)
}

// ServeSnapshots registers the "snapshot" operation: a consistent copy of the notebook
// as of the request, preceded by a reply that gives its length and the sessions played.
//
// The copy is first written to a private file of this process and only then streamed
// to the client, so a client that reads slowly, or stops reading (a `sessions export`
// suspended with ctrl-Z), holds up nothing but itself: bbolt's read transaction, which
// keeps the writer from growing the file while it lasts, ends before the first byte
// goes to the socket (etcd's rule: a snapshot never holds up the writer). A client
// that takes no byte for snapshotStall is dropped.
func (s *Server) ServeSnapshots(book Snapshotter) {
	s.Handle("snapshot", func(ctx context.Context, conn *Conn, req Request) error {
		f, err := s.privateFile()
		if err != nil {
			return err
		}
		defer func() {
			f.Close()
			os.Remove(f.Name())
		}()
		// Unix keeps an open file that has no name: a crash leaves nothing behind.
		// (Elsewhere this fails, and the file goes once closed.)
		os.Remove(f.Name())
		n, err := book.Snapshot(f, nil)
		if err != nil {
			return err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("live: rereading the copy: %w", err)
		}
		if err := conn.Reply(Reply{Bytes: n, Playing: s.playingNow()}); err != nil {
			return err
		}
		_, err = io.Copy(stallWriter{conn.Conn, snapshotStall}, io.LimitReader(f, n))
		return err
	})
}

// snapshotStall is how long a snapshot's client may take no bytes before it is
// dropped: far beyond any reader's pause but a stopped one's (the reader's own wait,
// liveSnapshotWait in cli, is shorter).
const snapshotStall = time.Minute

// privateFile makes a file for a snapshot's copy that only this user can read: beside
// the notebook (the same disk, not a RAM-backed runtime directory), else in the
// socket's directory. It is removed by the caller once streamed.
func (s *Server) privateFile() (*os.File, error) {
	if s.notebook != "" {
		f, err := os.CreateTemp(filepath.Dir(s.notebook), "."+filepath.Base(s.notebook)+".snapshot-*")
		if err == nil {
			return f, nil
		}
	}
	f, err := os.CreateTemp(filepath.Dir(s.path), "snapshot-*.db")
	if err != nil {
		return nil, fmt.Errorf("live: a file for the copy: %w", err)
	}
	return f, nil
}

// stallWriter writes to a connection, giving up when one write takes no byte for
// longer than stall: a client that stops reading is dropped instead of held for ever.
type stallWriter struct {
	c     net.Conn
	stall time.Duration
}

func (w stallWriter) Write(p []byte) (int, error) {
	w.c.SetWriteDeadline(time.Now().Add(w.stall))
	n, err := w.c.Write(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("the client took nothing for %s: %w", w.stall, err)
	}
	return n, err
}

// Dial connects to the coplay that plays in the notebook at notebook, sends req and
// reads the reply. It returns ErrNoOwner when no coplay serves the notebook.
func Dial(ctx context.Context, notebook string, req Request) (net.Conn, *bufio.Reader, Reply, error) {
	path, err := SocketPath(notebook)
	if err != nil {
		return nil, nil, Reply{}, err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil, Reply{}, ErrNoOwner
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		// A socket nobody listens on: its coplay ended without removing it.
		return nil, nil, Reply{}, fmt.Errorf("%w (%v)", ErrNoOwner, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	b, _ := json.Marshal(req)
	if _, err := c.Write(append(b, '\n')); err != nil {
		c.Close()
		return nil, nil, Reply{}, fmt.Errorf("live: sending to %s: %w", path, err)
	}
	r := bufio.NewReader(c)
	line, err := r.ReadBytes('\n')
	if err != nil {
		c.Close()
		return nil, nil, Reply{}, fmt.Errorf("live: the coplay playing in %s did not answer: %w", notebook, err)
	}
	var rep Reply
	if err := json.Unmarshal(line, &rep); err != nil {
		c.Close()
		return nil, nil, Reply{}, fmt.Errorf("live: the coplay playing in %s answered %q", notebook, line)
	}
	if rep.Error != "" {
		c.Close()
		return nil, nil, rep, fmt.Errorf("the coplay playing in %s: %s", notebook, rep.Error)
	}
	c.SetDeadline(time.Time{})
	return c, r, rep, nil
}

// Snapshot asks the coplay that plays in the notebook at notebook for a copy of it and
// writes the copy to a new file in the socket directory (0600), whose path it returns
// with the sessions played now. The caller removes the file. It returns ErrNoOwner
// when no coplay serves the notebook.
func Snapshot(ctx context.Context, notebook string) (path string, playing []string, err error) {
	c, r, rep, err := Dial(ctx, notebook, Request{Op: "snapshot"})
	if err != nil {
		return "", nil, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	dir, err := Dir()
	if err != nil {
		return "", nil, err
	}
	f, err := os.CreateTemp(dir, "snapshot-*.db")
	if err != nil {
		return "", nil, fmt.Errorf("live: %w", err)
	}
	n, err := io.Copy(f, io.LimitReader(r, rep.Bytes))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n < rep.Bytes {
		err = fmt.Errorf("the copy was cut short at %d of %d bytes", n, rep.Bytes)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", nil, fmt.Errorf("live: a copy of %s from the coplay playing in it: %w", notebook, err)
	}
	return f.Name(), rep.Playing, nil
}
