package game

import (
	"fmt"
	"strings"
	"unicode"
)

// PathSegment checks a value that a game puts into a URL path as one segment (a ship
// symbol in /my/ships/{shipSymbol}/orbit). It returns a Problem at path when the value
// could escape or break its segment: empty, "." or "..", or containing '/', '?', '#',
// '%' or a control character. Games call it from their Tool.Check; nil means fine.
func PathSegment(path, value string) *Problem {
	p := &Problem{Path: path, Expected: "a symbol usable as one URL path segment", Got: describe(value)}
	switch {
	case value == "":
		p.Expected = "a non-empty symbol"
		return p
	case value == "." || value == "..":
		p.Hint = `"." and ".." are not symbols`
		return p
	}
	if i := strings.IndexAny(value, "/?#%"); i >= 0 {
		p.Hint = fmt.Sprintf("%q is not allowed in a symbol", value[i])
		return p
	}
	for _, c := range value {
		if unicode.IsControl(c) {
			p.Hint = fmt.Sprintf("control character %U is not allowed in a symbol", c)
			return p
		}
	}
	return nil
}
