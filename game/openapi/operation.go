package openapi

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// descLimit trims a tool's description (summary and description of the operation).
const descLimit = 300

// Where a flattened argument goes in the request.
const (
	inPath   = "path"
	inQuery  = "query"
	inHeader = "header"
	inCookie = "cookie"
	inBody   = "body"
)

// wholeBody is the argument name of a request body that is not an object of fields
// (an array, a string, a map): the model gives it whole.
const wholeBody = "body"

// field is one argument of the flattened object and where it goes.
type field struct {
	Name     string             // the argument's name in the flattened object
	Orig     string             // the spec's name (the parameter or the body property)
	In       string             // inPath, inQuery, inHeader, inCookie or inBody
	Whole    bool               // the argument is the whole request body
	Explode  bool               // arrays in a query: repeat the name (form style)
	Schema   *jsonschema.Schema // its schema, as the validator checks it
	Required bool
}

// operation is one HTTP operation of the spec, ready to be called with flattened args.
type operation struct {
	Name        string // the tool name (or the operation's name in a grouped tool)
	OperationID string // the spec's operationId, "" if none
	Method      string // upper case
	Path        string // the path template, e.g. /my/ships/{shipSymbol}/orbit
	Summary     string
	Description string
	Tag         string
	Kind        game.Kind
	Fields      []field
	BodyType    string // "json" or "form", "" when there is no body
	ContentType string // the media type sent
	// BodyRequired: the body must be sent. When false and the body has required
	// fields, they are required only once any body field is given (checked by check).
	BodyRequired bool
	BodyNeeds    []string // the body's required fields (argument names)
	Auth         []authScheme
	Schema       *jsonschema.Schema // the flattened arguments: a closed object
}

// field returns the named argument.
func (op *operation) field(name string) (field, bool) {
	i := slices.IndexFunc(op.Fields, func(f field) bool { return f.Name == name })
	if i < 0 {
		return field{}, false
	}
	return op.Fields[i], true
}

// methods are the HTTP methods of a path item, in the order tools are listed.
var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

func pathOperation(item *v3.PathItem, method string) *v3.Operation {
	switch method {
	case "GET":
		return item.Get
	case "HEAD":
		return item.Head
	case "POST":
		return item.Post
	case "PUT":
		return item.Put
	case "PATCH":
		return item.Patch
	case "DELETE":
		return item.Delete
	case "OPTIONS":
		return item.Options
	case "TRACE":
		return item.Trace
	}
	return nil
}

// buildOperations turns every operation of doc into an operation, and lists those it
// cannot turn into a tool with the reason.
func buildOperations(doc *v3.Document, sec *security) (ops []*operation, skipped []string) {
	if doc.Paths == nil || doc.Paths.PathItems == nil {
		return nil, nil
	}
	for path, item := range doc.Paths.PathItems.FromOldest() {
		for _, m := range methods {
			o := pathOperation(item, m)
			if o == nil {
				continue
			}
			op, err := buildOperation(path, m, item, o, sec)
			if err != nil {
				skipped = append(skipped, fmt.Sprintf("%s %s (%s): %v", m, path, refOr(o.OperationId, "no operationId"), err))
				continue
			}
			ops = append(ops, op)
		}
	}
	nameOperations(ops)
	return ops, skipped
}

