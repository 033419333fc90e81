package openapi

import (
	"errors"
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

// Request body kinds: how the body is encoded.
const (
	bodyJSON      = "json"      // application/json and +json
	bodyForm      = "form"      // application/x-www-form-urlencoded
	bodyMultipart = "multipart" // multipart/form-data, one part per field
	bodyText      = "text"      // text/*: the body argument's string, as it is
)

// field is one argument of the flattened object and where it goes.
type field struct {
	Name    string // the argument's name in the flattened object
	Orig    string // the spec's name (the parameter or the body property)
	In      string // inPath, inQuery, inHeader, inCookie or inBody
	Whole   bool   // the argument is the whole request body
	Explode bool   // arrays in a query or a form: repeat the name (form style)
	// JSON: the value is written as JSON text (a parameter given as
	// application/json content).
	JSON bool
	// PartType is a multipart part's Content-Type, when the spec's encoding gives one.
	PartType string
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
	BodyType    string // bodyJSON, bodyForm, bodyMultipart or bodyText; "" when there is no body
	ContentType string // the media type sent (for multipart, without its boundary)
	// Notes say what of the operation cannot be sent (an optional file field, an
	// optional body of a type that cannot be sent); they end the tool's description.
	Notes []string
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
func buildOperations(doc *v3.Document, sec *security) (ops []*operation, skipped []game.Skipped) {
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
				skipped = append(skipped, game.Skipped{Name: refOr(o.OperationId, m+" "+path), Reason: err.Error()})
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
	required := p.In == inPath || (p.Required != nil && *p.Required)
	sp, asJSON := p.Schema, false
	if sp == nil && p.Content != nil {
		// A parameter given as content (OpenAPI's alternative to a schema): its one
		// media type's schema, written as JSON text when the type is JSON.
		for ct, mt := range p.Content.FromOldest() {
			if mt != nil && mt.Schema != nil {
				sp, asJSON = mt.Schema, isJSONType(ct)
			}
			break
		}
	}
	if sp == nil {
		if !required {
			b.op.Notes = append(b.op.Notes, fmt.Sprintf("%s parameter %s has no schema, so it is never sent", p.In, p.Name))
			return nil
		}
		return fmt.Errorf("required %s parameter %q has no schema to type it", p.In, p.Name)
	}
	s, err := b.conv.convert(sp, 0)
	if err != nil {
		return fmt.Errorf("parameter %q: %w", p.Name, err)
	}
	desc := firstNonEmpty(p.Description, s.Description)
	s.Description = trimText(desc, propDescLimit)
	explode := p.Explode == nil || *p.Explode
	if p.Style != "" && p.Style != "form" {
		explode = p.Explode != nil && *p.Explode
	}
	b.add(field{Orig: p.Name, In: p.In, Schema: s, Required: required, Explode: explode, JSON: asJSON})
	return nil
}

// body adds a request body: the fields of a JSON or form object one by one, a text
// body as one string, anything else whole. A form's file fields cannot be sent: an
// optional one is left out with a note, a required one makes the operation no tool.
func (b *flattener) body(rb *v3.RequestBody) error {
	ct, kind := pickContent(rb)
	// Specs often leave out requestBody.required (default false) while the body's
	// schema requires fields the server insists on: an unspecified body is taken as
	// required when its schema requires something; only an explicit false makes it
	// optional.
	required := rb.Required != nil && *rb.Required
	unspecified := rb.Required == nil
	if kind == "" {
		types := contentTypes(rb)
		if len(types) == 0 {
			if required {
				return errors.New("its required request body has no media type")
			}
			return nil
		}
		what := strings.Join(types, ", ")
		if !required {
			// An optional body that cannot be sent is simply not sent, and said so.
			b.op.Notes = append(b.op.Notes, "its optional request body ("+what+") cannot be sent, so it is left out")
			return nil
		}
		return fmt.Errorf("request body is %s; only JSON, form (url-encoded or multipart) and text bodies can be sent, not files", what)
	}
	mt := rb.Content.GetOrZero(ct)
	b.op.BodyType, b.op.ContentType, b.op.BodyRequired = kind, ct, required
	if kind == bodyText {
		return b.textBody(rb, mt, ct, required)
	}
	form := kind == bodyForm || kind == bodyMultipart
	if mt == nil || mt.Schema == nil {
		s := &jsonschema.Schema{Description: trimText(rb.Description, propDescLimit)}
		if form {
			s.Type = "object"
			s.Description = strings.TrimSpace(s.Description + " (the form's fields by name: strings, numbers, booleans or arrays of them)")
		}
		b.add(field{Orig: wholeBody, In: inBody, Whole: true, Required: required, Schema: s})
		return nil
	}
	s, err := b.conv.convert(mt.Schema, 0)
	if err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	isObject := s.Type == "object" || (s.Type == "" && len(s.Types) == 0 && len(s.Properties) > 0)
	if form && !isObject && !isEmpty(s) {
		return fmt.Errorf("%s request body is %s, not an object of fields", ct, orAnything(strings.Join(schemaTypes(s), " or ")))
	}
	hadFields := len(s.Properties) > 0
	if form {
		if err := b.dropFiles(s, mt); err != nil {
			return err
		}
		if hadFields && len(s.Properties) == 0 {
			return nil // only optional files: the form is sent empty when it must be sent
		}
		if s.Type == "" && len(s.Types) == 0 {
			s.Type = "object"
		}
	}
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
		f := field{Orig: name, In: inBody, Schema: s.Properties[name], Required: required && need, Explode: true}
		if enc := encodingOf(mt, name); enc != nil {
			if enc.Explode != nil {
				f.Explode = *enc.Explode
			}
			f.PartType = enc.ContentType
		}
		f = b.add(f)
		if need {
			b.op.BodyNeeds = append(b.op.BodyNeeds, f.Name)
		}
	}
	return nil
}

// textBody adds a text/* body: one string argument, sent as it is.
func (b *flattener) textBody(rb *v3.RequestBody, mt *v3.MediaType, ct string, required bool) error {
	s := &jsonschema.Schema{}
	if mt != nil && mt.Schema != nil {
		cs, err := b.conv.convert(mt.Schema, 0)
		if err != nil {
			return fmt.Errorf("request body (%s): %w", ct, err)
		}
		if t := schemaTypes(cs); len(t) == 0 || slices.Contains(t, "string") {
			s = cs // its length, pattern and enum still apply
		} else {
			s.Description = cs.Description
		}
	}
	setTypes(s, []string{"string"})
	desc := trimText(firstNonEmpty(s.Description, rb.Description), propDescLimit-40)
	s.Description = strings.TrimSpace(desc + " (the whole request body, sent as " + mediaType(ct) + ")")
	b.add(field{Orig: wholeBody, In: inBody, Whole: true, Required: required, Schema: s})
	return nil
}

// dropFiles removes a form's file fields from its schema s: an optional one with a
// note, a required one with an error (the operation cannot be called without it).
func (b *flattener) dropFiles(s *jsonschema.Schema, mt *v3.MediaType) error {
	for _, name := range propertyNames(s) {
		partType := ""
		if enc := encodingOf(mt, name); enc != nil {
			partType = enc.ContentType
		}
		if !isFile(s.Properties[name], partType) {
			continue
		}
		if slices.Contains(s.Required, name) {
			return fmt.Errorf("file field %s is required, and file uploads are not supported", name)
		}
		delete(s.Properties, name)
		s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(n string) bool { return n == name })
		b.op.Notes = append(b.op.Notes, fmt.Sprintf("file field %s is not supported, so it is left out", name))
	}
	return nil
}

