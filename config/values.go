package config

import (
	"fmt"
	"math"
	"strconv"
)

// The checks of a value's type. Each takes a value as written and returns it as the
// File's type; an unset value is the zero value and no problem, a wrong one is
// reported at its key and read as the zero value too.

// boolean reads true or false.
func (c *checker) boolean(v value) (bool, bool) {
	if !v.set {
		return false, false
	}
	b, ok := v.raw.(bool)
	if !ok {
		c.wrongType(v, "true or false")
	}
	return b, ok
}

// str reads a string that is not a secret.
func (c *checker) str(v value) (string, bool) {
	if !v.set {
		return "", false
	}
	s, ok := v.raw.(string)
	if !ok {
		c.wrongType(v, "a string")
		return "", false
	}
	if LooksLikeSecret(s) {
		c.errf(v.key, "this looks like an API key: secrets never go in the config file; put it in an environment variable and name the variable with api_key_env")
		return "", false
	}
	return s, true
}

// strs reads a list of strings, none a secret; the items that are not are left out.
func (c *checker) strs(v value) []string {
	if !v.set {
		return nil
	}
	list, ok := v.raw.([]any)
	if !ok {
		c.wrongType(v, "a list of strings")
		return nil
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			c.errf(v.key, "item %d: want a string, got %s", i+1, typeName(e))
			continue
		}
		if LooksLikeSecret(s) {
			c.errf(v.key, "item %d looks like an API key: secrets never go in the config file", i+1)
			continue
		}
		out = append(out, s)
	}
	return out
}

// num reads a finite number, integer or float.
func (c *checker) num(v value) (float64, bool) {
	if !v.set {
		return 0, false
	}
	switch n := v.raw.(type) {
	case int64:
		return float64(n), true
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			c.errf(v.key, "want a finite number, not %v", n)
			return 0, false
		}
		return n, true
	}
	c.wrongType(v, "a number")
	return 0, false
}

// positive reads a whole number from 1 to a billion.
func (c *checker) positive(v value) int {
	if !v.set {
		return 0
	}
	n, ok := v.raw.(int64)
	if !ok {
		c.wrongType(v, "a whole number")
		return 0
	}
	if n <= 0 || n > 1_000_000_000 {
		c.errf(v.key, "want a whole number from 1 to 1000000000, not %d", n)
		return 0
	}
	return int(n)
}

// wrongType reports v as not what its key wants.
func (c *checker) wrongType(v value, want string) {
	hint := ""
	if s, ok := v.raw.(string); ok {
		// "512" for 512, "true" for true: the value is right, the quotes are not.
		_, numErr := strconv.ParseFloat(s, 64)
		_, boolErr := strconv.ParseBool(s)
		if (want == "true or false" && boolErr == nil) || (want != "true or false" && want != "a string" && numErr == nil) {
			hint = fmt.Sprintf(" (write %s without quotes)", s)
		}
	}
	c.errf(v.key, "want %s, got %s%s", want, typeName(v.raw), hint)
}

// typeName says what a TOML value is, with the value when it is short.
func typeName(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case int64:
		return fmt.Sprintf("the integer %d", v)
	case float64:
		return fmt.Sprintf("the number %g", v)
	case bool:
		return fmt.Sprintf("%t", v)
	case []any, []map[string]any:
		return "a list"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}
