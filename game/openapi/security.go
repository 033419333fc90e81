package openapi

import (
	"encoding/base64"
	"github.com/coplayhq/coplay/secret"
	"net/http"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// authScheme is one way of presenting the token on a request.
type authScheme struct {
	Kind string // "bearer", "basic", "header", "query" or "cookie"
	Name string // the header, query or cookie name for an API key
}

// security is the spec's security: its schemes and the document-wide requirement.
type security struct {
	schemes  map[string]*v3.SecurityScheme
	global   []*base.SecurityRequirement
	declared bool // the spec declares schemes at all
}

func newSecurity(doc *v3.Document) *security {
	s := &security{schemes: map[string]*v3.SecurityScheme{}, global: doc.Security}
	if doc.Components != nil && doc.Components.SecuritySchemes != nil {
		for name, sc := range doc.Components.SecuritySchemes.FromOldest() {
			s.schemes[name] = sc
			s.declared = true
		}
	}
	return s
}

// plan returns how an operation presents the token: the first alternative of its
// security requirement (or the document's) whose every scheme can carry a single
// token. None means the operation is sent without the token. A spec with no schemes
// at all gets a bearer token, the common case.
func (s *security) plan(opReq []*base.SecurityRequirement) []authScheme {
	reqs := opReq
	if reqs == nil {
		reqs = s.global
	}
	if reqs == nil && !s.declared {
		return []authScheme{{Kind: "bearer"}}
	}
	for _, r := range reqs {
		if r == nil || r.Requirements == nil || r.Requirements.Len() == 0 {
			continue // the empty alternative: no auth; prefer one that sends the token
		}
		var plan []authScheme
		ok := true
		for name := range r.Requirements.KeysFromOldest() {
			a, usable := s.scheme(name)
			if !usable {
				ok = false
				break
			}
			plan = append(plan, a)
		}
		if ok {
			return plan
		}
	}
	return nil
}

func (s *security) scheme(name string) (authScheme, bool) {
	sc := s.schemes[name]
	if sc == nil {
		return authScheme{}, false
	}
	switch strings.ToLower(sc.Type) {
	case "http":
		switch strings.ToLower(sc.Scheme) {
		case "bearer":
			return authScheme{Kind: "bearer"}, true
		case "basic":
			return authScheme{Kind: "basic"}, true
		}
	case "apikey":
		switch sc.In {
		case "header", "query", "cookie":
			if sc.Name != "" {
				return authScheme{Kind: sc.In, Name: sc.Name}, true
			}
		}
	case "oauth2", "openidconnect":
		return authScheme{Kind: "bearer"}, true
	}
	return authScheme{}, false
}

// apply puts token on req as the plan says. An empty token sends nothing.
func apply(req *http.Request, plan []authScheme, token string) {
	if token == "" {
		return
	}
	for _, a := range plan {
		switch a.Kind {
		case "bearer":
			req.Header.Set("Authorization", "Bearer "+token)
		case "basic":
			req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(token)))
		case "header":
			req.Header.Set(a.Name, token)
		case "query":
			q := req.URL.Query()
			q.Set(a.Name, token)
			req.URL.RawQuery = q.Encode()
		case "cookie":
			req.AddCookie(&http.Cookie{Name: a.Name, Value: token})
		}
	}
}

// redacted replaces the token in any text that leaves the game (package secret's rule).
const redacted = secret.Redacted
