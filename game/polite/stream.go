package polite

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"sync/atomic"
	"time"
)

// A response is read as it arrives: a stream (application/x-ndjson, text/event-stream,
// or a body of any type that has not ended StreamWindow after its headers, such as JSON
// that never ends) gives what arrived in the window, at most StreamLines lines of a
// line-delimited stream, and the connection is closed. A body that breaks off after
// some of it came is kept as it is, with the error: a request is never sent again once
// data came back.

// Defaults of the stream window.
const (
	DefaultStreamWindow = 5 * time.Second // how long a body is read after its headers
	DefaultStreamLines  = 50              // lines of a line-delimited stream kept
)

// streamTypes are the media types whose bodies are streams of lines (or events).
var streamTypes = map[string]bool{
	"application/x-ndjson": true, "application/ndjson": true, "application/jsonl": true,
	"application/x-jsonlines": true, "application/json-seq": true, "text/event-stream": true,
}

// IsStreamType reports whether a Content-Type names a stream of lines or events.
func IsStreamType(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && streamTypes[mt]
}

// body is a response body as far as it was read.
type body struct {
	data    []byte
	stream  bool  // the window or the line cap ended the reading
	readErr error // it broke off (data may hold what came first)
}

// readBody reads resp's body, closing it as the window closes or the line cap is
// reached.
func (c *Client) readBody(resp *http.Response) body {
	window, lines := c.StreamWindow, c.StreamLines
	if window <= 0 {
		window = DefaultStreamWindow
	}
	if lines <= 0 {
		lines = DefaultStreamLines
	}
	var expired atomic.Bool
	t := time.AfterFunc(window, func() { expired.Store(true); resp.Body.Close() })
	defer t.Stop()
	byLine := IsStreamType(resp.Header.Get("Content-Type"))
	r := bufio.NewReader(io.LimitReader(resp.Body, maxBody))
	var buf bytes.Buffer
	for n := 0; ; {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			buf.Write(line)
			continue
		}
		buf.Write(line)
		if err == nil {
			n++
		}
		switch {
		case byLine && n >= lines:
			return body{data: buf.Bytes(), stream: true}
		case err == io.EOF:
			return body{data: buf.Bytes()}
		case err != nil && expired.Load():
			return body{data: buf.Bytes(), stream: true}
		case err != nil:
			return body{data: buf.Bytes(), readErr: err}
		}
	}
}
