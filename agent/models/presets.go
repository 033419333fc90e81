package models

import (
	"slices"
	"strings"
)

// Wire is the protocol a preset's server speaks.
type Wire string

// Wires coplay speaks.
const (
	WireOpenAI    Wire = "openai"    // chat completions (agent/openai)
	WireAnthropic Wire = "anthropic" // the Messages API (agent/anthropic)
)

// Dialect is a server's variant of a wire: what it refuses in tool schemas, how it
// caches. "" is the plain wire.
type Dialect string

// Dialects with known differences.
const (
	DialectGemini     Dialect = "gemini"     // refuses additionalProperties, $schema, $ref, const, ... in tool schemas
	DialectOpenRouter Dialect = "openrouter" // caches Claude only with cache_control on content parts
	DialectMistral    Dialect = "mistral"    // tool call ids of 9 letters and digits
)

// Preset is a known server: where it is, which wire and dialect it speaks, where its
// key comes from and which model it plays when none is named.
type Preset struct {
	Name    string
	Wire    Wire
	Dialect Dialect
	BaseURL string
	// KeyEnv is the environment variable of the server's key ("" = none of its own).
	KeyEnv string
	// OpenAIKey says OPENAI_API_KEY is read too when KeyEnv is unset (OpenAI itself, and
	// OpenRouter for older setups). A preset of another company never reads it: an
	// OpenAI key must not be sent to Google.
	OpenAIKey bool
	NeedsKey  bool   // the server refuses requests without a key
	Model     string // the default model; "" means one must be named
	Local     bool   // a server on this machine (no key, no bill)
	Help      string // one line for --help and error messages
}

var presets = []Preset{
	{Name: "openai", Wire: WireOpenAI, BaseURL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY", OpenAIKey: true, NeedsKey: true,
		Model: "gpt-4o-mini", Help: "OpenAI (needs OPENAI_API_KEY)"},
	{Name: "anthropic", Wire: WireAnthropic, BaseURL: "https://api.anthropic.com", KeyEnv: "ANTHROPIC_API_KEY", NeedsKey: true,
		Model: "claude-sonnet-4-6", Help: "Anthropic's Claude, natively with its prompt cache (needs ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL overrides the URL)"},
	{Name: "gemini", Wire: WireOpenAI, Dialect: DialectGemini, BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai",
		KeyEnv: "GEMINI_API_KEY", NeedsKey: true, Model: "gemini-2.5-flash", Help: "Google Gemini (needs GEMINI_API_KEY)"},
	{Name: "deepseek", Wire: WireOpenAI, BaseURL: "https://api.deepseek.com/v1", KeyEnv: "DEEPSEEK_API_KEY", NeedsKey: true,
		Model: "deepseek-v4-flash", Help: "DeepSeek (needs DEEPSEEK_API_KEY)"},
	{Name: "mistral", Wire: WireOpenAI, Dialect: DialectMistral, BaseURL: "https://api.mistral.ai/v1", KeyEnv: "MISTRAL_API_KEY", NeedsKey: true,
		Model: "mistral-large-2512", Help: "Mistral (needs MISTRAL_API_KEY)"},
	{Name: "groq", Wire: WireOpenAI, BaseURL: "https://api.groq.com/openai/v1", KeyEnv: "GROQ_API_KEY", NeedsKey: true,
		Model: "moonshotai/kimi-k2-instruct-0905", Help: "Groq (needs GROQ_API_KEY)"},
	{Name: "xai", Wire: WireOpenAI, BaseURL: "https://api.x.ai/v1", KeyEnv: "XAI_API_KEY", NeedsKey: true,
		Model: "grok-4.3", Help: "xAI's Grok (needs XAI_API_KEY)"},
	{Name: "openrouter", Wire: WireOpenAI, Dialect: DialectOpenRouter, BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY",
		OpenAIKey: true, NeedsKey: true, Model: "openai/gpt-4o-mini", Help: "OpenRouter (needs OPENROUTER_API_KEY or OPENAI_API_KEY)"},
	{Name: "ollama", Wire: WireOpenAI, BaseURL: "http://localhost:11434/v1", Local: true, OpenAIKey: true,
		Model: "qwen2.5:7b", Help: "Ollama on this machine (no key; the model must support tools)"},
	{Name: "lmstudio", Wire: WireOpenAI, BaseURL: "http://localhost:1234/v1", Local: true, OpenAIKey: true,
		Help: "LM Studio's local server (no key; pass the loaded model's name)"},
	{Name: "vllm", Wire: WireOpenAI, BaseURL: "http://localhost:8000/v1", Local: true, OpenAIKey: true,
		Help: "vLLM's OpenAI server (no key unless started with --api-key; pass the served model name; needs --enable-auto-tool-choice)"},
	{Name: "llamacpp", Wire: WireOpenAI, BaseURL: "http://localhost:8080/v1", Local: true, OpenAIKey: true, Model: "default",
		Help: "llama.cpp's llama-server (no key; start it with --jinja for tool calls)"},
}

// Presets returns every preset, in a fixed order (hosted ones first). The slice is a copy.
func Presets() []Preset { return slices.Clone(presets) }

// PresetNamed finds a preset by name, without regard to case.
func PresetNamed(name string) (Preset, bool) {
	for _, p := range presets {
		if strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	return Preset{}, false
}

// PresetNames lists the presets' names, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for _, p := range presets {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}

// KeyVars says which environment variables a preset reads for its key, in order, for
// messages: "GEMINI_API_KEY", "OPENROUTER_API_KEY or OPENAI_API_KEY".
func (p Preset) KeyVars() string {
	var vars []string
	if p.KeyEnv != "" {
		vars = append(vars, p.KeyEnv)
	}
	if p.OpenAIKey && p.KeyEnv != "OPENAI_API_KEY" {
		vars = append(vars, "OPENAI_API_KEY")
	}
	return strings.Join(vars, " or ")
}

// Key reads the preset's key from getenv: its own variable, then OPENAI_API_KEY where
// the preset allows it.
func (p Preset) Key(getenv func(string) string) string {
	if p.KeyEnv != "" {
		if k := getenv(p.KeyEnv); k != "" {
			return k
		}
	}
	if p.OpenAIKey {
		return getenv("OPENAI_API_KEY")
	}
	return ""
}
