package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// decodeArgs parses validated arguments into values keeping numbers exact.
func decodeArgs(args json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %w", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// check returns the problems schema validation cannot see: a path parameter that
// would change the URL's shape, and a partly given optional body missing its
// required fields.
func (op *operation) check(args map[string]any) []game.Problem {
	var probs []game.Problem
	for _, f := range op.Fields {
		v, ok := args[f.Name]
		if !ok || f.In != inPath {
			continue
		}
		s, err := scalarString(v, ",")
		if err != nil {
			probs = append(probs, game.Problem{Path: "arguments." + f.Name, Expected: "a value for the URL path", Got: err.Error()})
			continue
		}
		if bad := badSegment(s); bad != "" {
			probs = append(probs, game.Problem{Path: "arguments." + f.Name,
				Expected: "one URL path segment (not empty, not . or .., without / ? # %)", Got: bad})
		}
	}
	if !op.BodyRequired && len(op.BodyNeeds) > 0 {
		given := slices.ContainsFunc(op.Fields, func(f field) bool {
			_, ok := args[f.Name]
			return ok && f.In == inBody
		})
		for _, name := range op.BodyNeeds {
			if _, ok := args[name]; given && !ok {
				probs = append(probs, game.Problem{Path: "arguments." + name,
					Expected: "required once any body field is given", Got: "nothing (missing)"})
			}
		}
	}
	return probs
}

// badSegment says what is wrong with a path parameter value, or "" if nothing.
func badSegment(s string) string {
	switch {
	case s == "":
		return "an empty string"
	case s == "." || s == "..":
		return fmt.Sprintf("%q", s)
	case strings.ContainsAny(s, "/?#%"):
		return fmt.Sprintf("%q (contains one of / ? # %%)", s)
	}
	return ""
}

// newRequest builds the HTTP request of a call from its flattened arguments.
func (op *operation) newRequest(ctx context.Context, baseURL string, args map[string]any) (*http.Request, error) {
	path := op.Path
	query := url.Values{}
	header := http.Header{}
	var cookies []*http.Cookie
	body := map[string]any{}
	var whole any
	hasBody := false
	for _, f := range op.Fields {
		v, ok := args[f.Name]
		if !ok {
			continue
		}
		switch f.In {
		case inPath:
			s, err := scalarString(v, ",")
			if err != nil {
				return nil, fmt.Errorf("path parameter %s: %w", f.Name, err)
			}
			if bad := badSegment(s); bad != "" {
				return nil, fmt.Errorf("path parameter %s: refused %s", f.Name, bad)
			}
			path = strings.ReplaceAll(path, "{"+f.Orig+"}", url.PathEscape(s))
		case inQuery:
			if err := addQuery(query, f, v); err != nil {
				return nil, err
			}
		case inHeader:
			s, err := scalarString(v, ",")
			if err != nil {
				return nil, fmt.Errorf("header %s: %w", f.Name, err)
			}
			header.Set(f.Orig, s)
		case inCookie:
			s, err := scalarString(v, ",")
			if err != nil {
				return nil, fmt.Errorf("cookie %s: %w", f.Name, err)
			}
			cookies = append(cookies, &http.Cookie{Name: f.Orig, Value: s})
		case inBody:
			hasBody = true
			if f.Whole {
				whole = v
			} else {
				body[f.Orig] = v
			}
		}
	}
	if op.BodyRequired {
		hasBody = true
	}
	var rd io.Reader
	if hasBody && op.BodyType != "" {
		var payload any = body
		if whole != nil {
			payload = whole
		}
		data, err := encodeBody(op.BodyType, payload)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(data)
		header.Set("Content-Type", op.ContentType)
	}
	u := strings.TrimRight(baseURL, "/") + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, op.Method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	return req, nil
}

// addQuery adds a query parameter: arrays repeat the name (form, explode) or join
// with commas; objects give one pair per property (deepObject style names them).
func addQuery(q url.Values, f field, v any) error {
	switch x := v.(type) {
	case []any:
		if !f.Explode {
			s, err := scalarString(x, ",")
			if err != nil {
				return fmt.Errorf("query parameter %s: %w", f.Name, err)
			}
			q.Add(f.Orig, s)
			return nil
		}
		for _, item := range x {
			s, err := scalarString(item, ",")
			if err != nil {
				return fmt.Errorf("query parameter %s: %w", f.Name, err)
			}
			q.Add(f.Orig, s)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			s, err := scalarString(x[k], ",")
			if err != nil {
				return fmt.Errorf("query parameter %s.%s: %w", f.Name, k, err)
			}
			q.Add(f.Orig+"["+k+"]", s)
		}
	default:
		s, err := scalarString(v, ",")
		if err != nil {
			return fmt.Errorf("query parameter %s: %w", f.Name, err)
		}
		q.Add(f.Orig, s)
	}
	return nil
}

// scalarString writes a JSON value as a URL or header value; arrays of scalars are
// joined with sep.
func scalarString(v any, sep string) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case nil:
		return "", nil
	case []any:
		parts := make([]string, len(x))
		for i, item := range x {
			if _, nested := item.([]any); nested {
				return "", fmt.Errorf("a nested array cannot be written in a URL")
			}
			s, err := scalarString(item, sep)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return strings.Join(parts, sep), nil
	}
	return "", fmt.Errorf("an object cannot be written in a URL or header")
}

// encodeBody encodes a request body as JSON or as a form.
func encodeBody(kind string, v any) ([]byte, error) {
	if kind == "json" {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, fmt.Errorf("encode body: %w", err)
		}
		return bytes.TrimRight(b.Bytes(), "\n"), nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a form body must be an object of fields")
	}
	form := url.Values{}
	for k, val := range obj {
		switch x := val.(type) {
		case []any:
			for _, item := range x {
				s, err := formValue(item)
				if err != nil {
					return nil, fmt.Errorf("form field %s: %w", k, err)
				}
				form.Add(k, s)
			}
		default:
			s, err := formValue(x)
			if err != nil {
				return nil, fmt.Errorf("form field %s: %w", k, err)
			}
			form.Add(k, s)
		}
	}
	return []byte(form.Encode()), nil
}

// formValue writes a scalar as a form value, and anything else as JSON text.
func formValue(v any) (string, error) {
	if s, err := scalarString(v, ","); err == nil {
		return s, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}
