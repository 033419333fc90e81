package notes

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coplayhq/coplay/secret"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Errors reported by the notebook. They are matched with [errors.Is]; the
// errors actually returned carry the file or session they are about.
var (
	// ErrLocked means another process (normally another coplay) holds the
	// notebook file open.
	ErrLocked = errors.New("in use by another coplay")
	// ErrCorrupt means the file is not a coplay notebook or is damaged.
	// Such a file is left untouched.
	ErrCorrupt = errors.New("not a usable coplay notebook")
	// ErrNotFound means the named session (or record) does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists means a session with that name already exists.
	ErrExists = errors.New("already exists")
	// ErrReadOnly means the notebook cannot be written: it is on a read-only file
	// system, coplay may not write it, or it was opened with OpenReadOnly.
	ErrReadOnly = errors.New("cannot be written")
)

// format marks a bbolt file as a coplay notebook; a bbolt file without it
// (and with any bucket at all) belongs to someone else.
const (
	formatKey   = "format"
	formatValue = "coplay-notebook/1"
)

var (
	bucketMeta     = []byte("coplay")
	bucketSessions = []byte("sessions")
)

// Options configures [Open].
type Options struct {
	// Timeout is how long to wait for another process to release the file
	// before giving up with ErrLocked. Zero means one second.
	Timeout time.Duration
	// FailWrite is for tests: if set, it is called as each write transaction is about
	// to commit, with the transaction's number (1 for the Book's first); an error it
	// returns fails that write the way a full disk does: the transaction rolls back
	// and the caller gets the error. A notebook under a writer that fails at the Nth
	// write: FailWrite: func(n uint64) error { if n >= N { return ENOSPC }; return nil }.
	FailWrite func(n uint64) error
	// Name, for OpenReadOnly, is the path the book reports (Path) when the file opened
	// is a copy of a notebook (a snapshot from the coplay that holds it): the person
	// reads the notebook's name, not the copy's.
	Name string
	// Notice, for Open, is told what Open changed about the file that the person should
	// know: a notebook other users could read is made 0600 (private.go). Nil writes it
	// on stderr, a line starting "coplay: ".
	Notice func(text string)
}

// Book is an open notebook file. It is safe for concurrent use.
type Book struct {
	path string
	db   *bolt.DB
	now  func() time.Time

	secrets secret.Scrubber // Redact's values, scrubbed from everything written

	commits   atomic.Uint64 // write transactions committed, for benchmarks
	writes    atomic.Uint64 // write transactions begun, for FailWrite
	failWrite func(n uint64) error
	readOnly  bool

	tails sync.Map // session name -> *openBlock: each session's last journal block
}

// tailCache returns the cache of a session's last journal block.
func (b *Book) tailCache(name string) *openBlock {
	c, _ := b.tails.LoadOrStore(name, &openBlock{})
	return c.(*openBlock)
}

// fileError is an error about the notebook file itself. Its text starts
// with the path so that a person can tell which file is meant.
type fileError struct {
	path string
	msg  string
	kind error // ErrLocked or ErrCorrupt
	err  error // the cause, if any
}

func (e *fileError) Error() string {
	if e.err != nil {
		return e.path + " " + e.msg + ": " + e.err.Error()
	}
	return e.path + " " + e.msg
}

func (e *fileError) Is(target error) bool { return target == e.kind }
func (e *fileError) Unwrap() error        { return e.err }

// DefaultPath returns where the notebook lives when no --data flag is given:
// $XDG_DATA_HOME/coplay/coplay.db; else, on Unix-like systems,
// ~/.local/share/coplay/coplay.db (the XDG default for data); else (macOS,
// Windows) os.UserConfigDir()/coplay/coplay.db, which is where those systems
// keep application data. It creates the directory (0700).
func DefaultPath() (string, error) {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" || !filepath.IsAbs(base) {
		// The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
		base = ""
		if runtime.GOOS != "darwin" && runtime.GOOS != "windows" && runtime.GOOS != "ios" {
			if home, err := os.UserHomeDir(); err == nil {
				base = filepath.Join(home, ".local", "share")
			}
		}
		if base == "" {
			dir, err := os.UserConfigDir()
			if err != nil {
				return "", fmt.Errorf("notes: no place for the notebook: %w", err)
			}
			base = dir
		}
	}
	dir := filepath.Join(base, "coplay")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("notes: create notebook directory: %w", err)
	}
	return filepath.Join(dir, "coplay.db"), nil
}

