package api

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// openAPIDocument is the served document, decoded for the checks.
type openAPIDocument struct {
	Paths      map[string]map[string]map[string]any `json:"paths"`
	Components struct {
		Schemas map[string]any `json:"schemas"`
	} `json:"components"`
}

func parsedOpenAPI(t testing.TB) openAPIDocument {
	t.Helper()
	var doc openAPIDocument
	if err := json.Unmarshal(OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// mustMatchDoc checks body, a real answer with status to method on
// docPath (the path as documented, with {id}), against the schema the
// document names for that status: the success schema, or the problem
// schema of "default" for an error.
func mustMatchDoc(t *testing.T, method, docPath string, status int, body []byte) {
	t.Helper()
	doc := parsedOpenAPI(t)
	op := doc.Paths[docPath][strings.ToLower(method)]
	if op == nil {
		t.Fatalf("%s %s is not in the document", method, docPath)
	}
	responses, _ := op["responses"].(map[string]any)
	resp, ok := responses[strconv.Itoa(status)].(map[string]any)
	if !ok && status >= 400 {
		resp, ok = responses["default"].(map[string]any)
	}
	if !ok {
		t.Fatalf("%s %s answered %d, which the document does not list", method, docPath, status)
	}
	content, _ := resp["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	if media == nil {
		media, _ = content["application/problem+json"].(map[string]any)
	}
	if media == nil {
		if len(body) > 0 {
			t.Errorf("%s %s %d documents no body, but one came: %s", method, docPath, status, body)
		}
		return
	}
	ref, _ := media["schema"].(map[string]any)["$ref"].(string)
	schema, ok := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
	if !ok {
		t.Fatalf("%s %s %d: no schema %q", method, docPath, status, ref)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s %s: %v: %s", method, docPath, err, body)
	}
	for _, p := range conforms(v, schema, "$") {
		t.Errorf("%s %s (%d): %s", method, docPath, status, p)
	}
}

// conforms lists every way v differs from schema: a type that is not the
// declared one, a key the schema does not have, a required key missing.
// JSON null conforms only to a schema marked nullable (OpenAPI 3.0 has no
// null type): a generated client types the field as its type alone, so an
// undocumented null is a mismatch like any other, reported as such.
func conforms(v any, schema map[string]any, at string) []string {
	var out []string
	if ref, ok := schema["$ref"].(string); ok {
		var doc openAPIDocument
		if err := json.Unmarshal(OpenAPIDocument(), &doc); err != nil {
			return []string{err.Error()}
		}
		resolved, ok := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: $ref %s resolves to nothing", at, ref)}
		}
		schema = resolved
	}
	typ, _ := schema["type"].(string)
	switch val := v.(type) {
	case nil:
		if schema["nullable"] != true {
			out = append(out, fmt.Sprintf("%s is null, documented as %q (not nullable)", at, typ))
		}
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
		if typ != "number" && (typ != "integer" || val != float64(int64(val))) {
			out = append(out, fmt.Sprintf("%s is the number %v, documented as %q", at, val, typ))
		}
	case bool:
		if typ != "boolean" {
			out = append(out, fmt.Sprintf("%s is a boolean, documented as %q", at, typ))
		}
	}
	return out
}

// The checker itself: a null where the document does not allow one is
// reported, and allowed where it does.
func TestConformsReportsUndocumentedNull(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"items": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"maybe": map[string]any{"type": "string", "nullable": true},
	}}
	got := conforms(map[string]any{"items": nil, "maybe": nil}, schema, "$")
	if len(got) != 1 || got[0] != `$.items is null, documented as "array" (not nullable)` {
		t.Errorf("conforms = %q", got)
	}
	if got := conforms(map[string]any{"items": []any{1.5}}, schema, "$"); len(got) != 1 {
		t.Errorf("a number in a string array: conforms = %q", got)
	}
}
