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

const (
	testAccessKeyID = "AKIAIOSFODNN7EXAMPLE"
	testSecretKey   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

func createAccessKey(t *testing.T, e *env, label string) store.Credential {
	t.Helper()
	code, body := e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{
		"label": label, "kind": "access_key", "accessKeyId": testAccessKeyID, "secretAccessKey": testSecretKey})
	mustStatus(t, "create credential", code, body, 201)
	return decode[store.Credential](t, body)
}

func provisionBody(name, provider string, inputs map[string]string) map[string]any {
	return map[string]any{"name": name, "provider": provider, "inputs": inputs, "domain": "apps.example.com",
		"gitOpsRepoURL": "https://git.example.com/platform/gitops.git", "gitOpsPath": "clusters/" + name}
}

func TestProvision(t *testing.T) {
	e := newEnv(t, envOpts{management: true})
	cred := createAccessKey(t, e, "aws-prod")

	cases := []struct {
		name   string
		body   map[string]any
		status int
		says   string
		field  string
	}{
		{"soon provider", provisionBody("g1", "gcp-stub", nil), 422, "not available yet", ""},
		{"unknown provider", provisionBody("x1", "ibm", nil), 400, "no provider plugin", "provider"},
		{"plugin's own validation", provisionBody("v1", "aws-vanilla", map[string]string{
			"region": "eu-north-1", "credentialRef": cred.ID, "controlPlaneCount": "2", "apiAllowedCIDRs": "203.0.113.0/24"}), 400, "quorum", "inputs.controlPlaneCount"},
		{"unknown credential", provisionBody("v2", "aws-vanilla", map[string]string{
			"region": "eu-north-1", "credentialRef": "nope", "apiAllowedCIDRs": "203.0.113.0/24"}), 400, "no stored cloud credential", "inputs.credentialRef"},
		{"missing domain", map[string]any{"name": "v3", "provider": "aws-eks", "gitOpsRepoURL": "https://g/r.git"}, 400, "DNS name", "domain"},
		{"another team's credential", func() map[string]any {
			if _, err := e.st.CreateTeam(context.Background(), "team-b"); err != nil {
				t.Fatal(err)
			}
			b := provisionBody("v5", "aws-eks", map[string]string{"region": "eu-north-1", "credentialRef": cred.ID, "apiAllowedCIDRs": "203.0.113.0/24"})
			b["team"] = "team-b"
			return b
		}(), 400, "may use only its own team's credentials", "inputs.credentialRef"},
		{"a team that does not exist", func() map[string]any {
			b := provisionBody("v6", "aws-eks", map[string]string{"region": "eu-north-1", "credentialRef": cred.ID, "apiAllowedCIDRs": "203.0.113.0/24"})
			b["team"] = "nobody"
			return b
		}(), 400, "there is no team", "team"},
		{"admin email without username", func() map[string]any {
			b := provisionBody("v4", "aws-eks", map[string]string{"region": "eu-north-1", "credentialRef": cred.ID, "apiAllowedCIDRs": "203.0.113.0/24"})
			b["adminEmail"] = "ops@example.com"
			return b
		}(), 400, "both", "adminUsername"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, tc.body)
			p := decode[Problem](t, body)
			if code != tc.status || !strings.Contains(string(body), tc.says) {
				t.Fatalf("status %d, body %s; want %d saying %q", code, body, tc.status, tc.says)
			}
			if tc.field != "" && (len(p.Fields) == 0 || p.Fields[0].Field != tc.field) {
				t.Errorf("fields = %+v, want %s", p.Fields, tc.field)
			}
		})
	}

	code, body := e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, provisionBody("eks-1", "aws-eks",
		map[string]string{"region": "eu-north-1", "credentialRef": cred.ID, "nodeCount": "3", "apiAllowedCIDRs": "203.0.113.0/24"}))
	mustStatus(t, "provision", code, body, 202)
	row := decode[store.Cluster](t, body)
	if row.Source != store.SourceProvisionedEKS || row.Provider != "aws" || row.Region != "eu-north-1" ||
		row.CredentialID == nil || *row.CredentialID != cred.ID || row.Status != "Pending" {
		t.Errorf("row = %+v", row)
	}
	obj, err := dynamic.NewForConfigOrDie(e.sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace).
		Get(context.Background(), row.ID, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mode, _, _ := unstructured.NestedString(obj.Object, "spec", "mode")
	inputs, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "provisioning", "inputs")
	if mode != "provision_eks" || inputs["nodeCount"] != "3" || inputs["instanceType"] != "t3.medium" {
		t.Errorf("HostCluster mode %q, inputs %v (defaults filled in)", mode, inputs)
	}
	for k, v := range inputs {
		if strings.Contains(v, testSecretKey) {
			t.Errorf("the HostCluster carries the secret key in input %s", k)
		}
	}

	// The credential cannot go while the cluster provisions.
	code, body = e.do(http.MethodDelete, "/api/v1/credentials/"+cred.ID, e.admin, nil)
	if code != 409 || !strings.Contains(string(body), "eks-1") {
		t.Errorf("delete credential in use: %d %s", code, body)
	}
	if err := e.st.UpdateStatuses(context.Background(), []store.StatusUpdate{{ID: row.ID, Status: "Ready"}}); err != nil {
		t.Fatal(err)
	}
	code, body = e.do(http.MethodDelete, "/api/v1/credentials/"+cred.ID, e.admin, nil)
	if code != 409 || !strings.Contains(string(body), "eks-1 (Ready)") {
		t.Errorf("delete credential of a Ready cluster (its token refresh needs it): %d %s", code, body)
	}
	if err := e.st.DeleteCluster(context.Background(), row.ID); err != nil {
		t.Fatal(err)
	}
	code, body = e.do(http.MethodDelete, "/api/v1/credentials/"+cred.ID, e.admin, nil)
	mustStatus(t, "delete credential once no cluster uses it", code, body, 204)
}
