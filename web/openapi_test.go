package web

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// openAPI reads docs/openapi.yaml.
func openAPI(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	return doc
}

// TestOpenAPI checks docs/openapi.yaml against the handlers: every route
// it documents is served and every route served is documented, and what
// the handlers answer matches its schemas.
func TestOpenAPI(t *testing.T) {
	doc := openAPI(t)
	var documented, served []string
	for path, item := range doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	for _, rt := range apiRoutes {
		served = append(served, rt.Method+" "+rt.Path)
	}
	slices.Sort(documented)
	slices.Sort(served)
	for _, r := range served {
		if !slices.Contains(documented, r) {
			t.Errorf("%s is served but not in docs/openapi.yaml", r)
		}
	}
	for _, r := range documented {
		if !slices.Contains(served, r) {
			t.Errorf("%s is in docs/openapi.yaml but not served", r)
		}
	}

	// The document as a JSON Schema resource, its response schemas
	// compiled from it by JSON pointer.
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	res, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("openapi.json", res); err != nil {
		t.Fatal(err)
	}
	schema := func(method, path string, code int) *jsonschema.Schema {
		ptr := "/paths/" + escape(path) + "/" + strings.ToLower(method) + "/responses/" + itoa(code) +
			"/content/application~1json/schema"
		s, err := c.Compile("openapi.json#" + ptr)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return s
	}

	srv, hs := newTestServer(t, false)
	abID := keepAB(t, srv)
	ref := url.PathEscape("claude:742233ee-d311-4040-bf40-f490e4667f65")
	checks := []struct {
		method, route, path string
		code                int
	}{
		{"POST", "/api/v1/signin", "/api/v1/signin", 200},
		{"GET", "/api/v1/info", "/api/v1/info", 200},
		{"GET", "/api/v1/sessions", "/api/v1/sessions", 200},
		{"GET", "/api/v1/sessions", "/api/v1/sessions?cli=codex&sort=-tokens&offset=1&limit=2", 200},
		{"GET", "/api/v1/sessions/{ref}", "/api/v1/sessions/" + ref, 200},
		{"GET", "/api/v1/sessions/{ref}", "/api/v1/sessions/" + ref + "?limit=2&native=true", 200},
		{"GET", "/api/v1/sessions/{ref}", "/api/v1/sessions/" + ref + "?at=81f23d8a-945e-44a2-9d68-18dfb879d44e&limit=4", 200},
		{"GET", "/api/v1/search", "/api/v1/search?q=command", 200},
		{"GET", "/api/v1/search", "/api/v1/search?q=%22echo+command%22&role=user", 200},
		{"GET", "/api/v1/usage", "/api/v1/usage", 200},
		{"GET", "/api/v1/usage", "/api/v1/usage?by=month&split=cli", 200},
		{"GET", "/api/v1/runs", "/api/v1/runs", 200},
		{"GET", "/api/v1/ab", "/api/v1/ab", 200},
		{"GET", "/api/v1/chains", "/api/v1/chains", 200},
		{"GET", "/api/v1/chains/{chain}", "/api/v1/chains/nope", 404},
		{"GET", "/api/v1/ab/{ab}", "/api/v1/ab/" + abID, 200},
		{"GET", "/api/v1/ab/{ab}", "/api/v1/ab/nope", 404},
		{"GET", "/api/v1/sessions/{ref}/export", "/api/v1/sessions/" + ref + "/export?format=nope", 400},
		{"GET", "/api/v1/sessions", "/api/v1/sessions?sort=nope", 400},
		{"GET", "/api/v1/search", "/api/v1/search?q=%22open", 400},
		{"GET", "/api/v1/runs/{run}", "/api/v1/runs/nope", 404},
		{"POST", "/api/v1/runs/{run}/input", "/api/v1/runs/nope/input", 400},
	}
	for _, ck := range checks {
		resp, body := do(t, hs, request{method: ck.method, path: ck.path, header: bearer()})
		if resp.StatusCode != ck.code {
			t.Errorf("%s %s: status %d, want %d: %s", ck.method, ck.path, resp.StatusCode, ck.code, body)
			continue
		}
		code := "default"
		if ck.code == 200 {
			code = "200"
		}
		var s *jsonschema.Schema
		if code == "200" {
			s = schema(ck.method, ck.route, 200)
		} else {
			var err error
			if s, err = c.Compile("openapi.json#/components/responses/Error/content/application~1json/schema"); err != nil {
				t.Fatal(err)
			}
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			t.Errorf("%s %s: not JSON: %v: %s", ck.method, ck.path, err, body)
			continue
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s %s does not answer as docs/openapi.yaml says: %v", ck.method, ck.path, err)
		}
	}
}

func escape(path string) string {
	return strings.ReplaceAll(strings.ReplaceAll(path, "~", "~0"), "/", "~1")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
