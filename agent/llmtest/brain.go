package llmtest

import (
	"io"
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
	return b, srv, nil
}

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
