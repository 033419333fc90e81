package ui

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// Through a real program, the copy key writes the text to the terminal as OSC 52, the
// sequence that sets the clipboard (over ssh too).
func TestCopyWritesOSC52(t *testing.T) {
	m := newTestModel(newFake())
	m.events = nil
	p := newProgram(t, m)
	for _, msg := range events(opening(), longResult()) {
		p.Send(msg)
	}
	p.Send(keyMsg("enter"))
	waitFor(t, func() bool { return strings.Contains(stripANSI(p.view()), "Log entry") })
	p.Send(keyMsg("c"))
	var whole []string
	for i := 1; i <= 12; i++ {
		whole = append(whole, fmt.Sprintf("market line %d", i))
	}
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte("observe_detail ok: "+strings.Join(whole, "\n")))
	var seen strings.Builder
	deadline := time.Now().Add(5 * time.Second)
	buf := make([]byte, 4096)
	for !strings.Contains(seen.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no OSC 52 with the entry's text in the output")
		}
		n, err := p.Output().Read(buf)
		seen.Write(buf[:n])
		if err == io.EOF || n == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if err := p.Quit(); err != nil {
		t.Fatal(err)
	}
}