func buildOperation(path, method string, item *v3.PathItem, o *v3.Operation, sec *security) (*operation, error) {
	op := &operation{
		OperationID: o.OperationId,
		Method:      method,
		Path:        path,
		Summary:     strings.TrimSpace(o.Summary),
		Description: strings.TrimSpace(o.Description),
		Kind:        game.Act,
	}
	if method == "GET" || method == "HEAD" {
		op.Kind = game.Read
	}
	if len(o.Tags) > 0 {
		op.Tag = o.Tags[0]
	}
	op.Auth = sec.plan(o.Security)

	b := &flattener{op: op, taken: map[string]string{}}
	// Path-level parameters apply unless the operation redefines the same name and place.
	params := slices.Clone(o.Parameters)
	for _, p := range item.Parameters {
		if !slices.ContainsFunc(o.Parameters, func(q *v3.Parameter) bool { return q.Name == p.Name && q.In == p.In }) {
			params = append(params, p)
		}
	}
	// Path first, so the names in the URL template keep their own names.
	for _, in := range []string{inPath, inQuery, inHeader, inCookie} {
		for _, p := range params {
			if p.In != in {
				continue
			}
			if err := b.param(p); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range templateNames(path) {
		if _, ok := op.field(name); !ok {
			return nil, fmt.Errorf("path parameter {%s} is not declared in parameters", name)
		}
	}
	if o.RequestBody != nil {
		if err := b.body(o.RequestBody); err != nil {
			return nil, err
		}
	}
	op.Schema = b.schema()
	return op, nil
}

// flattener builds an operation's flattened argument object.
type flattener struct {
	op    *operation
	taken map[string]string // argument name → where it goes, for collisions
	conv  converter
}

// param adds one parameter.
func (b *flattener) param(p *v3.Parameter) error {
	if p.In == inHeader {
		switch strings.ToLower(p.Name) {
		case "accept", "content-type", "authorization":
			return nil // the OpenAPI spec says these are ignored: the client sets them
		}
	}
	if p.Schema == nil {
		return fmt.Errorf("parameter %q (in %s) has no schema (content-typed parameters are not supported)", p.Name, p.In)
	}
	s, err := b.conv.convert(p.Schema, 0)
	if err != nil {
		return fmt.Errorf("parameter %q: %w", p.Name, err)
	}
	desc := firstNonEmpty(p.Description, s.Description)
	s.Description = trimText(desc, propDescLimit)
	explode := p.Explode == nil || *p.Explode
	if p.Style != "" && p.Style != "form" {
		explode = p.Explode != nil && *p.Explode
	}
	required := p.In == inPath || (p.Required != nil && *p.Required)
	b.add(field{Orig: p.Name, In: p.In, Schema: s, Required: required, Explode: explode})
	return nil
}

// body adds a request body: an object's properties one by one, anything else whole.
func (b *flattener) body(rb *v3.RequestBody) error {
	ct, kind := pickContent(rb)
	// Specs often leave out requestBody.required (default false) while the body's
	// schema requires fields the server insists on: an unspecified body is taken as
	// required when its schema requires something; only an explicit false makes it
	// optional.
	required := rb.Required != nil && *rb.Required
	unspecified := rb.Required == nil
	if kind == "" {
		if !required {
			return nil // an optional body we cannot send is simply not sent
		}
		var types []string
		if rb.Content != nil {
			for t := range rb.Content.KeysFromOldest() {
				types = append(types, t)
			}
		}
		return fmt.Errorf("request body is %s; only JSON and form bodies can be sent", orNone(strings.Join(types, ", ")))
	}
	mt := rb.Content.GetOrZero(ct)
	b.op.BodyType, b.op.ContentType, b.op.BodyRequired = kind, ct, required
	if mt == nil || mt.Schema == nil {
		b.add(field{Orig: wholeBody, In: inBody, Whole: true, Required: required,
			Schema: &jsonschema.Schema{Description: trimText(rb.Description, propDescLimit)}})
		return nil
	}
	s, err := b.conv.convert(mt.Schema, 0)
	if err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	isObject := s.Type == "object" || (s.Type == "" && len(s.Types) == 0 && len(s.Properties) > 0)
	open := s.AdditionalProperties != nil && !(s.AdditionalProperties.Not != nil && isEmpty(s.AdditionalProperties.Not))
	if !isObject || open || len(s.Properties) == 0 {
		if s.Description == "" {
			s.Description = trimText(rb.Description, propDescLimit)
		}
		b.add(field{Orig: wholeBody, In: inBody, Whole: true, Required: required, Schema: s})
		return nil
	}
	if unspecified && len(s.Required) > 0 {
		required = true
		b.op.BodyRequired = true
	}
	for _, name := range propertyNames(s) {
		need := slices.Contains(s.Required, name)
		f := b.add(field{Orig: name, In: inBody, Schema: s.Properties[name], Required: required && need})
		if need {
			b.op.BodyNeeds = append(b.op.BodyNeeds, f.Name)
		}
	}
	return nil
}

// add names the field (prefixing it with where it goes when the name is taken) and
// appends it.
func (b *flattener) add(f field) field {
	name := f.Orig
	if where, dup := b.taken[name]; dup {
		renamed := f.In + "_" + f.Orig
		for i := 2; b.taken[renamed] != ""; i++ {
			renamed = fmt.Sprintf("%s_%s_%d", f.In, f.Orig, i)
		}
		note := fmt.Sprintf("(%s %s %q, renamed: %q is the %s one)", article(f.In), kindOf(f), f.Orig, f.Orig, where)
		s := *f.Schema
		s.Description = strings.TrimSpace(note + " " + s.Description)
		f.Schema = &s
		name = renamed
	}
	f.Name = name
	b.taken[name] = f.In
	b.op.Fields = append(b.op.Fields, f)
	return f
}

func kindOf(f field) string {
	if f.In == inBody {
		return "field"
	}
	return "parameter"
}

func article(in string) string {
	if in == inBody {
		return "the body"
	}
	return "the " + in
}

// schema returns the flattened, closed argument object.
func (b *flattener) schema() *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	for _, f := range b.op.Fields {
		setProperty(s, f.Name, f.Schema)
		if f.Required {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}

// pickContent chooses the media type to send: JSON first, then a form.
func pickContent(rb *v3.RequestBody) (contentType, kind string) {
	if rb.Content == nil {
		return "", ""
	}
	for ct := range rb.Content.KeysFromOldest() {
		if isJSONType(ct) {
			return ct, "json"
		}
	}
	for ct := range rb.Content.KeysFromOldest() {
		if mediaType(ct) == "application/x-www-form-urlencoded" {
			return ct, "form"
		}
	}
	return "", ""
}

func mediaType(ct string) string {
	ct, _, _ = strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(ct))
}

func isJSONType(ct string) bool {
	m := mediaType(ct)
	return m == "application/json" || strings.HasSuffix(m, "+json") || m == "*/*"
}

func isEmpty(s *jsonschema.Schema) bool {
	return s.Type == "" && len(s.Types) == 0 && len(s.Properties) == 0 && s.Not == nil && len(s.Enum) == 0 && s.Items == nil
}

func orNone(s string) string {
	if s == "" {
		return "without a media type"
	}
	return s
}

var templateName = regexp.MustCompile(`\{([^{}]+)\}`)

// templateNames returns the parameter names in a path template.
func templateNames(path string) []string {
	var names []string
	for _, m := range templateName.FindAllStringSubmatch(path, -1) {
		names = append(names, m[1])
	}
	return names
}

var invalidNameChars = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// toolName makes a valid tool name (letters, digits, _ and -, at most 64).
func toolName(s string) string {
	s = strings.Trim(invalidNameChars.ReplaceAllString(s, "_"), "_-")
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		s = "op"
	}
	return s
}

// nameOperations gives each operation a unique tool name: its operationId, or its
// method and path when it has none.
func nameOperations(ops []*operation) {
	used := map[string]bool{lastResponseTool: true}
	for _, op := range ops {
		base := op.OperationID
		if base == "" {
			parts := []string{strings.ToLower(op.Method)}
			for _, seg := range strings.Split(op.Path, "/") {
				if seg = strings.Trim(seg, "{}"); seg != "" {
					parts = append(parts, seg)
				}
			}
			base = strings.Join(parts, "_")
		}
		name := toolName(base)
		for i := 2; used[name]; i++ {
			name = toolName(fmt.Sprintf("%s_%d", base, i))
		}
		used[name] = true
		op.Name = name
	}
}
