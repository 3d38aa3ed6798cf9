package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/ochestra-tech/kubeopera/server/hostclusters"
)

var devDefaults = PipelineDefaults{GitOpsRepoURL: "https://git.example.com/fleet.git", GitOpsPath: "clusters/{name}",
	Domain: "{name}.apps.example.com", GitCredentialsSecretRef: "fleet-git"}

func TestPipelineDefaultsFill(t *testing.T) {
	cases := []struct {
		name     string
		defaults PipelineDefaults
		cluster  string
		req, out pipelineRequest
	}{
		{"an empty request takes every default, {name} expanded", devDefaults, "prod-1", pipelineRequest{},
			pipelineRequest{GitOpsRepoURL: "https://git.example.com/fleet.git", GitOpsPath: "clusters/prod-1",
				Domain: "prod-1.apps.example.com", GitCredentialsSecretRef: "fleet-git"}},
		{"what the request says wins", devDefaults, "prod-1",
			pipelineRequest{Domain: "kube.acme.com", GitOpsPath: "here", GitCredentialsSecretRef: "mine"},
			pipelineRequest{GitOpsRepoURL: "https://git.example.com/fleet.git", GitOpsPath: "here",
				Domain: "kube.acme.com", GitCredentialsSecretRef: "mine"}},
		{"another repository does not get the default repository's credentials", devDefaults, "prod-1",
			pipelineRequest{GitOpsRepoURL: "https://git.acme.com/ops.git"},
			pipelineRequest{GitOpsRepoURL: "https://git.acme.com/ops.git", GitOpsPath: "clusters/prod-1", Domain: "prod-1.apps.example.com"}},
		{"without a name only the repository is filled", devDefaults, "", pipelineRequest{},
			pipelineRequest{GitOpsRepoURL: "https://git.example.com/fleet.git", GitCredentialsSecretRef: "fleet-git"}},
		{"no defaults leave the request as it is", PipelineDefaults{}, "prod-1", pipelineRequest{AdminEmail: "a@b.co"},
			pipelineRequest{AdminEmail: "a@b.co"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.defaults.fill(tc.req, tc.cluster); got != tc.out {
				t.Errorf("fill = %+v, want %+v", got, tc.out)
			}
		})
	}
}

func TestPipelineDefaultsCheck(t *testing.T) {
	cases := []struct {
		name     string
		defaults PipelineDefaults
		says     string // "" means accepted
	}{
		{"none", PipelineDefaults{}, ""},
		{"all, as kubeopera dev sets them", devDefaults, ""},
		{"a domain that is no DNS name", PipelineDefaults{Domain: "{name}_apps"}, "the default domain must be a DNS name"},
		{"a repository URL that is none", PipelineDefaults{GitOpsRepoURL: "git.example.com/fleet"}, "the default GitOps repository URL must be"},
		{"a repository URL with a password", PipelineDefaults{GitOpsRepoURL: "https://u:p@git.example.com/f.git"}, "must not carry credentials"},
		{"a path out of the repository", PipelineDefaults{GitOpsPath: "../{name}"}, "the default GitOps path must be a relative path"},
		{"a Secret name that is none", PipelineDefaults{GitOpsRepoURL: "https://g.example.com/r.git", GitCredentialsSecretRef: "Git Creds"}, "the default git credentials Secret must be"},
		{"a Secret without a repository", PipelineDefaults{GitCredentialsSecretRef: "git"}, "needs a default GitOps repository URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.defaults.Check()
			if tc.says == "" && err != nil || tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)) {
				t.Errorf("Check = %v, want %q", err, tc.says)
			}
		})
	}
}

// A provision request with only a name, a provider and its inputs gets a
// HostCluster with the platform's repository, path, domain and Secret.
func TestProvisionTakesThePlatformDefaults(t *testing.T) {
	e := newEnv(t, envOpts{management: true, defaults: devDefaults})
	cred := createAccessKey(t, e, "aws-defaults")
	code, body := e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, map[string]any{"name": "short-1", "provider": "aws-eks",
		"inputs": map[string]string{"region": "eu-north-1", "credentialRef": cred.ID, "apiAllowedCIDRs": "203.0.113.0/24"}})
	mustStatus(t, "provision without pipeline fields", code, body, 202)
	id := decode[clusterView](t, body).ID
	obj, err := dynamic.NewForConfigOrDie(e.sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace).
		Get(context.Background(), id, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := obj.Object["spec"].(map[string]any)
	want := map[string]string{"gitOpsRepoURL": "https://git.example.com/fleet.git", "gitOpsPath": "clusters/short-1",
		"domain": "short-1.apps.example.com", "gitCredentialsSecretRef": "fleet-git"}
	for k, v := range want {
		if spec[k] != v {
			t.Errorf("spec.%s = %v, want %s", k, spec[k], v)
		}
	}
}
