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
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
				"application/json": map[string]any{"schema": ref(r.request)}}}
		}
		paths[p][strings.ToLower(r.method)] = op
	}
	doc := map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]string{"title": "KubeOpera API", "version": "v1"},
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]string{"type": "http", "scheme": "bearer"}},
			"schemas":         allSchemas(),
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
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

func obj(props map[string]string, required ...string) map[string]any {
	p := map[string]any{}
	for name, typ := range props {
		switch {
		case strings.HasPrefix(typ, "[]"):
			p[name] = map[string]any{"type": "array", "items": ref(typ[2:])}
		case strings.HasPrefix(typ, "#"):
			p[name] = ref(typ[1:])
		case typ == "map":
			p[name] = map[string]any{"type": "object", "additionalProperties": map[string]string{"type": "string"}}
		default:
			p[name] = map[string]string{"type": typ}
		}
	}
	out := map[string]any{"type": "object", "properties": p}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

var schemas = map[string]any{
	"Health": obj(map[string]string{"status": "string"}),
	"Problem": obj(map[string]string{"type": "string", "title": "string", "status": "integer", "detail": "string",
		"fields": "[]FieldProblem"}),
	"FieldProblem": obj(map[string]string{"field": "string", "message": "string"}),
	"Cluster": obj(map[string]string{"id": "string", "name": "string", "provider": "string", "region": "string",
		"source": "string", "plugin": "string", "is_host": "boolean", "status": "string", "message": "string", "kubernetes_version": "string",
		"node_count": "integer", "ready_node_count": "integer", "cluster_uid": "string", "credential_id": "string",
		"created_at": "string", "updated_at": "string", "badge": "string", "nodes": "[]Node", "nodesError": "string"}),
	"Node": obj(map[string]string{"name": "string", "ready": "boolean", "version": "string"}),
	"HealthScore": obj(map[string]string{"score": "number", "badge": "string", "findings": "[]Finding", "usageSource": "string",
		"cpuPercent": "number", "memoryPercent": "number"}),
	"Finding":  obj(map[string]string{"rule": "string", "subject": "string", "penalty": "number", "detail": "string"}),
	"Overview": obj(map[string]string{"summary": "#OverviewSummary", "clusters": "[]OverviewRow"}),
	"OverviewSummary": obj(map[string]string{"clusters": "integer", "healthy": "integer", "nodesReady": "integer",
		"nodesTotal": "integer", "averageCpuPercent": "number", "monthlyCost": "number", "currency": "string"}),
	"OverviewRow": obj(map[string]string{"id": "string", "name": "string", "reachable": "boolean", "error": "string",
		"score": "number", "badge": "string", "nodesReady": "integer", "nodesTotal": "integer", "cpuPercent": "number",
		"memoryPercent": "number", "monthlyCost": "number", "unpricedNodes": "integer"}),
	"ClusterList": obj(map[string]string{"items": "[]Cluster", "continue": "string", "hostRegistered": "boolean"}),

	"TeardownRequest":   obj(map[string]string{"confirmName": "string"}, "confirmName"),
	"LifecycleResponse": obj(map[string]string{"id": "string", "name": "string", "status": "string", "message": "string"}),

	"ConnectRequest": obj(withPipeline(map[string]string{"name": "string", "provider": "string", "region": "string",
		"kubeconfig": "string", "isHost": "boolean"}), "name", "provider", "kubeconfig", "domain", "gitOpsRepoURL"),
	"ProvisionRequest": obj(withPipeline(map[string]string{"name": "string", "provider": "string", "topology": "string",
		"inputs": "map"}), "name", "provider", "inputs", "domain", "gitOpsRepoURL"),
	"SetupStatus":         obj(map[string]string{"adminExists": "boolean"}, "adminExists"),
	"SetupAdminRequest":   obj(map[string]string{"email": "string", "username": "string", "password": "string"}, "email", "username", "password"),
	"SetupAdmin":          obj(map[string]string{"id": "string", "email": "string", "username": "string", "createdAt": "string"}),
	"RegisterSelfRequest": obj(map[string]string{"name": "string"}),
	"Token": obj(map[string]string{"id": "string", "name": "string", "role": "string", "createdAt": "string",
		"lastUsedAt": "string", "expiresAt": "string", "revokedAt": "string", "active": "boolean"}),
	"TokenList": obj(map[string]string{"items": "[]Token"}),
	"AuditEvent": obj(map[string]string{"id": "string", "at": "string", "actor": "string", "actorId": "string",
		"method": "string", "route": "string", "target": "string", "status": "integer", "requestId": "string"}),
	"AuditPage": obj(map[string]string{"items": "[]AuditEvent", "next": "string"}),
}

// allSchemas is the hand-written schemas with the generated ones in place
// of those of the same name.
func allSchemas() map[string]any {
	out := make(map[string]any, len(schemas))
	for k, v := range schemas {
		out[k] = v
	}
	for k, v := range generatedSchemas() {
		out[k] = v
	}
	return out
}

func (s *server) serveOpenAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(openAPIDoc)
}

// withPipeline adds the fields of pipelineRequest, which connect and
// provision share.
func withPipeline(fields map[string]string) map[string]string {
	for _, f := range []string{"domain", "gitOpsRepoURL", "gitOpsPath", "gitCredentialsSecretRef", "registryPullSecretRef",
		"adminEmail", "adminUsername"} {
		fields[f] = "string"
	}
	return fields
}