// isFile reports whether a form field holds a file: binary data (format binary, a
// contentEncoding, a contentMediaType or part type that is not text or JSON), or an
// array of such.
func isFile(s *jsonschema.Schema, partType string) bool {
	if s == nil {
		return false
	}
	if partType != "" && !textual(partType) {
		return true
	}
	switch {
	case s.Format == "binary":
		return true
	case s.ContentMediaType != "" && !textual(s.ContentMediaType):
		return true
	case s.ContentEncoding != "" && s.ContentMediaType == "":
		return true
	}
	return s.Items != nil && isFile(s.Items, "")
}

// textual reports whether a media type is text a model can write: text/* or JSON.
func textual(ct string) bool {
	return strings.HasPrefix(mediaType(ct), "text/") || isJSONType(ct)
}

// encodingOf returns the spec's encoding of one form field, if it gives one.
func encodingOf(mt *v3.MediaType, name string) *v3.Encoding {
	if mt == nil || mt.Encoding == nil {
		return nil
	}
	return mt.Encoding.GetOrZero(name)
}

// contentTypes lists a body's media types in the spec's order.
func contentTypes(rb *v3.RequestBody) []string {
	var types []string
	if rb.Content != nil {
		for t := range rb.Content.KeysFromOldest() {
			types = append(types, t)
		}
	}
	return types
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

// pickContent chooses the media type to send: JSON first, then a url-encoded form, a
// multipart form, and text.
func pickContent(rb *v3.RequestBody) (contentType, kind string) {
	if rb.Content == nil {
		return "", ""
	}
	for _, try := range []struct {
		kind string
		is   func(string) bool
	}{
		{bodyJSON, isJSONType},
		{bodyForm, func(ct string) bool { return mediaType(ct) == "application/x-www-form-urlencoded" }},
		{bodyMultipart, func(ct string) bool { return mediaType(ct) == "multipart/form-data" }},
		{bodyText, func(ct string) bool { return strings.HasPrefix(mediaType(ct), "text/") }},
	} {
		for ct := range rb.Content.KeysFromOldest() {
			if try.is(ct) {
				return ct, try.kind
			}
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

func orAnything(s string) string {
	if s == "" {
		return "untyped"
	}
	return s
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
