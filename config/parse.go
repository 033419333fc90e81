package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Error is one problem in a configuration file, at a line and key when known:
// "config.toml:12: key profiles."looker/fast".temprature: unknown key (did you mean temperature?)".
type Error struct {
	File string
	Line int    // 0 when unknown
	Key  string // the full key, TOML-quoted; "" for a syntax error with no key
	Msg  string

	order int // the key's place in the file, to sort problems on one line
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString("key " + e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Parse reads and checks a configuration file's contents; name is used in messages.
// It returns every problem at once (an Errors), each with its line and key: syntax,
// unknown keys (with the closest known one), wrong types, bad values, secrets.
//
// toml decodes the file into the tables of schema.go and says, in its MetaData, which
// keys it did not decode: those are the unknown keys.
func Parse(name string, data []byte) (*File, error) {
	var doc fileDoc
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, Errors{{File: name, Line: pe.Position.Line, Msg: "not valid TOML: " + pe.Message}}
		}
		return nil, Errors{{File: name, Msg: "not valid TOML: " + err.Error()}}
	}
	c := newChecker(name, string(data), &md)
	c.bind(nil, &doc, nil)
	f := &File{Path: name, Prices: map[string]Price{}, Profiles: map[string]Profile{}}
	var d defaultsDoc
	if c.decode(toml.Key{"defaults"}, doc.Defaults, &d) {
		f.Defaults = c.defaults(&d)
	}
	c.prices(doc.Prices, f)
	c.profiles(doc.Profiles, f)
	var l leagueDoc
	if c.decode(toml.Key{"league"}, doc.League, &l) {
		f.League = c.league(&l)
	}
	c.unknownKeys()
	if len(c.errs) > 0 {
		slices.SortStableFunc(c.errs, func(a, b *Error) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.order, b.order))
		})
		return nil, c.errs
	}
	f.addBuiltins()
	return f, nil
}

// checker decodes the file table by table, checks what it decodes, and collects
// problems.
type checker struct {
	name  string
	md    *toml.MetaData
	lines map[string]int // key → the line it is defined on
	order map[string]int // key → its place in the file
	last  map[string]int // table → the place of its last key
	// children are each table's keys (their last part), in file order.
	children map[string][]string
	// tables are the key names of each table decoded into a struct (bind), by the
	// table's key: the tables whose undecoded keys are unknown.
	tables map[string][]string
	// folded are keys toml matched to a field only by ignoring case; shadowed are the
	// fields they reached, which take the exact key's value alone (bind).
	folded   []toml.Key
	shadowed map[string]bool
	errs     Errors
}

func newChecker(name, doc string, md *toml.MetaData) *checker {
	c := &checker{name: name, md: md, lines: keyLines(doc), order: map[string]int{}, last: map[string]int{},
		children: map[string][]string{}, tables: map[string][]string{}, shadowed: map[string]bool{}}
	// md.Keys() leaves out the tables a key only implies (profiles in
	// [profiles."a/b"], sub in sub.deep = 1): each key's parents are counted too.
	for _, k := range md.Keys() {
		for j := 1; j <= len(k); j++ {
			if s := k[:j].String(); !seen(c.order, s) {
				c.order[s] = len(c.order)
				parent := k[:j-1].String()
				c.children[parent] = append(c.children[parent], k[j-1])
			}
		}
		for j := range len(k) {
			c.last[k[:j].String()] = c.order[k.String()]
		}
	}
	return c
}

func seen(m map[string]int, k string) bool { _, ok := m[k]; return ok }

// errf records a problem at key.
func (c *checker) errf(key toml.Key, format string, args ...any) {
	c.errs = append(c.errs, &Error{File: c.name, Line: c.lineOf(key), Key: key.String(), Msg: fmt.Sprintf(format, args...), order: 2 * c.orderOf(key)})
}

