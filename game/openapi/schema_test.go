package openapi

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

// compositions is a 3.0 spec using the schema keywords the converter folds into what
// the validator checks: allOf, oneOf with null, anyOf of objects, boolean exclusive
// bounds, readOnly, closed nested objects, const, and bodies that are not objects.
const compositions = `
openapi: 3.0.3
info: {title: compositions, version: "1"}
servers: [{url: "http://127.0.0.1:9"}]
components:
  schemas:
    Named:
      type: object
      required: [name, id]
      properties:
        name: {type: string}
        id: {type: string, readOnly: true}
    Sized:
      type: object
      required: [size]
      properties:
        size: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true}
paths:
  /things:
    post:
      operationId: make-thing
      requestBody:
        content:
          application/json:
            schema:
              allOf:
                - $ref: "#/components/schemas/Named"
                - $ref: "#/components/schemas/Sized"
                - type: object
                  properties:
                    colour:
                      oneOf:
                        - {type: string, enum: [red, blue]}
                        - {type: "null"}
                    shape:
                      anyOf:
                        - {type: object, properties: {sides: {type: integer}}, required: [sides]}
                        - {type: object, properties: {radius: {type: number}}, required: [radius]}
                    meta:
                      type: object
                      additionalProperties: false
                      properties:
                        kind: {const: thing}
      responses: {"201": {description: made}}
  /bulk:
    post:
      operationId: bulk
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: array, items: {type: string}, maxItems: 2}
      responses: {"200": {description: ok}}
  /labels:
    put:
      operationId: put-labels
      requestBody:
        content:
          application/json:
            schema: {type: object, additionalProperties: {type: string}}
      responses: {"200": {description: ok}}
`

func TestSchemaCompositions(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "compositions.yaml")
	if err := os.WriteFile(path, []byte(compositions), 0o600); err != nil {
		t.Fatal(err)
	}
	g := mustOpen(t, Config{Spec: path})
	thing := toolNamed(t, g, "make-thing").Schema
	if got := thing.PropertyOrder; !slices.Equal(got, []string{"name", "size", "colour", "shape", "meta"}) {
		t.Errorf("make-thing properties = %v (allOf merged, readOnly id left out)", got)
	}
	if !slices.Equal(thing.Required, []string{"name", "size"}) {
		t.Errorf("make-thing required = %v (a required readOnly field is the server's to set)", thing.Required)
	}
	for args, want := range map[string]string{
		`{"name":"a","size":5}`:                                       "",
		`{"name":"a","size":5,"colour":null,"shape":{"sides":3}}`:     "",
		`{"name":"a","size":5,"colour":"red","shape":{"radius":1.5}}`: "",
		`{"name":"a","size":0}`:                                       "a number > 0",
		`{"name":"a","size":10}`:                                      "a number < 10",
		`{"name":"a","size":5,"colour":"green"}`:                      `one of "red", "blue"`,
		`{"name":"a","size":5,"shape":"round"}`:                       "expected an object",
		`{"name":"a","size":5,"meta":{"kind":"thing","extra":1}}`:     `no property "extra"`,
		`{"name":"a","size":5,"meta":{"kind":"other"}}`:               `expected string "thing"`,
		`{"name":"a","size":5,"id":"x"}`:                              `no property "id"`,
		`{"size":5}`:                                                  "arguments.name: expected required",
	} {
		err := game.Validate("make-thing", thing, json.RawMessage(args))
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", args, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}

	bulk := g.opTools["bulk"]
	if f, ok := bulk.field(wholeBody); !ok || !f.Whole || !slices.Equal(bulk.Schema.Required, []string{"body"}) {
		t.Errorf("an array body is not the whole-body argument: %+v", bulk.Fields)
	}
	if err := game.Validate("bulk", bulk.Schema, json.RawMessage(`{"body":["a","b","c"]}`)); err == nil {
		t.Errorf("bulk with 3 items passed maxItems 2")
	}
	labels := g.opTools["put-labels"]
	if f, ok := labels.field(wholeBody); !ok || !f.Whole || len(labels.Schema.Required) != 0 {
		t.Errorf("a map body is not the optional whole-body argument: %+v", labels.Fields)
	}
	args, _ := decodeArgs(json.RawMessage(`{"body":["x","y"]}`))
	req, err := bulk.newRequest(t.Context(), "http://127.0.0.1:9", args)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != `["x","y"]` {
		t.Errorf("bulk sent %q", body)
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	if out, cut := summarize([]byte(`{"a":1}`), 100); out != `{"a":1}` || cut {
		t.Errorf("small JSON = %q, %v", out, cut)
	}
	if out, cut := summarize([]byte("plain text"), 100); out != "plain text" || cut {
		t.Errorf("text = %q, %v", out, cut)
	}
	out, cut := summarize([]byte(strings.Repeat("é", 5000)), 100)
	if !cut || len(out) > 100 || !strings.HasSuffix(out, "…(cut)") || !json.Valid([]byte(`"`+out+`"`)) {
		t.Errorf("long text = %q (%d bytes), %v", out, len(out), cut)
	}
	var items []string
	for i := range 1000 {
		items = append(items, `{"n":`+strings.Repeat("1", i%5+1)+`}`)
	}
	out, cut = summarize([]byte(`[`+strings.Join(items, ",")+`]`), 2000)
	if !cut || len(out) > 2000 || !strings.Contains(out, "in all)") || !json.Valid([]byte(out)) {
		t.Errorf("long array = %q, %v", out, cut)
	}
}
