package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// PATCH /clusters/{id} is checked against the cluster's plugin before
// anything is written: 409 with the reason for a change the plugin cannot
// make (no "upgrade" for local, a connected cluster, a cluster not
// Ready), 422 for a value outside the plugin's bounds (local's 10 nodes,
// aws-eks's 100); an accepted change sets the HostCluster's desired fields, puts
// the row in Updating and is in the audit log.
func TestPatchClusterChecksThePluginFirst(t *testing.T) {
	e := newEnv(t, envOpts{management: true})
	ctx := context.Background()
	code, body := e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, provisionBody("dev", "local", map[string]string{"nodeCount": "2"}))
	mustStatus(t, "provision", code, body, 202)
	local := decode[store.Cluster](t, body)
	patch := func(id, body string) (int, string) {
		code, b := e.do(http.MethodPatch, "/api/v1/clusters/"+id, e.admin, body)
		return code, string(b)
	}
	if code, body := patch(local.ID, `{"nodeCount":3}`); code != 409 || !strings.Contains(body, "change it once it is Ready") {
		t.Errorf("scale while provisioning: %d %s; want 409", code, body)
	}
	if code, body := e.do(http.MethodDelete, "/api/v1/clusters/"+local.ID, e.admin, nil); code != 409 || !strings.Contains(string(body), "still being provisioned") {
		t.Errorf("disconnect of a local cluster being provisioned: %d %s; want 409 (every provisioned source)", code, body)
	}
	setPhase(t, e, local.ID, "Ready", "KubeOpera installed")
	waitUntil(t, "Ready reaches the row", func() bool { return mustGet(t, e, local.ID).Status == "Ready" })

	cred := createAccessKey(t, e, "aws-prod")
	code, body = e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, provisionBody("eks", "aws-eks",
		map[string]string{"region": "eu-north-1", "credentialRef": cred.ID, "nodeCount": "3", "apiAllowedCIDRs": "203.0.113.0/24"}))
	mustStatus(t, "provision", code, body, 202)
	eks := decode[store.Cluster](t, body)
	setPhase(t, e, eks.ID, "Ready", "KubeOpera installed")
	waitUntil(t, "Ready reaches the row", func() bool { return mustGet(t, e, eks.ID).Status == "Ready" })

	for _, c := range []struct {
		name, id, body string
		code           int
		says           string
	}{
		{"upgrade of a local cluster", local.ID, `{"kubernetesVersion":"1.38"}`, 409, `no \"upgrade\" capability`},
		{"too many nodes for EKS", eks.ID, `{"nodeCount":101}`, 422, "nodeCount: must be between 1 and 100"},
		{"too many nodes", local.ID, `{"nodeCount":11}`, 422, "nodeCount: must be between 1 and 10"},
		{"nothing asked", local.ID, `{}`, 400, "give nodeCount, kubernetesVersion or both"},
		{"a word for a count", local.ID, `{"nodeCount":"three"}`, 400, ""},
	} {
		if code, body := patch(c.id, c.body); code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s; want %d saying %q", c.name, code, body, c.code, c.says)
		}
	}
	if code, _ := e.do(http.MethodPatch, "/api/v1/clusters/"+local.ID, e.viewer, `{"nodeCount":3}`); code != 403 {
		t.Errorf("a viewer's change: %d, want 403", code)
	}
	hcs := dynamic.NewForConfigOrDie(e.sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace)
	if obj, _ := hcs.Get(ctx, local.ID, metav1.GetOptions{}); obj != nil {
		if _, found, _ := unstructured.NestedInt64(obj.Object, "spec", "nodeCount"); found {
			t.Fatalf("a refused change reached the HostCluster: %v", obj.Object["spec"])
		}
	}

	code, body = e.do(http.MethodPatch, "/api/v1/clusters/"+local.ID, e.admin, `{"nodeCount":3}`)
	mustStatus(t, "scale", code, body, 202)
	if r := decode[lifecycleResponse](t, body); r.Status != "Updating" {
		t.Errorf("answer %+v, want Updating", r)
	}
	obj, err := hcs.Get(ctx, local.ID, metav1.GetOptions{})
	if n, _, _ := unstructured.NestedInt64(obj.Object, "spec", "nodeCount"); err != nil || n != 3 {
		t.Errorf("HostCluster spec.nodeCount %d (%v), want 3", n, err)
	}
	code, body = e.do(http.MethodGet, "/api/v1/audit?target="+local.ID, e.admin, nil)
	if code != 200 || !strings.Contains(string(body), `"method":"PATCH"`) {
		t.Errorf("audit of the change: %d %s", code, body)
	}
}
