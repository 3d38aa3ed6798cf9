package api

import (
	"regexp"

	"github.com/ochestra-tech/kubeopera/server/hostclusters"
)

// pipelineRequest is what the shared pipeline needs of every onboarded
// cluster, connected or provisioned: where its GitOps tree goes, the
// domain KubeOpera is published on, image pulls and the first admin.
type pipelineRequest struct {
	Domain                  string `json:"domain" form:"domain" jsonschema:"required"`
	GitOpsRepoURL           string `json:"gitOpsRepoURL" form:"gitOpsRepoURL" jsonschema:"required"`
	GitOpsPath              string `json:"gitOpsPath" form:"gitOpsPath"`
	GitCredentialsSecretRef string `json:"gitCredentialsSecretRef" form:"gitCredentialsSecretRef"`
	RegistryPullSecretRef   string `json:"registryPullSecretRef" form:"registryPullSecretRef"`
	AdminEmail              string `json:"adminEmail" form:"adminEmail"`
	AdminUsername           string `json:"adminUsername" form:"adminUsername"`
}

var (
	domainRE = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)
	gitURLRE = regexp.MustCompile(`^(https://|ssh://|git@)[^\s]+$`)
	emailRE  = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
)

// checks returns a problem per bad field; the domain and repository are
// required, the admin needs both its fields or neither.
func (r pipelineRequest) checks() []*FieldProblem {
	var checks []*FieldProblem
	if !domainRE.MatchString(r.Domain) {
		checks = append(checks, &FieldProblem{"domain", "must be a DNS name such as apps.example.com: KubeOpera's services are published under it"})
	}
	if !gitURLRE.MatchString(r.GitOpsRepoURL) {
		checks = append(checks, &FieldProblem{"gitOpsRepoURL", "must be an https:// or ssh:// (or git@) URL of the repository the GitOps tree is pushed to"})
	}
	checks = append(checks, checkGitURLCredentials("gitOpsRepoURL", r.GitOpsRepoURL), checkRepoPath("gitOpsPath", r.GitOpsPath),
		checkSecretRef("gitCredentialsSecretRef", r.GitCredentialsSecretRef), checkSecretRef("registryPullSecretRef", r.RegistryPullSecretRef))
	if r.AdminEmail != "" && !emailRE.MatchString(r.AdminEmail) {
		checks = append(checks, &FieldProblem{"adminEmail", "is not an email address"})
	}
	if (r.AdminEmail == "") != (r.AdminUsername == "") {
		checks = append(checks, &FieldProblem{"adminUsername", "set both adminEmail and adminUsername to create the first admin, or neither"})
	}
	return checks
}

// apply copies the request into a HostCluster spec.
func (r pipelineRequest) apply(s *hostclusters.Spec) {
	s.Domain, s.GitOpsRepoURL, s.GitOpsPath = r.Domain, r.GitOpsRepoURL, r.GitOpsPath
	s.GitCredentialsSecretRef, s.RegistryPullSecretRef = r.GitCredentialsSecretRef, r.RegistryPullSecretRef
	s.AdminEmail, s.AdminUsername = r.AdminEmail, r.AdminUsername
}