// errAfter records a problem found across the keys of v's table, at v's key: on a line
// it shares with others (an inline table), it comes after those of the table's keys.
func (c *checker) errAfter(v value, format string, args ...any) {
	c.errf(v.key, format, args...)
	c.errs[len(c.errs)-1].order = 2*c.last[v.key[:len(v.key)-1].String()] + 1
}

// lineOf is the line of key, or of the nearest enclosing table that has one.
func (c *checker) lineOf(key toml.Key) int {
	for k := key; len(k) > 0; k = k[:len(k)-1] {
		if n, ok := c.lines[k.String()]; ok {
			return n
		}
	}
	return 0
}

// orderOf is key's place in the file, or its nearest enclosing table's.
func (c *checker) orderOf(key toml.Key) int {
	for k := key; len(k) > 0; k = k[:len(k)-1] {
		if n, ok := c.order[k.String()]; ok {
			return n
		}
	}
	return -1
}

// table returns the table at key, undecoded in p, as written; nil when the file has
// none there (or only a key that differs in case, reported as unknown), or has
// something else (reported).
func (c *checker) table(key toml.Key, p toml.Primitive) map[string]any {
	if !c.md.IsDefined(key...) || c.shadowed[key.String()] {
		return nil
	}
	var raw any
	if err := c.md.PrimitiveDecode(p, &raw); err != nil { // into any: no key counts as decoded yet
		c.errf(key, "%v", err)
		return nil
	}
	t, ok := raw.(map[string]any)
	if !ok {
		c.wrongType(value{raw: raw, set: true, key: key}, "a table")
		return nil
	}
	return t
}

// decode decodes the table at key, undecoded in p, into doc (a pointer to one of
// schema.go's tables) and binds it; false when there is no table there (see table).
func (c *checker) decode(key toml.Key, p toml.Primitive, doc any) bool {
	t := c.table(key, p)
	if t == nil {
		return false
	}
	// Every key of doc is a value, which takes anything: toml cannot fail here.
	if err := c.md.PrimitiveDecode(p, doc); err != nil {
		c.errf(key, "%v", err)
		return false
	}
	c.bind(key, doc, t)
	return true
}

// entries decodes the table at key, undecoded in p, whose keys are names the file
// chooses (models, profiles), and returns its entries with their names in file order.
func (c *checker) entries(key toml.Key, p toml.Primitive) (names []string, entries map[string]toml.Primitive) {
	if c.table(key, p) == nil {
		return nil, nil
	}
	if err := c.md.PrimitiveDecode(p, &entries); err != nil {
		c.errf(key, "%v", err)
		return nil, nil
	}
	return c.children[key.String()], entries
}

// prices decodes and checks [prices."MODEL"] tables.
func (c *checker) prices(p toml.Primitive, f *File) {
	key := toml.Key{"prices"}
	names, entries := c.entries(key, p)
	for _, model := range names {
		var d priceDoc
		if mk := child(key, model); c.decode(mk, entries[model], &d) {
			f.Prices[model] = c.price(mk, &d)
		}
	}
}

// profiles decodes and checks [profiles."NAME/EXPERIMENT"] tables, and that each NAME
// marks at most one default.
func (c *checker) profiles(p toml.Primitive, f *File) {
	key := toml.Key{"profiles"}
	names, entries := c.entries(key, p)
	defaults := map[string]string{} // NAME → the experiment marked default
	for _, name := range names {
		pk := child(key, name)
		raw := c.table(pk, entries[name])
		if raw == nil || !c.checkProfileName(pk, name, raw) {
			continue
		}
		var d profileDoc
		if !c.decode(pk, entries[name], &d) {
			continue
		}
		pr := c.profile(&d)
		pr.Name = name
		if pr.Default {
			if other, dup := defaults[pr.Base()]; dup {
				c.errAfter(d.Default, "%s/%s is already the default of %s: mark only one", pr.Base(), other, pr.Base())
			}
			defaults[pr.Base()] = pr.Experiment()
		}
		f.Profiles[name] = pr
	}
}
