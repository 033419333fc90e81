package ui

import (
	"reflect"
	"strings"
	"unicode/utf8"
)

// What the screen draws comes from elsewhere: seat names, a game server's messages and
// questions, tool results, the model's words, a key's comment over SSH. None of it may
// drive the terminal: a string that reaches the screen is stripped of the characters
// that move the cursor, change modes or reorder the line (sanitize), once, where it
// enters the screen: each event (clean), the Info the screen is opened with, a replay's
// journal.

// sanitize strips from s what would act on the terminal rather than show: control
// characters (C0 but tab and line feed, DEL, C1) and the bidirectional overrides and
// isolates that reorder what follows them. Bytes that are not UTF-8 become U+FFFD, so
// that no 8-bit control (0x9b is CSI to some terminals) slips through.
func sanitize(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unsafeRune(r) {
			return -1
		}
		return r
	}, s)
}

// unsafeRune says whether r acts on the terminal when written to it.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// cleanInfo is info with what the screen draws of it sanitized: the names of the game,
// the brain, the session and the seats, the banner, the rules.
func cleanInfo(info Info) Info {
	info.Game, info.Brain, info.Session, info.Banner = sanitize(info.Game), sanitize(info.Brain), sanitize(info.Session), sanitize(info.Banner)
	info.Seats, info.Rules = clean(info.Seats), clean(info.Rules)
	return info
}

// clean returns v with every string in it sanitized, and every byte string (raw JSON)
// too. What needs no change is returned as it is; what does is copied, never changed in
// place, since an event's parts are shared with the journal and the other screens.
func clean[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	if c, changed := cleanValue(rv); changed {
		return c.Interface().(T)
	}
	return v
}

// cleanValue is clean for a reflect.Value: the value sanitized, and whether it changed.
func cleanValue(v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if c := sanitize(s); c != s {
			out := reflect.New(v.Type()).Elem()
			out.SetString(c)
			return out, true
		}
	case reflect.Pointer:
		if v.IsNil() {
			break
		}
		if c, changed := cleanValue(v.Elem()); changed {
			p := reflect.New(v.Type().Elem())
			p.Elem().Set(c)
			return p, true
		}
	case reflect.Interface:
		if v.IsNil() {
			break
		}
		if c, changed := cleanValue(v.Elem()); changed {
			out := reflect.New(v.Type()).Elem()
			out.Set(c)
			return out, true
		}
	case reflect.Struct:
		var out reflect.Value
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue // copied with the struct, as it is
			}
			c, changed := cleanValue(v.Field(i))
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(v.Type()).Elem()
				out.Set(v)
			}
			out.Field(i).Set(c)
		}
		if out.IsValid() {
			return out, true
		}
	case reflect.Slice:
		if v.IsNil() {
			break
		}
		if v.Type().Elem().Kind() == reflect.Uint8 { // raw JSON, bytes
			b := v.Bytes()
			if c := sanitize(string(b)); c != string(b) {
				out := reflect.New(v.Type()).Elem()
				out.SetBytes([]byte(c))
				return out, true
			}
			break
		}
		return cleanEach(v, func() reflect.Value {
			out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(out, v)
			return out
		})
	case reflect.Array:
		return cleanEach(v, func() reflect.Value {
			out := reflect.New(v.Type()).Elem()
			out.Set(v)
			return out
		})
	case reflect.Map:
		if v.IsNil() {
			break
		}
		changed := false
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k, kc := cleanValue(it.Key())
			e, ec := cleanValue(it.Value())
			changed = changed || kc || ec
			out.SetMapIndex(k, e)
		}
		if changed {
			return out, true
		}
	}
	return v, false
}

// cleanEach cleans the elements of a slice or an array: a copy of it (fresh) at the
// first element that changes.
func cleanEach(v reflect.Value, fresh func() reflect.Value) (reflect.Value, bool) {
	var out reflect.Value
	for i := range v.Len() {
		c, changed := cleanValue(v.Index(i))
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = fresh()
		}
		out.Index(i).Set(c)
	}
	if out.IsValid() {
		return out, true
	}
	return v, false
}
