package api

import (
	"fmt"
	"strings"
)

// PipelineDefaults are the platform's answers to what connect and
// provision may leave out, so a request needs only what the product asks
// (name, provider, region, kubeconfig or inputs). Domain and GitOpsPath
// are templates in which {name} is the cluster's name.
type PipelineDefaults struct {
	GitOpsRepoURL string
	// GitOpsPath, e.g. clusters/{name}.
	GitOpsPath string
	// Domain, e.g. {name}.apps.example.com.
	Domain string
	// GitCredentialsSecretRef is the Secret with the default repository's
	// credentials: used only with that repository, since another one's
	// credentials are not these.
	GitCredentialsSecretRef string
}

// NameVar is replaced by the cluster's name in a default template.
const NameVar = "{name}"

// fill returns r with its empty fields set from the defaults, for a
// cluster called name. Without a name the templates are not applied: a
// domain made from no name would draw an error about a value the user
// never typed.
func (d PipelineDefaults) fill(r pipelineRequest, name string) pipelineRequest {
	if r.GitOpsRepoURL == "" && d.GitOpsRepoURL != "" {
		r.GitOpsRepoURL = d.GitOpsRepoURL
		if r.GitCredentialsSecretRef == "" {
			r.GitCredentialsSecretRef = d.GitCredentialsSecretRef
		}
	}
	if name == "" {
		return r
	}
	if r.GitOpsPath == "" {
		r.GitOpsPath = strings.ReplaceAll(d.GitOpsPath, NameVar, name)
	}
	if r.Domain == "" {
		r.Domain = strings.ReplaceAll(d.Domain, NameVar, name)
	}
	return r
}

// Check refuses defaults no request could use, naming the setting to
// mend: each set one must pass the request's own checks for a cluster
// named example.
func (d PipelineDefaults) Check() error {
	r := d.fill(pipelineRequest{}, "example")
	settings := map[string]string{"domain": "the default domain", "gitOpsRepoURL": "the default GitOps repository URL",
		"gitOpsPath": "the default GitOps path", "gitCredentialsSecretRef": "the default git credentials Secret"}
	set := map[string]bool{"domain": d.Domain != "", "gitOpsRepoURL": d.GitOpsRepoURL != "",
		"gitOpsPath": d.GitOpsPath != "", "gitCredentialsSecretRef": d.GitCredentialsSecretRef != ""}
	for _, p := range r.checks() {
		if p != nil && set[p.Field] {
			return fmt.Errorf("%s %s", settings[p.Field], p.Message)
		}
	}
	if d.GitCredentialsSecretRef != "" && d.GitOpsRepoURL == "" {
		return fmt.Errorf("the default git credentials Secret needs a default GitOps repository URL: it is used only with that repository")
	}
	return nil
}
