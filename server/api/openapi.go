package api

import (
	"encoding/json"
	"net/http"
	"regexp"
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
		d := opDocs[routeKey(r)]
		op := map[string]any{"operationId": d.id, "tags": []string{d.tag}, "summary": r.summary,
			"description": operationDescription(r), "responses": responsesOf(r), "security": securityOf(r)}
		if ps := parametersOf(r); len(ps) > 0 {
			op["parameters"] = ps
		}
		if r.request != "" {
			op["requestBody"] = requestBodyOf(r)
		}
		paths[p][strings.ToLower(r.method)] = op
	}
	tagList := make([]any, 0, len(tags))
	for _, t := range tags {
		tagList = append(tagList, map[string]string{"name": t.name, "description": t.description})
	}
	doc := map[string]any{
		"openapi": "3.0.3",
		"info": map[string]any{"title": "KubeOpera API", "version": "v1",
			"description": "Manage the Kubernetes clusters a platform runs on: connect, provision, watch and tear them down.",
			"contact":     map[string]string{"name": "KubeOpera", "url": "https://github.com/ochestra-tech/kubeopera"}},
		"servers": []any{map[string]string{"url": "/", "description": "The KubeOpera server that serves this document"}},
		"tags":    tagList,
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": securitySchemes(),
			"schemas":         generatedSchemas(),
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}

// securitySchemes: scripts send a bearer token (kubeopera tokens create,
// kubeopera login); the dashboard a session cookie, with the session's CSRF
// token on every request that changes something; the installer the
// one-time setup secret.
func securitySchemes() map[string]any {
	return map[string]any{
		"bearer": map[string]string{"type": "http", "scheme": "bearer", "description": "An API token (kop_...)"},
		"session": map[string]string{"type": "apiKey", "in": "cookie", "name": sessionCookie,
			"description": "The dashboard's session, set by POST /api/v1/session"},
		"csrf": map[string]string{"type": "apiKey", "in": "header", "name": csrfHeader,
			"description": "The csrfToken of GET /api/v1/session; with the session cookie on every mutating request"},
		"setupSecret": map[string]string{"type": "apiKey", "in": "header", "name": SetupSecretHeader,
			"description": "The one-time setup secret from the server's data directory"},
	}
}

// securityOf is the security requirement of r: none for anonymous routes
// (an empty list, so a client sends no credentials), a bearer token or the
// session cookie for the others.
func securityOf(r route) []any {
	switch {
	case routeKey(r) == "POST /api/v1/setup/admin":
		return []any{map[string][]string{"setupSecret": {}}}
	case r.role == Anonymous:
		return []any{}
	case mutating(r.method):
		return []any{map[string][]string{"bearer": {}}, map[string][]string{"session": {}, "csrf": {}}}
	}
	return []any{map[string][]string{"bearer": {}}, map[string][]string{"session": {}}}
}

// requestSchema names r's request schema and whether its body may be left
// out: a trailing "?" in the route table marks a body the handler accepts
// empty.
func requestSchema(r route) (name string, optional bool) {
	return strings.CutSuffix(r.request, "?")
}

func requestBodyOf(r route) map[string]any {
	name, optional := requestSchema(r)
	content := map[string]any{"application/json": map[string]any{"schema": ref(name)}}
	if name == "ConnectRequest" {
		// The dashboard uploads a kubeconfig file: the same fields as a
		// form, the kubeconfig part a file or pasted text.
		content["multipart/form-data"] = map[string]any{"schema": ref(name)}
	}
	return map[string]any{"required": !optional, "content": content}
}

// pathParamRE finds fiber's path parameters (":id", ":tokenId").
var pathParamRE = regexp.MustCompile(`:([A-Za-z]+)`)

func openAPIPath(fiberPath string) string {
	return pathParamRE.ReplaceAllString(fiberPath, "{$1}")
}

func ref(name string) map[string]string {
	return map[string]string{"$ref": "#/components/schemas/" + name}
}

// responsesOf documents every status r can answer (statusesOf): its
// successes with the route's schema (none for 204), its errors as
// problems. There is no default: a status not listed is a fault of the
// server or the document, and the tests' response check fails on it.
func responsesOf(r route) map[string]any {
	out := map[string]any{}
	problemContent := map[string]any{"application/problem+json": map[string]any{"schema": ref("Problem")}}
	for _, status := range statusesOf(r) {
		resp := map[string]any{"description": http.StatusText(status)}
		if status == http.StatusInternalServerError {
			resp["description"] = "An unexpected error; the server log has its details under the request's ID"
		}
		switch {
		case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
			resp["content"] = problemContent
			resp["headers"] = map[string]any{"Retry-After": map[string]any{
				"description": "Seconds to wait before asking again (every 429 and 503 carries it)",
				"schema":      map[string]any{"type": "integer", "minimum": 1}}}
		case status >= 400:
			resp["content"] = problemContent
		case status != http.StatusNoContent:
			if c := successContent(r); c != nil {
				resp["content"] = c
			}
		}
		out[strconv.Itoa(status)] = resp
	}
	return out
}

// successContent is the body of r's success, by the route table, or what
// the two routes that serve something other than JSON objects send.
func successContent(r route) map[string]any {
	switch {
	case r.response != "":
		return map[string]any{"application/json": map[string]any{"schema": ref(r.response)}}
	case r.path == "/metrics":
		return map[string]any{"text/plain": map[string]any{"schema": map[string]string{"type": "string",
			"description": "Prometheus text exposition format"}}}
	case r.path == "/openapi.json":
		return map[string]any{"application/json": map[string]any{"schema": map[string]string{"type": "object",
			"description": "This document"}}}
	}
	return nil
}

func (s *server) serveOpenAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(openAPIDoc)
}
