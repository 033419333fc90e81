package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
)

// Before the first step the brain asks the server about its model (brain.Preparer):
// Ollama, found by its /api/version, says the model's context length in /api/show, and
// is then spoken to through its own /api/chat, where the context can be set (ollama.go);
// vLLM says max_model_len in /v1/models, llama.cpp its context in /props. The window
// learned sizes the runner's prompt.

// probeTimeout bounds each question asked before the first step: a server that does
// not know the path answers at once, and play must not wait on one that hangs.
const probeTimeout = 5 * time.Second

// ollamaWindow is the most context the brain asks Ollama for when the model allows
// more: every token of context costs memory on the player's machine, and the runner's
// default prompt is sized for 32k.
const ollamaWindow = 32768

var _ brain.Preparer = (*Brain)(nil)

// Prepare learns the model's window before the first request: from Ollama (whose
// context it then sets for every request), vLLM's /v1/models or llama.cpp's /props.
// Hosted services are not asked. A server that answers none of these is not an error:
// the window stays unknown.
func (b *Brain) Prepare(ctx context.Context) (brain.Prep, error) {
	if b.hosted() {
		return brain.Prep{}, nil
	}
	root := serverRoot(b.cfg.BaseURL)
	if version, ok := b.ollamaVersion(ctx, root); ok {
		return b.prepareOllama(ctx, root, version)
	}
	if strings.EqualFold(b.cfg.Preset, "ollama") {
		// The preset says Ollama, but its own API does not answer: only the OpenAI
		// endpoint can be used, and it runs the model at the server's default context.
		if b.getJSON(ctx, b.cfg.BaseURL+"/models", &struct{}{}) == nil {
			return brain.Prep{Window: ollamaDefaultContext, Notice: ollamaNoContextNotice(root)}, nil
		}
		return brain.Prep{}, nil
	}
	return brain.Prep{Window: b.serverWindow(ctx, root)}, nil
}

// ollamaDefaultContext is the context Ollama runs a model at unless told otherwise
// (OLLAMA_CONTEXT_LENGTH; more on machines with 24 GiB of VRAM or more).
const ollamaDefaultContext = 4096

// ollamaNoContextNotice is said when the context of an Ollama server cannot be set.
func ollamaNoContextNotice(root string) string {
	return fmt.Sprintf("Ollama's own API at %s/api does not answer, so coplay cannot set the model's context: Ollama's OpenAI endpoint runs it at the server's default (4,096 tokens unless OLLAMA_CONTEXT_LENGTH is set) and silently cuts longer prompts. "+
		"Start the server with OLLAMA_CONTEXT_LENGTH=16384 ollama serve, or create a model whose Modelfile has PARAMETER num_ctx 16384 (ollama create NAME -f Modelfile) and play with it", root)
}

// hosted says whether the brain talks to a hosted service, which is not probed.
func (b *Brain) hosted() bool {
	switch strings.ToLower(b.cfg.Preset) {
	case "openai", "openrouter":
		return true
	}
	u, err := url.Parse(b.cfg.BaseURL)
	if err != nil {
		return true
	}
	switch h := u.Hostname(); {
	case h == "api.openai.com", strings.HasSuffix(h, "openrouter.ai"), h == "api.deepseek.com",
		h == "generativelanguage.googleapis.com", h == "api.anthropic.com", h == "api.groq.com", h == "api.mistral.ai":
		return true
	}
	return false
}

// serverRoot is the server's address without the OpenAI API's /v1.
func serverRoot(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}

// ollamaVersion asks GET /api/version, which only Ollama answers with its version.
func (b *Brain) ollamaVersion(ctx context.Context, root string) (string, bool) {
	var v struct {
		Version string `json:"version"`
	}
	if err := b.getJSON(ctx, root+"/api/version", &v); err != nil || v.Version == "" {
		return "", false
	}
	return v.Version, true
}

// ollamaShow is the part of Ollama's /api/show answer the brain reads.
type ollamaShow struct {
	Parameters string                     `json:"parameters"` // the Modelfile's PARAMETER lines
	ModelInfo  map[string]json.RawMessage `json:"model_info"`
	// Capabilities lists what the model can do: "completion", "tools", "thinking".
	Capabilities []string `json:"capabilities"`
}

// contextLength is the model's trained context: model_info's <arch>.context_length.
func (s ollamaShow) contextLength() int {
	for k, v := range s.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			var n int
			if json.Unmarshal(v, &n) == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// prepareOllama reads the model's context length and switches the brain to Ollama's
// own /api/chat, where every request sets its context (num_ctx) to fit.
func (b *Brain) prepareOllama(ctx context.Context, root, version string) (brain.Prep, error) {
	var show ollamaShow
	err := b.postJSON(ctx, root+"/api/show", map[string]string{"model": b.cfg.Model}, &show)
	var se *statusError
	if errors.As(err, &se) && se.status == http.StatusNotFound {
		return brain.Prep{}, fmt.Errorf("Ollama %s at %s has no model %q: pull it with `ollama pull %s`, or pass --model with one `ollama list` shows", version, root, b.cfg.Model, b.cfg.Model)
	}
	maxCtx := 0
	if err == nil {
		maxCtx = show.contextLength()
	}
	b.setOllama(&ollamaState{root: root, version: version, maxCtx: maxCtx})
	window := ollamaWindow
	if maxCtx > 0 {
		window = min(maxCtx, ollamaWindow)
	}
	prep := brain.Prep{Window: window}
	if err != nil {
		return prep, fmt.Errorf("Ollama %s at %s: reading model %s (/api/show): %v; its context is set to fit each prompt, up to %d tokens", version, root, b.cfg.Model, err, window)
	}
	return prep, nil
}

// serverWindow reads the context a non-Ollama server runs its model at: vLLM's
// max_model_len in /v1/models, llama.cpp's n_ctx in /props; 0 when neither says.
func (b *Brain) serverWindow(ctx context.Context, root string) int {
	var models struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"` // vLLM
		} `json:"data"`
	}
	if b.getJSON(ctx, b.cfg.BaseURL+"/models", &models) == nil {
		for _, m := range models.Data {
			if m.ID == b.cfg.Model && m.MaxModelLen > 0 {
				return m.MaxModelLen
			}
		}
	}
	var props struct {
		NCtx     int `json:"n_ctx"`
		Defaults struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if b.getJSON(ctx, root+"/props", &props) == nil {
		if props.Defaults.NCtx > 0 {
			return props.Defaults.NCtx
		}
		return props.NCtx
	}
	return 0
}

// statusError is an HTTP answer other than 200 to a probe.
type statusError struct {
	status int
	body   string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.status, game.Clip(strings.TrimSpace(e.body), 200))
}

// getJSON and postJSON ask the server one question, within probeTimeout, through the
// brain's HTTP client (its key, if any, as a bearer token), and decode a 200 answer.
func (b *Brain) getJSON(ctx context.Context, u string, out any) error {
	return b.ask(ctx, http.MethodGet, u, nil, out)
}

func (b *Brain) postJSON(ctx context.Context, u string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return b.ask(ctx, http.MethodPost, u, body, out)
}

func (b *Brain) ask(ctx context.Context, method, u string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if b.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+b.cfg.APIKey)
	}
	resp, err := b.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &statusError{status: resp.StatusCode, body: string(data)}
	}
	return json.Unmarshal(data, out)
}
