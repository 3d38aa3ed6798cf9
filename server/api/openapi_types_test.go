package api

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/invopop/jsonschema"
)

// A request lists as required what its handler refuses to go without, and
// nothing else; a response lists what encoding/json always writes, never
// an omitempty field.
func TestOpenAPIRequiredFields(t *testing.T) {
	schemas := parsedOpenAPI(t).Components.Schemas
	for name, want := range map[string][]string{
		"ConnectRequest":      {"domain", "gitOpsRepoURL", "kubeconfig", "name", "provider"},
		"ProvisionRequest":    {"domain", "gitOpsRepoURL", "name", "provider"},
		"TeardownRequest":     {"confirmName"},
		"RegisterSelfRequest": nil,
		"SetupAdminRequest":   {"email", "password", "username"},
		"SignInRequest":       {"password", "username"},
		"CredentialRequest":   {"kind", "label"},
		"Session":             {"csrfToken", "user"},
		"SessionUser":         {"role", "username"},
		"Token":               {"active", "createdAt", "id", "name", "role"},
		"Problem":             {"code", "detail", "status", "title", "type"},
	} {
		var got []string
		req, _ := schemas[name].(map[string]any)["required"].([]any)
		for _, r := range req {
			got = append(got, r.(string))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s requires %v, want %v", name, got, want)
		}
	}
	cluster := schemas["Cluster"].(map[string]any)
	for _, optional := range []string{"plugin", "cluster_uid", "credential_id", "nodes", "nodesError"} {
		if slices.Contains(cluster["required"].([]any), any(optional)) {
			t.Errorf("Cluster requires %s, which is omitempty", optional)
		}
	}
	if got := cluster["properties"].(map[string]any)["created_at"]; !reflect.DeepEqual(got, map[string]any{"type": "string", "format": "date-time"}) {
		t.Errorf("Cluster.created_at = %v, want a date-time string", got)
	}
	// register-self takes an empty body (the name defaults to "host");
	// the bodies of the other requests are required.
	paths := parsedOpenAPI(t).Paths
	for path, want := range map[string]bool{"/api/v1/clusters/register-self": false, "/api/v1/clusters/connect": true,
		"/api/v1/clusters/{id}/teardown": true} {
		body, _ := paths[path]["post"]["requestBody"].(map[string]any)
		if body["required"] != want {
			t.Errorf("POST %s: requestBody.required = %v, want %v", path, body["required"], want)
		}
	}
}

// A field tagged jsonschema:"nullable" comes out as OpenAPI 3.0's nullable,
// not JSON Schema's oneOf with a null type, which 3.0 does not have.
func TestReflectSchemaWritesNullableAsOpenAPI30(t *testing.T) {
	type withNull struct {
		At   *time.Time `json:"at" jsonschema:"nullable"`
		Name string     `json:"name"`
	}
	s := reflectSchema(&jsonschema.Reflector{DoNotReference: true, Anonymous: true}, withNull{})
	at := s["properties"].(map[string]any)["at"].(map[string]any)
	if at["nullable"] != true || at["oneOf"] != nil || at["type"] == nil {
		t.Errorf("at = %v, want its type with nullable: true", at)
	}
}
