package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
)

// The served document describes what the routes really answer: each real
// response of the generated schemas is checked against the schema its
// route names, key by key and type by type.
func TestOpenAPIDescribesRealResponses(t *testing.T) {
	e := newEnv(t, envOpts{})
	cred := createAccessKey(t, e, "aws-doc")
	code, body := e.do(http.MethodGet, "/openapi.json", "", nil)
	mustStatus(t, "openapi", code, body, 200)
	var doc struct {
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v1/providers", "/api/v1/credentials", "/api/v1/credentials/" + cred.ID} {
		code, body := e.do(http.MethodGet, path, e.admin, nil)
		mustStatus(t, path, code, body, 200)
		docPath := path
		if strings.HasSuffix(path, cred.ID) {
			docPath = "/api/v1/credentials/{id}"
		}
		schema := responseSchema(t, doc.Paths[docPath]["get"], doc.Components.Schemas)
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		for _, p := range conforms(v, schema, "$") {
			t.Errorf("GET %s: %s", path, p)
		}
	}
}

func responseSchema(t *testing.T, op map[string]any, schemas map[string]any) map[string]any {
	t.Helper()
	ref := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)["$ref"].(string)
	s, ok := schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
	if !ok {
		t.Fatalf("no schema %s", ref)
	}
	return s
}

// conforms lists every way v differs from schema: a type that is not the
// declared one, a key the schema does not have, a required key missing.
func conforms(v any, schema map[string]any, at string) []string {
	var out []string
	typ, _ := schema["type"].(string)
	switch val := v.(type) {
	case map[string]any:
		if typ != "object" {
			return []string{fmt.Sprintf("%s is an object, documented as %q", at, typ)}
		}
		props, _ := schema["properties"].(map[string]any)
		extra, _ := schema["additionalProperties"].(map[string]any)
		keys := make([]string, 0, len(val))
		for k := range val {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, ok := props[k].(map[string]any); ok {
				out = append(out, conforms(val[k], p, at+"."+k)...)
			} else if extra != nil {
				out = append(out, conforms(val[k], extra, at+"."+k)...)
			} else {
				out = append(out, fmt.Sprintf("%s.%s is in the response but not in the document", at, k))
			}
		}
		req, _ := schema["required"].([]any)
		for _, r := range req {
			if _, ok := val[r.(string)]; !ok {
				out = append(out, fmt.Sprintf("%s.%s is documented as required but absent", at, r))
			}
		}
	case []any:
		if typ != "array" {
			return []string{fmt.Sprintf("%s is an array, documented as %q", at, typ)}
		}
		items, _ := schema["items"].(map[string]any)
		for i, item := range val {
			out = append(out, conforms(item, items, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case string:
		if typ != "string" {
			out = append(out, fmt.Sprintf("%s is a string, documented as %q", at, typ))
		}
	case float64:
		if typ != "integer" && typ != "number" {
			out = append(out, fmt.Sprintf("%s is a number, documented as %q", at, typ))
		}
	case bool:
		if typ != "boolean" {
			out = append(out, fmt.Sprintf("%s is a boolean, documented as %q", at, typ))
		}
	}
	return out
}