// Open opens the notebook at path, creating it (mode 0600, and its
// directory 0700) when it does not exist; an existing one that other users may read
// or write is made 0600, and the person told (Options.Notice). It waits up to opts.Timeout for
// another process to let go of the file and then fails with an error
// matching ErrLocked. A file that is not a coplay notebook, or is damaged,
// gives an error matching ErrCorrupt and is not modified.
func Open(path string, opts *Options) (*Book, error) {
	timeout := time.Second
	if opts != nil && opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("notes: create directory for %s: %w", path, err)
		}
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return nil, &fileError{path: path, msg: "is not a regular file", kind: ErrCorrupt}
	case err == nil && fi.Size() == 0:
		return nil, emptyFile(path)
	case err == nil && fi.Size() > 0:
		// Inspect an existing file read-only first: opening it for writing
		// would let bbolt write to it, and a foreign or damaged file must
		// stay exactly as it is.
		if err := inspect(path, timeout); err != nil {
			return nil, err
		}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("notes: %w", err)
	}

	db, err := openBolt(path, &bolt.Options{Timeout: timeout})
	if err != nil {
		return nil, err
	}
	// bbolt grows its file to the next power of two while it is under AllocSize (16 MB
	// by default), so a 600 KB notebook is a 1 MB file. Growing in small steps keeps the
	// file close to what it holds, at the cost of a truncate and fsync every allocSize.
	db.AllocSize = allocSize
	b := &Book{path: path, db: db, now: now}
	if opts != nil {
		b.failWrite = opts.FailWrite
	}
	err = b.update(func(tx *bolt.Tx) error {
		if err := checkFormat(path, tx); err != nil {
			return err
		}
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if meta.Get([]byte(formatKey)) == nil {
			if err := meta.Put([]byte(formatKey), []byte(formatValue)); err != nil {
				return err
			}
		}
		_, err = tx.CreateBucketIfNotExists(bucketSessions)
		return err
	})
	if err != nil {
		db.Close()
		return nil, damaged(path, err)
	}
	if fi != nil { // an existing notebook, now known to be one
		makePrivate(path, fi.Mode(), opts, false)
	}
	return b, nil
}

func now() time.Time { return time.Now().Round(0) }

// damaged is err from checking a freshly opened notebook: a fileError as it is, anything
// else as the file being damaged.
func damaged(path string, err error) error {
	var fe *fileError
	if errors.As(err, &fe) {
		return err
	}
	return &fileError{path: path, msg: "is damaged", kind: ErrCorrupt, err: err}
}

// allocSize is how much the notebook's file grows at a time once it is past its first
// few pages.
const allocSize = 128 << 10

// emptyFile is the error for a zero-byte notebook: coplay never leaves one (a new
// notebook is written whole before Open returns), so it was truncated.
func emptyFile(path string) error {
	return &fileError{path: path, msg: "is damaged", kind: ErrCorrupt,
		err: errors.New("the file is empty (0 bytes): it was truncated; restore it from a backup, or remove it to start a new notebook")}
}

// OpenReadOnly opens an existing notebook for reading only: the file is never written
// (bbolt's read-only mode takes a shared lock and writes nothing), so it works on a
// read-only file system and beside a running coplay that only reads. Only its mode
// may change: one that other users may read is made 0600 where it can be, as by Open. Writing methods
// fail with ErrReadOnly. A missing file is an error matching os.ErrNotExist; a file
// that is not an intact notebook, ErrCorrupt.
func OpenReadOnly(path string, opts *Options) (*Book, error) {
	timeout := time.Second
	if opts != nil && opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("notes: %w", err)
	case !fi.Mode().IsRegular():
		return nil, &fileError{path: path, msg: "is not a regular file", kind: ErrCorrupt}
	case fi.Size() == 0:
		return nil, emptyFile(path)
	}
	db, err := openBolt(path, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return nil, err
	}
	b := &Book{path: path, db: db, now: now, readOnly: true}
	if opts != nil && opts.Name != "" {
		b.path = opts.Name
	}
	err = b.view(func(tx *bolt.Tx) error {
		if err := checkFormat(path, tx); err != nil {
			return err
		}
		if tx.Bucket(bucketMeta) == nil {
			return &fileError{path: path, msg: "is not a coplay notebook", kind: ErrCorrupt, err: errors.New("it has no coplay data")}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, damaged(path, err)
	}
	makePrivate(path, fi.Mode(), opts, true)
	return b, nil
}

// openBolt opens the bbolt file and translates bbolt's errors into ours.
func openBolt(path string, o *bolt.Options) (db *bolt.DB, err error) {
	defer func() {
		// bbolt can panic on a mangled file; that is a damaged file, not a bug here.
		if r := recover(); r != nil {
			db, err = nil, &fileError{path: path, msg: "is damaged", kind: ErrCorrupt, err: fmt.Errorf("%v", r)}
		}
	}()
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	db, err = bolt.Open(path, 0o600, o)
	if err != nil {
		return nil, openError(path, o.ReadOnly, err)
	}
	return db, nil
}

// openError translates an error of bbolt's Open into one that says what is wrong with
// the file: locked, damaged, read-only or forbidden.
func openError(path string, readOnly bool, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return &fileError{path: path, msg: "is in use by another coplay", kind: ErrLocked}
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch),
		errors.Is(err, berrors.ErrChecksum):
		return &fileError{path: path, msg: "is not a coplay notebook or is damaged", kind: ErrCorrupt, err: err}
	case errors.Is(err, syscall.EROFS):
		return &fileError{path: path, msg: "is on a read-only file system", kind: ErrReadOnly,
			err: errors.New("coplay run needs to write it; `coplay sessions` and `sessions export` only read")}
	case errors.Is(err, os.ErrPermission):
		what := "write"
		if readOnly {
			what = "read"
		}
		return &fileError{path: path, msg: "cannot be opened: permission denied", kind: ErrReadOnly,
			err: fmt.Errorf("this user may not %s it (check its owner and mode)", what)}
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("notes: %w", err)
	default:
		// Anything else from bbolt at open time is about the file's content
		// (too small, bad mapping).
		return &fileError{path: path, msg: "is not a coplay notebook or is damaged", kind: ErrCorrupt, err: err}
	}
}

