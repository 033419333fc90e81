package openapi

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/coplayhq/coplay/internal/infile"
	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/index"
	"github.com/pb33f/libopenapi/utils"
)

// loadSpec reads and builds the OpenAPI 3 document at path, resolving references to
// other local files relative to it. Remote references are refused: a spec should not
// make coplay fetch things from the network behind the person's back.
func loadSpec(path string) (*v3.Document, error) {
	if path == "" {
		return nil, errors.New("openapi: no spec file given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("openapi: spec %s: %w", path, err)
	}
	data, err := infile.Read(abs, infile.Large) // a FIFO or /dev/zero is refused, not waited on
	if err != nil {
		return nil, fmt.Errorf("openapi: read spec: %w", err)
	}
	cfg := datamodel.NewDocumentConfiguration()
	cfg.BasePath = filepath.Dir(abs)
	cfg.SpecFilePath = abs
	cfg.AllowFileReferences = true
	cfg.AllowRemoteReferences = false
	// The library logs to stdout by default, which would scribble over the screen.
	cfg.Logger = slog.New(slog.DiscardHandler)
	doc, err := libopenapi.NewDocumentWithConfiguration(data, cfg)
	if err != nil {
		return nil, fmt.Errorf("openapi: spec %s does not load: %s", path, err)
	}
	if v := doc.GetVersion(); !strings.HasPrefix(v, "3.") {
		return nil, fmt.Errorf("openapi: spec %s is version %q; only OpenAPI 3.0 and 3.1 are supported", path, v)
	}
	model, err := doc.BuildV3Model()
	if err != nil && (model == nil || !onlyCircular(err)) {
		return nil, fmt.Errorf("openapi: spec %s does not load:%s", path, describeErrors(path, err))
	}
	if model == nil {
		return nil, fmt.Errorf("openapi: spec %s does not load: no OpenAPI 3 document in it", path)
	}
	return &model.Model, nil
}

// onlyCircular reports whether every error in err is a circular reference, which the
// schema converter handles by cutting the loop.
func onlyCircular(err error) bool {
	for _, e := range utils.UnwrapErrors(err) {
		var re *index.ResolvingError
		if !errors.As(e, &re) || re.CircularReference == nil {
			return false
		}
	}
	return true
}

// describeErrors lists the library's errors one per line, with the file and line where
// the library gives them, so a person can find the mistake.
func describeErrors(spec string, err error) string {
	const most = 5 // a spec whose models folder is missing fails on every $ref
	var b strings.Builder
	seen := map[string]bool{}
	missing := map[string]bool{} // referenced files that are not there
	n := 0
	for _, e := range utils.UnwrapErrors(err) {
		line := "\n- " + describeError(spec, e)
		if seen[line] {
			continue
		}
		seen[line] = true
		if n++; n <= most {
			b.WriteString(line)
		}
		var ie *index.IndexingError
		if errors.As(e, &ie) && ie.Node != nil {
			if file, _, _ := strings.Cut(refValue(ie.Node), "#"); file != "" {
				if _, serr := os.Stat(filepath.Join(filepath.Dir(spec), file)); serr != nil {
					missing[filepath.Dir(file)] = true
				}
			}
		}
	}
	if b.Len() == 0 {
		return " " + err.Error()
	}
	if n > most {
		fmt.Fprintf(&b, "\n- … and %d more", n-most)
	}
	for dir := range missing {
		fmt.Fprintf(&b, "\n(the spec refers to files in %s beside it, which are not there: keep the spec in the folder it came with)", filepath.Join(filepath.Dir(spec), dir))
		break
	}
	return b.String()
}

func describeError(spec string, e error) string {
	var ie *index.IndexingError
	if errors.As(e, &ie) && ie.Node != nil {
		where := spec
		if ie.Path != "" {
			where += " at " + ie.Path
		}
		if ref := refValue(ie.Node); ref != "" {
			where = fmt.Sprintf("$ref %q in %s", ref, spec)
		}
		return fmt.Sprintf("%s (%s, line %d column %d)", ie.Err, where, ie.Node.Line, ie.Node.Column)
	}
	var re *index.ResolvingError
	if errors.As(e, &re) && re.Node != nil {
		return fmt.Sprintf("%s (%s, line %d column %d)", re.ErrorRef, spec, re.Node.Line, re.Node.Column)
	}
	return e.Error()
}

// refValue returns the $ref written in a mapping node, if it is one.
func refValue(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "$ref" {
			return n.Content[i+1].Value
		}
	}
	return ""
}
