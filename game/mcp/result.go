package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/game"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxOutput caps what one result or observation gives the model.
const maxOutput = 16 << 10

// toResult turns a tool's answer into what the model reads: text as it is,
// structuredContent as compact JSON (unless a text block already says the same),
// images, audio and binary resources as one line each. isError makes it a game error.
func toResult(res *sdk.CallToolResult) game.Result {
	var parts []string
	var texts []string
	for _, c := range res.Content {
		s := contentText(c)
		if t, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, t.Text)
		}
		if s != "" {
			parts = append(parts, s)
		}
	}
	if res.StructuredContent != nil {
		if js, err := json.Marshal(res.StructuredContent); err == nil && !anySameJSON(texts, js) {
			parts = append(parts, "structuredContent: "+string(js))
		}
	}
	out := capText(strings.Join(parts, "\n"), maxOutput)
	if res.IsError {
		if out == "" {
			out = "the tool reported an error without saying what"
		}
		return game.Result{Err: &game.Error{Code: CodeToolError, Message: out}}
	}
	return game.Result{Output: out}
}

// contentText is one content block as text for the model.
func contentText(c sdk.Content) string {
	switch x := c.(type) {
	case *sdk.TextContent:
		return x.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image %s, %s]", orUnknown(x.MIMEType), size(len(x.Data)))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %s]", orUnknown(x.MIMEType), size(len(x.Data)))
	case *sdk.ResourceLink:
		s := fmt.Sprintf("[resource link %s", x.URI)
		if x.Name != "" && x.Name != x.URI {
			s += " " + quote(x.Name)
		}
		if x.MIMEType != "" {
			s += ", " + x.MIMEType
		}
		if x.Size != nil {
			s += ", " + size(int(*x.Size))
		}
		s += "]"
		if x.Description != "" {
			s += " " + x.Description
		}
		return s
	case *sdk.EmbeddedResource:
		if x.Resource == nil {
			return "[resource]"
		}
		return resourceText([]*sdk.ResourceContents{x.Resource})
	case nil:
		return ""
	}
	return fmt.Sprintf("[%T content]", c)
}

// resourceText is a resource's contents for the model: text with a header line,
// binary contents summarised.
func resourceText(contents []*sdk.ResourceContents) string {
	var parts []string
	for _, rc := range contents {
		if rc == nil {
			continue
		}
		switch {
		case rc.Blob != nil:
			parts = append(parts, fmt.Sprintf("[resource %s, %s, %s]", rc.URI, orUnknown(rc.MIMEType), size(len(rc.Blob))))
		default:
			parts = append(parts, fmt.Sprintf("[resource %s, %s]\n%s", rc.URI, orUnknown(rc.MIMEType), rc.Text))
		}
	}
	return strings.Join(parts, "\n")
}

// anySameJSON reports whether one of texts is the JSON js (servers often repeat their
// structured result as text for older clients).
func anySameJSON(texts []string, js []byte) bool {
	for _, t := range texts {
		var a, b any
		if json.Unmarshal([]byte(t), &a) != nil || json.Unmarshal(js, &b) != nil {
			continue
		}
		ab, _ := json.Marshal(a)
		bb, _ := json.Marshal(b)
		if bytes.Equal(ab, bb) {
			return true
		}
	}
	return false
}

// capText cuts s to at most max bytes (at a rune boundary) and says how much was cut.
func capText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := len(game.CutBytes(s, max))
	return s[:cut] + fmt.Sprintf("\n[… cut %s of %s: the output is longer than %s]", size(len(s)-cut), size(len(s)), size(max))
}

// size says a byte count briefly: "512 B", "12 KB", "3.4 MB".
func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
