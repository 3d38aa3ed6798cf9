package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/inspect"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// The served document describes what the routes really answer: real
// responses, successes and errors, are checked against the schema each
// route names, key by key and type by type. (The overview and health
// score need live clusters: TestOverviewAndHealthOverConnectedClusters
// checks those.)
func TestOpenAPIDescribesRealResponses(t *testing.T) {
	e := newEnv(t, envOpts{inspector: fixedCluster{}})
	ctx := context.Background()
	check := func(method, path, docPath, token string, body any, want int) []byte {
		t.Helper()
		code, got := e.do(method, path, token, body)
		mustStatus(t, method+" "+path, code, got, want)
		mustMatchDoc(t, method, docPath, code, got)
		return got
	}

	check(http.MethodGet, "/healthz", "/healthz", "", nil, 200)
	check(http.MethodGet, "/readyz", "/readyz", "", nil, 200)
	check(http.MethodGet, "/api/v1/setup", "/api/v1/setup", "", nil, 200)
	code, body := e.setup(map[string]string{"email": "doc@example.com", "username": "doc-admin", "password": "doc-admin-pw-Zq8!x0"})
	mustStatus(t, "setup admin", code, body, 201)
	mustMatchDoc(t, http.MethodPost, "/api/v1/setup/admin", code, body)
	check(http.MethodGet, "/api/v1/session", "/api/v1/session", e.admin, nil, 200)

	cred := createAccessKey(t, e, "aws-doc")
	check(http.MethodGet, "/api/v1/providers", "/api/v1/providers", e.admin, nil, 200)
	check(http.MethodGet, "/api/v1/credentials", "/api/v1/credentials", e.admin, nil, 200)
	check(http.MethodGet, "/api/v1/credentials/"+cred.ID, "/api/v1/credentials/{id}", e.admin, nil, 200)

	seeded := seedRows(t, e, 2)
	host := decode[store.Cluster](t, check(http.MethodPost, "/api/v1/clusters/register-self", "/api/v1/clusters/register-self",
		e.admin, map[string]string{"name": "doc-host"}, 201))
	list := check(http.MethodGet, "/api/v1/clusters", "/api/v1/clusters", e.viewer, nil, 200)
	if l := decode[clusterList](t, list); len(l.Items) != len(seeded)+1 {
		t.Fatalf("the list checked has %d clusters, want %d: %s", len(l.Items), len(seeded)+1, list)
	}
	for _, c := range decode[clusterList](t, list).Items {
		one := check(http.MethodGet, "/api/v1/clusters/"+c.ID, "/api/v1/clusters/{id}", e.viewer, nil, 200)
		if c.ID == host.ID && !strings.Contains(string(one), `"nodes"`) {
			t.Errorf("the host's nodes were not in its answer, so not checked: %s", one)
		}
	}

	// A token that expires, then is revoked, so its optional times show.
	expires := time.Now().Add(time.Hour)
	doomed := &store.Token{Name: "doc-doomed", Role: string(Viewer), Hash: "doc-doomed-hash", ExpiresAt: &expires}
	if err := e.st.CreateToken(ctx, doomed); err != nil {
		t.Fatal(err)
	}
	check(http.MethodDelete, "/api/v1/tokens/"+doomed.ID, "/api/v1/tokens/{id}", e.admin, nil, 204)
	tokens := check(http.MethodGet, "/api/v1/tokens", "/api/v1/tokens", e.admin, nil, 200)
	if !strings.Contains(string(tokens), `"revokedAt"`) || !strings.Contains(string(tokens), `"expiresAt"`) {
		t.Errorf("the token list checked has no revoked or expiring token: %s", tokens)
	}
	audit := check(http.MethodGet, "/api/v1/audit?limit=1", "/api/v1/audit", e.admin, nil, 200)
	if p := decode[auditPage](t, audit); len(p.Items) != 1 || p.Next == "" {
		t.Errorf("the audit page checked has no event or no next page: %s", audit)
	}

	// Errors: a plain problem, and one naming fields.
	check(http.MethodGet, "/api/v1/clusters/no-such-id", "/api/v1/clusters/{id}", e.viewer, nil, 404)
	bad := check(http.MethodPost, "/api/v1/clusters/connect", "/api/v1/clusters/connect", e.admin, map[string]string{}, 400)
	if !strings.Contains(string(bad), `"fields"`) {
		t.Errorf("the problem checked names no fields: %s", bad)
	}
}

// fixedCluster is a cluster to register as the host, with a node breakdown
// using every field.
type fixedCluster struct{}

func (fixedCluster) Inspect(context.Context) (inspect.Inventory, error) {
	return inspect.Inventory{ClusterUID: "doc-uid", KubernetesVersion: "v1.31.0", Provider: "aws", Region: "eu-north-1",
		NodeCount: 1}, nil
}

func (fixedCluster) Nodes(context.Context) ([]inspect.NodeInfo, error) {
	return []inspect.NodeInfo{{Name: "cp-1", Ready: false, Roles: []string{"control-plane"}, Version: "v1.31.0",
		Conditions: []inspect.NodeCondition{{Type: "Ready", Status: "False", Reason: "KubeletNotReady", Message: "PLEG is not healthy"}},
		CPU:        inspect.Resource{Capacity: "4", Allocatable: "3800m"}, Memory: inspect.Resource{Capacity: "16Gi", Allocatable: "15Gi"}}}, nil
}

// Every $ref in the document names a schema it has, so a route naming a
// schema no Go type backs is caught here.
func TestOpenAPIRefsResolve(t *testing.T) {
	doc := parsedOpenAPI(t)
	var all any
	if err := json.Unmarshal(OpenAPIDocument(), &all); err != nil {
		t.Fatal(err)
	}
	refs := 0
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch val := v.(type) {
		case map[string]any:
			for k, x := range val {
				if k == "$ref" {
					refs++
					name, ok := strings.CutPrefix(x.(string), "#/components/schemas/")
					if _, found := doc.Components.Schemas[name]; !ok || !found {
						t.Errorf("%s: $ref %q resolves to nothing", at, x)
					}
				}
				walk(x, at+"/"+k)
			}
		case []any:
			for _, x := range val {
				walk(x, at+"[]")
			}
		}
	}
	walk(all, "#")
	if refs == 0 {
		t.Fatal("the document has no $ref at all")
	}
}

// The document stays OpenAPI 3.0.3: JSON Schema keywords the reflector
// could write but 3.0 does not know are absent.
func TestOpenAPIHasNoJSONSchemaOnlyKeywords(t *testing.T) {
	for _, kw := range []string{`"$schema"`, `"$id"`, `"$defs"`, `"type": "null"`, `"const"`} {
		if bytes.Contains(OpenAPIDocument(), []byte(kw)) {
			t.Errorf("the document has %s, which OpenAPI 3.0.3 does not allow", kw)
		}
	}
}
