package config

import (
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// The file's tables as written, decoded by toml. A struct's tags are the one list of
// its table's keys: toml decodes by them, and the unknown-key messages offer them
// (bind). Every key decodes into a value, whatever its type, so that a wrong type is
// one problem among the others, in the checker's words, rather than the end of
// decoding; the checks (check.go, values.go) then turn each value into a File's field.

// fileDoc is the whole file. Each table stays undecoded (a toml.Primitive) until it is
// known to be a table: toml would stop at the first that is not.
type fileDoc struct {
	Defaults toml.Primitive `toml:"defaults"`
	Prices   toml.Primitive `toml:"prices"`   // model → priceDoc
	Profiles toml.Primitive `toml:"profiles"` // NAME/EXPERIMENT → profileDoc
	League   toml.Primitive `toml:"league"`
}

// defaultsDoc is [defaults]. The embedded tables are the keys profiles share; the
// fields are in the order the unknown-key messages list them.
type defaultsDoc struct {
	Game value `toml:"game"`
	playerDoc
	Approve        value `toml:"approve"`
	Notify         value `toml:"notify"`
	Speed          value `toml:"speed"`
	NoRateLimit    value `toml:"no_rate_limit"`
	AllowPlainHTTP value `toml:"allow_plain_http"`
	Profile        value `toml:"profile"`
	Rules          value `toml:"rules"`
	spendingDoc
}

// profileDoc is [profiles."NAME/EXPERIMENT"].
type profileDoc struct {
	Default value `toml:"default"`
	playerDoc
	Temperature   value `toml:"temperature"`
	MaxTokens     value `toml:"max_tokens"`
	MaxIterations value `toml:"max_iterations"`
	HistorySteps  value `toml:"history_steps"`
	Prompt        value `toml:"prompt"`
	Tools         value `toml:"tools"`
	HideTools     value `toml:"hide_tools"`
	Rules         value `toml:"rules"`
	Approve       value `toml:"approve"`
	Temperament   value `toml:"temperament"`
	spendingDoc
}

// playerDoc is what plays and where: keys of [defaults] and of every profile.
type playerDoc struct {
	Brain     value `toml:"brain"`
	Model     value `toml:"model"`
	Preset    value `toml:"preset"`
	BaseURL   value `toml:"base_url"`
	APIKeyEnv value `toml:"api_key_env"`
}

// spendingDoc is Spending as written: keys of [defaults] and of every profile.
type spendingDoc struct {
	MaxRunTokens value `toml:"max_run_tokens"`
	MaxRunCost   value `toml:"max_run_cost"`
	ToolBudget   value `toml:"tool_budget"`
	Pin          value `toml:"pin"`
	CallTimeout  value `toml:"call_timeout"`
}

// priceDoc is [prices."MODEL"].
type priceDoc struct {
	Prompt       value `toml:"prompt"`
	Completion   value `toml:"completion"`
	CachedPrompt value `toml:"cached_prompt"`
}

// leagueDoc is [league].
type leagueDoc struct {
	Rules   value `toml:"rules"`
	Approve value `toml:"approve"`
}

// value is one key's value as the file wrote it.
type value struct {
	raw any
	set bool
	key toml.Key // the full key, for messages (set by bind, set or not)
}

// UnmarshalTOML keeps the value as written. toml then counts the key, and everything
// under it, as decoded: a table given where a string belongs is a wrong type, not a
// nest of unknown keys.
func (v *value) UnmarshalTOML(data any) error {
	v.raw, v.set = data, true
	return nil
}

// name is the value's own key, the last part of its full key.
func (v value) name() string { return v.key[len(v.key)-1] }

// bind readies doc, the table decoded at key (raw as written): each value learns its
// full key, and the table's key names are kept for unknownKeys. toml matches a key to a
// field ignoring case when no field has its exact name; coplay's keys are exact, so a
// key that differs from a field's only in case is unknown (kept in c.folded), and the
// field it reached takes the exact key's value from raw, or none: which of "model" and
// "Model" toml kept is chance. (The file's top-level tables have no raw: one reached
// that way is not read at all; see table.)
func (c *checker) bind(key toml.Key, doc any, raw map[string]any) {
	names := fieldNames(reflect.TypeOf(doc).Elem())
	c.tables[key.String()] = names
	for _, k := range c.children[key.String()] {
		for _, n := range names {
			if k != n && strings.EqualFold(k, n) {
				c.folded = append(c.folded, child(key, k))
				c.shadowed[child(key, n).String()] = true
			}
		}
	}
	bindValues(reflect.ValueOf(doc).Elem(), func(name string, v *value) {
		*v = value{raw: v.raw, set: v.set, key: child(key, name)}
		if c.shadowed[v.key.String()] {
			v.raw, v.set = raw[name]
		}
	})
}

// fieldNames are the toml names of t's fields, embedded structs' in their place.
func fieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			names = append(names, fieldNames(f.Type)...)
			continue
		}
		names = append(names, tomlName(f))
	}
	return names
}

// bindValues calls fn with every value field of the struct v and its toml name.
func bindValues(v reflect.Value, fn func(name string, v *value)) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Anonymous { // before Interface, which an unexported embedded struct refuses
			bindValues(v.Field(i), fn)
		} else if p, ok := v.Field(i).Addr().Interface().(*value); ok {
			fn(tomlName(f), p)
		}
	}
}

func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}

func child(parent toml.Key, k string) toml.Key {
	return append(append(toml.Key{}, parent...), k)
}
