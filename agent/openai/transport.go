package openai

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/agent/retry"
)

// go-openai does not expose the headers of an error answer, and Retry-After lives
// there; nor does it decode DeepSeek's usage.prompt_cache_hit_tokens. A RoundTripper
// sees every answer, so it notes the header, and the cache hits as the body's bytes
// pass (a JSON body or an event stream alike), into a slot the attempt put in the
// request's context.

// retrySlot receives what one attempt's answer said beyond what go-openai decodes:
// the server's requested wait and DeepSeek's cached prompt tokens.
type retrySlot struct {
	mu       sync.Mutex
	after    time.Duration // 0 when the server named no wait
	cacheHit int           // the last prompt_cache_hit_tokens seen in the body
	hasHit   bool          // the body carried prompt_cache_hit_tokens
}

func (s *retrySlot) set(d time.Duration) {
	s.mu.Lock()
	s.after = d
	s.mu.Unlock()
}

func (s *retrySlot) get() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.after
}

func (s *retrySlot) setCacheHit(n int) {
	s.mu.Lock()
	s.cacheHit, s.hasHit = n, true
	s.mu.Unlock()
}

// cacheHits returns DeepSeek's prompt_cache_hit_tokens from the answer's body, if the
// body (read so far) carried it.
func (s *retrySlot) cacheHits() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cacheHit, s.hasHit
}

type slotKey struct{}

// headerTransport records Retry-After, and the cache hits its body carries, into the
// request's retrySlot.
type headerTransport struct {
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		if slot, ok := req.Context().Value(slotKey{}).(*retrySlot); ok {
			slot.set(retry.After(resp.Header, time.Now()))
			if resp.Body != nil {
				resp.Body = &watchedBody{ReadCloser: renameReasoning(resp.Body), scan: hitScanner{found: slot.setCacheHit}}
			}
		}
	}
	return resp, err
}

// watchedBody passes a response body through unchanged, showing every byte read to
// its scanner.
type watchedBody struct {
	io.ReadCloser
	scan hitScanner
}

// Read implements io.Reader.
func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.scan.write(p[:n])
	if err != nil {
		b.scan.end()
	}
	return n, err
}

// hitKey is DeepSeek's usage field for the prompt tokens served from its cache.
const hitKey = `"prompt_cache_hit_tokens"`

// hitScanner finds "prompt_cache_hit_tokens": N in a byte stream fed in pieces of
// any size, so a key or number split across two reads is still found. It reads only
// a key followed by a colon and a whole number: the same words inside a JSON string
// have escaped quotes (\"), which never match.
type hitScanner struct {
	found   func(int)
	matched int  // bytes of hitKey matched so far
	colon   bool // the key was followed by its colon; a number may come
	inNum   bool
	n       int
}

// write scans the next bytes of the stream.
func (s *hitScanner) write(p []byte) {
	for _, c := range p {
		switch {
		case s.inNum:
			if c >= '0' && c <= '9' {
				if s.n <= (math.MaxInt-9)/10 {
					s.n = s.n*10 + int(c-'0')
				}
				continue
			}
			s.end()
		case s.colon:
			switch {
			case c >= '0' && c <= '9':
				s.inNum, s.n = true, int(c-'0')
				continue
			case isSpace(c):
				continue
			}
			s.colon = false
		case s.matched == len(hitKey):
			switch {
			case c == ':':
				s.matched, s.colon = 0, true
				continue
			case isSpace(c):
				continue
			}
			s.matched = 0
		}
		if c == hitKey[s.matched] {
			s.matched++
		} else if c == hitKey[0] {
			s.matched = 1 // the key's only quote is its first byte
		} else {
			s.matched = 0
		}
	}
}

// end finishes a number the stream stopped on.
func (s *hitScanner) end() {
	if s.inNum {
		s.found(s.n)
	}
	s.inNum, s.colon, s.n = false, false, 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// withSlot returns a context carrying a fresh slot.
func withSlot(ctx context.Context) (context.Context, *retrySlot) {
	slot := &retrySlot{}
	return context.WithValue(ctx, slotKey{}, slot), slot
}

// EditRequests returns a transport that passes every chat-completions request body
// through edit before base sends it; edit's ok false sends the body as it was. The
// brain marks cache breakpoints this way, and a profile's max_tokens is added so.
func EditRequests(base http.RoundTripper, edit func(body []byte) ([]byte, bool)) http.RoundTripper {
	return editTransport{base: base, edit: edit}
}

// editTransport is EditRequests' transport.
type editTransport struct {
	base http.RoundTripper
	edit func([]byte) ([]byte, bool)
}

// RoundTrip sends req with its body edited.
func (t editTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") || req.Body == nil {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	if edited, ok := t.edit(body); ok {
		body = edited
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return t.base.RoundTrip(r)
}