// inspect opens an existing file read-only and checks that it is an
// intact coplay notebook.
func inspect(path string, timeout time.Duration) error {
	db, err := openBolt(path, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return err
	}
	defer db.Close()
	b := &Book{path: path, db: db}
	err = b.view(func(tx *bolt.Tx) error { return checkFormat(path, tx) })
	var fe *fileError
	if err != nil && !errors.As(err, &fe) {
		return &fileError{path: path, msg: "is damaged", kind: ErrCorrupt, err: err}
	}
	return err
}

// checkFormat accepts an empty bbolt file (a crash can leave one right
// after creation) or one carrying our format mark, and checks that the
// file is as long as its own metadata says.
func checkFormat(path string, tx *bolt.Tx) (err error) {
	defer faultAt(&err, func() string { return "its format mark and list of sessions" })
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("notes: %w", err)
	}
	if fi.Size() < tx.Size() {
		return &fileError{path: path, msg: "is damaged", kind: ErrCorrupt,
			err: fmt.Errorf("file is %d bytes but its metadata needs %d (truncated?)", fi.Size(), tx.Size())}
	}
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		empty := true
		if err := tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil }); err != nil {
			return err
		}
		if empty {
			return nil
		}
		return &fileError{path: path, msg: "is not a coplay notebook", kind: ErrCorrupt,
			err: errors.New("it is a bbolt database of another program")}
	}
	v := meta.Get([]byte(formatKey))
	if !bytes.Equal(v, []byte(formatValue)) {
		return &fileError{path: path, msg: "is not a coplay notebook", kind: ErrCorrupt,
			err: fmt.Errorf("unknown format %q (this coplay reads %q)", v, formatValue)}
	}
	if tx.Bucket(bucketSessions) == nil {
		return &fileError{path: path, msg: "is damaged", kind: ErrCorrupt, err: errors.New("sessions bucket missing")}
	}
	return nil
}

// Path returns the file the book was opened from.
func (b *Book) Path() string { return b.path }

// Close releases the file. Sessions obtained from the book must not be
// used afterwards.
func (b *Book) Close() error {
	if err := b.db.Close(); err != nil {
		return fmt.Errorf("notes: close %s: %w", b.path, err)
	}
	return nil
}

// view runs fn in a read transaction, turning a panic from a damaged file
// into an ErrCorrupt error instead of a crash.
func (b *Book) view(fn func(*bolt.Tx) error) (err error) {
	defer b.recoverCorrupt(&err)
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	return b.db.View(fn)
}

// update runs fn in a write transaction that is fsynced before it returns.
func (b *Book) update(fn func(*bolt.Tx) error) (err error) {
	if b.readOnly {
		return &fileError{path: b.path, msg: "was opened read-only", kind: ErrReadOnly}
	}
	defer b.recoverCorrupt(&err)
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	n := b.writes.Add(1)
	err = b.db.Update(func(tx *bolt.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if b.failWrite != nil {
			return b.failWrite(n)
		}
		return nil
	})
	if err != nil {
		return err
	}
	b.commits.Add(1)
	return nil
}

// Commits returns how many write transactions this Book has committed since it was
// opened: each one is a durable write (an fsync), so benchmarks report it per step.
func (b *Book) Commits() uint64 { return b.commits.Load() }

func (b *Book) recoverCorrupt(err *error) {
	if r := recover(); r != nil {
		*err = &fileError{path: b.path, msg: "is damaged", kind: ErrCorrupt, err: fmt.Errorf("%v", r)}
	}
}
