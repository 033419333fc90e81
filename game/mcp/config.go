package mcp

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Config says which MCP server to play and how to look at it.
type Config struct {
	// Command starts a stdio server, split like a shell would split it (quotes and
	// backslashes; no variables, globs or pipes): `node ./dist/index.js stdio`.
	Command string
	// URL is a streamable HTTP endpoint, e.g. http://127.0.0.1:3001/mcp.
	URL string
	// Headers are sent with every HTTP request. A value may name environment variables
	// ("Bearer $MY_TOKEN" or "${MY_TOKEN}"); they are read when connecting and the
	// expanded value is kept only inside the connection, never in this Config.
	Headers map[string]string
	// Observe lists resource URIs read at every observation.
	Observe []string
	// ObserveTool names a read-only tool called with {} at every observation.
	ObserveTool string
	// LogDir receives the stderr of a stdio server (a file named after the server),
	// with coplay's warnings about what it printed on stdout. Empty: discarded.
	LogDir string
	// Sampling offers the server the player's model (sampling/createMessage), each
	// request put to the person first; set it only when a model plays.
	Sampling bool
	// LogLevel is the least severe log level the server is asked to send
	// (logging/setLevel); "" is DefaultLogLevel.
	LogLevel string
	// OAuth is how coplay identifies itself when a URL server answers 401 (oauth.go).
	OAuth OAuth
	// Tokens keeps OAuth grants across runs (tokens.go); nil keeps them in memory only.
	Tokens TokenStore
	// Transport forces how a URL is spoken: TransportHTTP (streamable HTTP) or
	// TransportSSE (the 2024-11-05 HTTP+SSE transport); "" tries streamable HTTP first
	// and falls back to SSE when the server answers as an old one (sse.go).
	Transport string
}

// check reports what is wrong with a Config, before anything is started.
func (c Config) check() error {
	switch {
	case c.Command == "" && c.URL == "":
		return errors.New("mcp: give a server: a command (stdio) or a URL (streamable HTTP)")
	case c.Command != "" && c.URL != "":
		return errors.New("mcp: give either a command or a URL, not both")
	case c.Command != "" && len(c.Headers) > 0:
		return errors.New("mcp: headers are for a URL; a stdio server gets its settings from its command line or environment")
	}
	if c.Command != "" {
		if _, err := splitCommand(c.Command); err != nil {
			return err
		}
	}
	switch c.Transport {
	case "", TransportHTTP, TransportSSE:
	default:
		return fmt.Errorf("mcp: transport %q is not one of http, sse", c.Transport)
	}
	if c.Transport != "" && c.Command != "" {
		return errors.New("mcp: a transport (http or sse) is for a URL; a command is spoken over stdio")
	}
	if err := c.OAuth.check(c.Command != ""); err != nil {
		return err
	}
	if c.LogLevel != "" && !validLogLevel(c.LogLevel) {
		return fmt.Errorf("mcp: log level %q is not one of %s", c.LogLevel, strings.Join(logLevels, ", "))
	}
	for name := range c.Headers {
		if !validHeaderName(name) {
			return fmt.Errorf("mcp: header name %q is not a valid HTTP header name", name)
		}
	}
	return nil
}

var headerName = regexp.MustCompile(`^[!#$%&'*+.^_|~0-9A-Za-z-]+$`)

func validHeaderName(s string) bool { return headerName.MatchString(s) }

// splitCommand splits a command line the way a POSIX shell splits words: blanks
// separate words; 'single quotes' keep everything; "double quotes" keep everything but
// \" and \\; a backslash outside quotes keeps the next character.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("mcp: command %q: unterminated single quote at %d", s, i)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("mcp: command %q: unterminated double quote", s)
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("mcp: command %q: ends with a backslash", s)
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("mcp: the command is empty")
	}
	return words, nil
}

// expandHeaders returns the headers with environment variables expanded. A variable
// that is not set is an error naming the header and the variable, never a value.
func expandHeaders(h map[string]string, getenv func(string) (string, bool)) (map[string]string, error) {
	out := make(map[string]string, len(h))
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		var missing []string
		v := os.Expand(h[name], func(key string) string {
			val, ok := getenv(key)
			if !ok {
				missing = append(missing, "$"+key)
			}
			return val
		})
		if len(missing) > 0 {
			return nil, fmt.Errorf("mcp: header %s names %s, which is not set in the environment", name, strings.Join(missing, ", "))
		}
		if strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("mcp: header %s has a line break in its value (after expansion)", name)
		}
		out[name] = v
	}
	return out, nil
}

// interpreters run a script named by a later argument; a server is named after the
// script, not after them.
var interpreters = map[string]bool{
	"node": true, "nodejs": true, "npx": true, "bun": true, "bunx": true, "deno": true,
	"python": true, "python3": true, "uv": true, "uvx": true, "pipx": true,
	"java": true, "ruby": true, "sh": true, "bash": true, "docker": true, "go": true,
}

// generic file and directory names that say nothing about which server it is.
var generic = map[string]bool{
	"index": true, "main": true, "server": true, "cli": true, "app": true,
	"dist": true, "build": true, "src": true, "bin": true, "lib": true, "out": true,
}

// serverName names a stdio server after its command, for its log file and messages:
// `node ~/x/server-everything/dist/index.js stdio` is "server-everything".
func serverName(args []string) string {
	pick := args[0]
	if interpreters[strings.TrimSuffix(filepath.Base(args[0]), ".exe")] {
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") && a != "run" {
				pick = a
				break
			}
		}
	}
	name := strings.TrimSuffix(filepath.Base(pick), filepath.Ext(pick))
	for dir := filepath.Dir(pick); generic[strings.ToLower(name)] && dir != "." && dir != "/"; dir = filepath.Dir(dir) {
		name = filepath.Base(dir)
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 { // npm scope: @scope/name
		name = name[i+1:]
	}
	return sanitize(name)
}

// sanitize keeps letters, digits, '-', '_' and '.', so a name is safe as a file name.
func sanitize(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
	s = strings.Trim(s, "._")
	if s == "" {
		return "server"
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// headerSecrets are the values of the environment variables the headers name ("Bearer
// $MY_TOKEN"): secrets coplay holds, scrubbed from everything it sends and shows.
func headerSecrets(h map[string]string, getenv func(string) (string, bool)) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(h)) {
		os.Expand(h[name], func(key string) string {
			if v, ok := getenv(key); ok && v != "" {
				out = append(out, v)
			}
			return ""
		})
	}
	return out
}
