package live_test

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/live"
	"github.com/coplayhq/coplay/notes"
)

// play makes n commits of per records of about 64 KiB of random text each, as a
// runner journals its steps: the file must grow, which bbolt does only when no read
// transaction is open. Each commit is sent on done, which is closed at the end.
func play(t *testing.T, s *notes.Session, n, per int, done chan<- int) {
	t.Helper()
	defer close(done)
	raw := make([]byte, 48<<10)
	for i := range n {
		var b notes.Batch
		for range per {
			rand.Read(raw)
			data, _ := json.Marshal(map[string]string{"text": base64.StdEncoding.EncodeToString(raw)})
			b.Records = append(b.Records, notes.Record{Time: time.Now(), Type: "text", Step: i + 1, Data: data})
		}
		if _, err := s.Commit(b); err != nil {
			t.Errorf("commit %d: %v", i, err)
			return
		}
		done <- i
	}
}

// dialRaw connects to the notebook's socket as any client would.
func dialRaw(t *testing.T, notebook string) net.Conn {
	t.Helper()
	sock, err := live.SocketPath(notebook)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A snapshot client that reads the reply and then nothing (a `sessions export`
// suspended with ctrl-Z) does not stop play: the writer's commits, which must grow the
// file, go on while it stalls; once it reads on, it gets the copy as of its request.
func TestStalledSnapshotDoesNotStopPlay(t *testing.T) {
	path, book, _ := owner(t)
	s, err := book.Session("playing-now")
	if err != nil {
		t.Fatal(err)
	}
	// A notebook far larger than the socket's buffers: the copy cannot all be sent
	// while the client reads nothing.
	grown := make(chan int, 1024)
	play(t, s, 16, 10, grown)
	for range grown {
	}
	fi, _ := os.Stat(path)

	c := dialRaw(t, path)
	fmt.Fprintln(c, `{"op":"snapshot"}`)
	r := bufio.NewReader(c)
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var rep live.Reply
	if err := json.Unmarshal(line, &rep); err != nil || rep.Bytes < fi.Size()/2 {
		t.Fatalf("reply %s (%v) for a file of %d bytes", line, err, fi.Size())
	}
	// The client now reads nothing. The owner plays on until the file outgrows bbolt's
	// map (the next power of two above its size when the copy began), so the writer
	// must map it larger: the step a held read transaction blocks. No clock here: had
	// the copy held the writer up, these commits would wait until the owner dropped
	// the stalled client (snapshotStall), and the read below would fail.
	mapped := int64(1 << 15)
	for mapped < fi.Size() {
		mapped <<= 1
	}
	for i := 0; ; i++ {
		if now, _ := os.Stat(path); now.Size() > mapped {
			break
		}
		if i == 1000 {
			t.Fatalf("1000 commits and the file never grew past %d bytes", mapped)
		}
		one := make(chan int, 1)
		play(t, s, 1, 2, one)
		if t.Failed() {
			t.FailNow()
		}
	}
	after, _ := os.Stat(path)
	t.Logf("the owner went on committing (the file grew from %d to %d bytes) while the client read nothing", fi.Size(), after.Size())
	// The client reads on: its copy is whole, and as of its request.
	f, err := os.CreateTemp(t.TempDir(), "copy-*.db")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(f, r, rep.Bytes); err != nil {
		t.Fatalf("reading the copy on: %v", err)
	}
	f.Close()
	snap, err := notes.OpenReadOnly(f.Name(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	ss, err := snap.Session("playing-now")
	if err != nil {
		t.Fatal(err)
	}
	info, err := ss.Info()
	if err != nil || info.Records != 160 {
		t.Fatalf("the copy holds %d records (%v), want the 160 of its moment", info.Records, err)
	}
}

// A first line of 64 MB without a newline: the owner reads 16 KiB of it, says why it
// stops, and closes; what it holds never grows with what the client sends, and the
// socket serves the next client as before.
func TestLongRequestLineIsCut(t *testing.T) {
	path, _, _ := owner(t)
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = 'x'
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	rssBefore := procStatus("VmRSS")

	c := dialRaw(t, path)
	sent := int64(0)
	var werr error
	for sent < 64<<20 {
		n, err := c.Write(chunk)
		sent += int64(n)
		if err != nil {
			werr = err
			break
		}
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	rssAfter := procStatus("VmRSS")
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("the client wrote %d of 64 MiB before the owner closed (%v); the owner allocated %d KiB meanwhile; RSS %d → %d KiB (peak %d KiB)",
		sent, werr, alloc>>10, rssBefore, rssAfter, procStatus("VmHWM"))
	if werr == nil {
		t.Fatal("the owner read 64 MiB of one line")
	}
	if alloc > 32<<20 {
		t.Fatalf("the owner allocated %d MiB while one line came in; it holds at most %d KiB of one", alloc>>20, live.MaxLine>>10)
	}
	// The owner still serves.
	copyPath, _, err := live.Snapshot(ctx(t), path)
	if err != nil {
		t.Fatalf("a snapshot after the long line: %v", err)
	}
	os.Remove(copyPath)
}

// A request line over the cap but with its newline gets a reply saying why.
func TestLongRequestLineIsTold(t *testing.T) {
	path, _, _ := owner(t)
	c := dialRaw(t, path)
	go fmt.Fprintf(c, `{"op":"snapshot","session":"%s"}`+"\n", strings.Repeat("y", live.MaxLine))
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var rep live.Reply
	if err := json.Unmarshal(line, &rep); err != nil || !strings.Contains(rep.Error, "at most 16 KiB") {
		t.Fatalf("reply %s (%v)", line, err)
	}
}

// procStatus reads a figure in KiB from /proc/self/status (0 where there is none).
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
