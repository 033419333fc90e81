package config

import (
	"strings"

	"github.com/BurntSushi/toml"
)

// keyLines maps each key of a TOML document (toml.Key.String form) to the line it is
// defined on. The TOML library knows key positions but does not export them, so this
// reads the document line by line, handing each table header and each "key =" part
// to the library on its own: quoting and dotted keys are parsed by the real parser.
// Keys inside inline tables are not found; messages then use the enclosing key's line.
func keyLines(doc string) map[string]int {
	out := map[string]int{}
	var table toml.Key
	inString := "" // the delimiter of a multi-line string being skipped
	for i, line := range strings.Split(doc, "\n") {
		n := i + 1
		t := strings.TrimSpace(line)
		if inString != "" {
			if strings.Count(t, inString)%2 == 1 {
				inString = ""
			}
			continue
		}
		if t == "" || t[0] == '#' {
			continue
		}
		if t[0] == '[' {
			if k := lastKey(t); k != nil {
				table = k
				set(out, k, n)
			}
			continue
		}
		eq := strings.IndexByte(t, '=')
		if eq < 0 {
			continue
		}
		k := lastKey(t[:eq] + "= 0")
		if k == nil {
			continue
		}
		full := append(append(toml.Key{}, table...), k...)
		set(out, full, n)
		value := strings.TrimSpace(t[eq+1:])
		for _, d := range []string{`"""`, `'''`} {
			if strings.HasPrefix(value, d) && strings.Count(value, d)%2 == 1 {
				inString = d
			}
		}
	}
	return out
}

// lastKey parses one line of TOML alone and returns its deepest key, or nil.
func lastKey(line string) toml.Key {
	var m map[string]any
	md, err := toml.Decode(line, &m)
	if err != nil {
		return nil
	}
	keys := md.Keys()
	if len(keys) == 0 {
		return nil
	}
	return keys[len(keys)-1]
}

// set records the line of k and of its dotted parents not seen yet.
func set(out map[string]int, k toml.Key, n int) {
	for j := len(k); j > 0; j-- {
		s := k[:j].String()
		if _, ok := out[s]; ok && j < len(k) {
			break
		}
		out[s] = n
	}
}
