package api

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Fields the pipeline acts on are checked before anything is stored:
// topology, the path in the repository, Secret names, and credentials in
// the repository URL (refused, pointing at the git credentials Secret).
func TestPipelineFieldsAreValidated(t *testing.T) {
	e := newEnv(t, envOpts{})
	connect := func(fields map[string]string) map[string]string {
		b := map[string]string{"name": "c1", "provider": "aws", "domain": "apps.example.com",
			"gitOpsRepoURL": "https://git.example.com/fleet.git", "kubeconfig": goodKubeconfig}
		for k, v := range fields {
			b[k] = v
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		fields map[string]string
		field  string
	}{
		{"a token in the repository URL", map[string]string{"gitOpsRepoURL": "https://x-access-token:ghp_SECRET123@github.com/o/r.git"}, "gitOpsRepoURL"},
		{"a user in an https URL", map[string]string{"gitOpsRepoURL": "https://ghp_SECRET123@github.com/o/r.git"}, "gitOpsRepoURL"},
		{"a path climbing out", map[string]string{"gitOpsPath": "clusters/../../etc"}, "gitOpsPath"},
		{"an absolute path", map[string]string{"gitOpsPath": "/clusters/prod"}, "gitOpsPath"},
		{"a Secret ref with a slash", map[string]string{"gitCredentialsSecretRef": "other-ns/creds"}, "gitCredentialsSecretRef"},
		{"a Secret ref with ..", map[string]string{"registryPullSecretRef": "a..b"}, "registryPullSecretRef"},
	} {
		code, body := e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin, connect(tc.fields))
		p := decode[Problem](t, body)
		var fields []string
		for _, f := range p.Fields {
			fields = append(fields, f.Field)
		}
		if code != 400 || !slices.Contains(fields, tc.field) {
			t.Errorf("%s: %d %s, want 400 naming %s", tc.name, code, body, tc.field)
		}
		if strings.Contains(string(body), "ghp_SECRET123") {
			t.Errorf("%s: the response repeats the credential: %s", tc.name, body)
		}
	}
	if p := checkGitURLCredentials("f", "https://x:y@h/r.git"); p == nil || !strings.Contains(p.Message, "gitCredentialsSecretRef") {
		t.Errorf("the refusal does not point at the git credentials Secret: %+v", p)
	}
	for _, ok := range []string{"ssh://git@github.com/o/r.git", "git@github.com:o/r.git", "https://github.com/o/r.git"} {
		if p := checkGitURLCredentials("f", ok); p != nil {
			t.Errorf("%s refused: %v", ok, p.Message)
		}
	}
	if checkRepoPath("f", "clusters/prod") != nil || checkSecretRef("f", "git-credentials") != nil {
		t.Error("a good path or Secret name was refused")
	}

	body := provisionBody("p1", "aws-eks", map[string]string{"region": "eu-north-1"})
	body["topology"] = "no-such-topology"
	code, resp := e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, body)
	if code != 400 || !strings.Contains(string(resp), `"topology"`) {
		t.Errorf("unknown topology: %d %s", code, resp)
	}
}
