package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/textproto"
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
	hasBody := op.BodyRequired
	for _, f := range op.Fields {
		v, ok := args[f.Name]
		if !ok {
			continue
		}
		if f.JSON && f.In != inBody {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("%s parameter %s: %w", f.In, f.Name, err)
			}
			v = string(b)
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
		}
	}
	var rd io.Reader
	if hasBody && op.BodyType != "" {
		data, contentType, err := op.encodeBody(args)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(data)
		header.Set("Content-Type", contentType)
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

// encodeBody encodes the request body from the body arguments given, as the
// operation's media type says, and returns it with the Content-Type to send: JSON; a
// url-encoded form (fields in the spec's order, arrays repeating the field's name
// unless the spec's encoding says explode: false); a multipart form (one part per
// value, objects as JSON parts, the boundary in the Content-Type); or text, sent as
// it is.
func (op *operation) encodeBody(args map[string]any) (data []byte, contentType string, err error) {
	var whole any
	hasWhole := false
	fields := map[string]any{}
	var values []formValue // body fields given, in the spec's order
	for _, f := range op.Fields {
		v, ok := args[f.Name]
		if !ok || f.In != inBody {
			continue
		}
		if f.Whole {
			whole, hasWhole = v, true
			continue
		}
		fields[f.Orig] = v
		values = append(values, formValue{f, v})
	}
	switch op.BodyType {
	case bodyJSON:
		var payload any = fields
		if hasWhole {
			payload = whole
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(payload); err != nil {
			return nil, "", fmt.Errorf("encode body: %w", err)
		}
		return bytes.TrimRight(b.Bytes(), "\n"), op.ContentType, nil
	case bodyText:
		if !hasWhole {
			return nil, op.ContentType, nil // a required body not given: sent empty
		}
		text, ok := whole.(string)
		if !ok {
			return nil, "", fmt.Errorf("the %s body must be a string, not %T", op.ContentType, whole)
		}
		return []byte(text), op.ContentType, nil
	case bodyForm, bodyMultipart:
		if hasWhole {
			// A form given whole: an object of fields, written in the order of their names.
			obj, ok := whole.(map[string]any)
			if !ok {
				return nil, "", fmt.Errorf("a form body must be an object of fields, not %T", whole)
			}
			values = nil
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				values = append(values, formValue{field{Orig: k, Explode: true}, obj[k]})
			}
		}
		pairs, err := formPairs(values, op.BodyType == bodyMultipart)
		if err != nil {
			return nil, "", err
		}
		if op.BodyType == bodyForm {
			parts := make([]string, len(pairs))
			for i, p := range pairs {
				parts[i] = url.QueryEscape(p.name) + "=" + url.QueryEscape(p.value)
			}
			return []byte(strings.Join(parts, "&")), op.ContentType, nil
		}
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		for _, p := range pairs {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"`, quoteEscaper.Replace(p.name)))
			if p.partType != "" {
				h.Set("Content-Type", p.partType)
			}
			pw, err := w.CreatePart(h)
			if err != nil {
				return nil, "", fmt.Errorf("form field %s: %w", p.name, err)
			}
			if _, err := io.WriteString(pw, p.value); err != nil {
				return nil, "", fmt.Errorf("form field %s: %w", p.name, err)
			}
		}
		if err := w.Close(); err != nil {
			return nil, "", fmt.Errorf("encode multipart body: %w", err)
		}
		return b.Bytes(), w.FormDataContentType(), nil
	}
	return nil, "", fmt.Errorf("cannot encode a %q body", op.BodyType)
}

// quoteEscaper escapes a multipart field name as mime/multipart does.
var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

// formPair is one name and value of a form, with a multipart part's Content-Type.
type formPair struct {
	name, value, partType string
}

// formValue is one field of a form and its value.
type formValue struct {
	f field
	v any
}

// formPairs lists a form's values in order. Arrays give one value per item (joined
// with commas when the field does not explode); objects are written as JSON text (a
// JSON part in a multipart form); a scalar as text.
func formPairs(values []formValue, multi bool) ([]formPair, error) {
	var pairs []formPair
	for _, fv := range values {
		f := fv.f
		items, isArray := fv.v.([]any)
		if !isArray || (!f.Explode && !multi) {
			items = []any{fv.v}
		}
		for _, item := range items {
			p := formPair{name: f.Orig, partType: f.PartType}
			switch item.(type) {
			case map[string]any, []any:
				if s, err := scalarString(item, ","); err == nil {
					p.value = s // an array of scalars, joined
					break
				}
				b, err := json.Marshal(item)
				if err != nil {
					return nil, fmt.Errorf("form field %s: %w", f.Orig, err)
				}
				p.value = string(b)
				if multi && p.partType == "" {
					p.partType = "application/json"
				}
			default:
				s, err := scalarString(item, ",")
				if err != nil {
					return nil, fmt.Errorf("form field %s: %w", f.Orig, err)
				}
				p.value = s
			}
			pairs = append(pairs, p)
		}
	}
	return pairs, nil
}
