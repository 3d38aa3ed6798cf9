package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// openAPIDoc is built from the route table, so every route is documented
// and nothing undocumented is routed. (Built in init: the table refers to
// serveOpenAPI, so a variable initializer would be a cycle.)
var openAPIDoc []byte

func init() { openAPIDoc = buildOpenAPI() }

func buildOpenAPI() []byte {
	paths := map[string]map[string]any{}
	for _, r := range routes {
		p := openAPIPath(r.path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		op := map[string]any{"summary": r.summary, "responses": responsesOf(r)}
		if r.role != Anonymous {
			op["security"] = []any{map[string]any{"bearer": []string{}}}
			op["description"] = "Needs the " + string(r.role) + " role."
		}
		if strings.Contains(r.path, ":id") {
			op["parameters"] = []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]string{"type": "string"}}}
		}
		if r.request != "" {
			name, optional := requestSchema(r)
			op["requestBody"] = map[string]any{"required": !optional, "content": map[string]any{
				"application/json": map[string]any{"schema": ref(name)}}}
		}
		paths[p][strings.ToLower(r.method)] = op
	}
	doc := map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]string{"title": "KubeOpera API", "version": "v1"},
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]string{"type": "http", "scheme": "bearer"}},
			"schemas":         generatedSchemas(),
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}

// requestSchema names r's request schema and whether its body may be left
// out: a trailing "?" in the route table marks a body the handler accepts
// empty.
func requestSchema(r route) (name string, optional bool) {
	return strings.CutSuffix(r.request, "?")
}

func openAPIPath(fiberPath string) string {
	return strings.ReplaceAll(fiberPath, ":id", "{id}")
}

func ref(name string) map[string]string {
	return map[string]string{"$ref": "#/components/schemas/" + name}
}

func responsesOf(r route) map[string]any {
	ok := map[string]any{"description": http.StatusText(r.status)}
	if r.response != "" {
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": ref(r.response)}}
	}
	out := map[string]any{strconv.Itoa(r.status): ok,
		"default": map[string]any{"description": "an error", "content": map[string]any{
			"application/problem+json": map[string]any{"schema": ref("Problem")}}}}
	return out
}

func (s *server) serveOpenAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(openAPIDoc)
}
