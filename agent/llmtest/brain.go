package llmtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/openai"
)

// NewBrain loads the cassette at path, starts a Server for it and returns an
// agent/openai Brain pointed at the server (streaming, three retries, a 10 s silence
// limit), so scripted play exercises the real wire format. Close the Closer to stop
// the server. It backs --brain script:FILE.
func NewBrain(path string) (brain.Brain, io.Closer, error) {
	c, err := Load(path)
	if err != nil {
		return nil, nil, err
	}
	srv := NewServer(c)
	b, err := openai.New(BrainConfig(srv))
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	return Script(b, srv, path), srv, nil
}

// ScriptBrain is a model brain playing a cassette served by Server that knows when the
// cassette is over (brain.Finite): once every answer of a cassette that does not repeat
// is played, Over says so and Next refuses without a request.
type ScriptBrain struct {
	*openai.Brain
	srv  *Server
	file string
}

var _ brain.Finite = (*ScriptBrain)(nil)

// Script wraps b, a brain pointed at srv, which serves the cassette at file.
func Script(b *openai.Brain, srv *Server, file string) *ScriptBrain {
	return &ScriptBrain{Brain: b, srv: srv, file: file}
}

// Over says the script is over once all its answers are played, or "".
func (b *ScriptBrain) Over() string {
	played, total := b.srv.Played()
	if total == 0 || played < total {
		return ""
	}
	return fmt.Sprintf("the script %s is over: its %d answers are played, and nothing more is asked of it", filepath.Base(b.file), total)
}

// Next answers from the cassette, or refuses without a request once it is over.
func (b *ScriptBrain) Next(ctx context.Context, req brain.Request) (brain.Reply, error) {
	if why := b.Over(); why != "" {
		return brain.Reply{}, errors.New(why)
	}
	return b.Brain.Next(ctx, req)
}

// Skip passes over the first n answers, already given to the session being resumed.
func (b *ScriptBrain) Skip(n int) { b.srv.Skip(n) }

// BrainConfig is the openai.Config NewBrain uses for srv: streaming, the cassette's
// model and its price, no key, a 10 s silence limit (a timeout fault costs that much),
// three retries.
func BrainConfig(srv *Server) openai.Config {
	cfg := openai.Config{
		BaseURL:    srv.URL(),
		Model:      srv.c.Model,
		Stream:     true,
		MaxRetries: 3,
		Timeout:    10 * time.Second,
	}
	if p := srv.c.Price; p != nil {
		cfg.PriceIn, cfg.PriceOut, cfg.PriceCached = p.Prompt, p.Completion, p.CachedPrompt
	}
	return cfg
}

// AnthropicConfig is an anthropic.Config for srv's Messages API route: streaming, the
// cassette's model and its price, a stand-in key (the route wants one, as Anthropic
// does), a 10 s silence limit, three retries.
func AnthropicConfig(srv *Server) anthropic.Config {
	o := BrainConfig(srv)
	return anthropic.Config{APIKey: "llmtest-key", BaseURL: o.BaseURL, Model: o.Model, Stream: o.Stream,
		MaxRetries: o.MaxRetries, Timeout: o.Timeout, PriceIn: o.PriceIn, PriceOut: o.PriceOut, PriceCached: o.PriceCached}
}
