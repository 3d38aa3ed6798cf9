package gitops

import (
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The HelmRelease type below mirrors the fields of helm.toolkit.fluxcd.io/v2
// that the tree sets: github.com/fluxcd/helm-controller/api is not in go.mod.
// The sandbox test applies every HelmRelease against helm-controller's own
// CRD with strict field validation, so a misspelt field fails there.

// helmReleaseAPIVersion is the HelmRelease API the tree is written against.
const helmReleaseAPIVersion = "helm.toolkit.fluxcd.io/v2"

type helmRelease struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              helmReleaseSpec `json:"spec"`
}

type helmReleaseSpec struct {
	Interval        metav1.Duration `json:"interval"`
	Chart           helmChartHolder `json:"chart"`
	ReleaseName     string          `json:"releaseName"`
	TargetNamespace string          `json:"targetNamespace"`
	DependsOn       []dependency    `json:"dependsOn,omitempty"`
	Install         helmInstall     `json:"install"`
	Upgrade         helmUpgrade     `json:"upgrade"`
	Values          map[string]any  `json:"values,omitempty"`
}

type helmChartHolder struct {
	Spec helmChartSpec `json:"spec"`
}

type helmChartSpec struct {
	Chart     string          `json:"chart"`
	Version   string          `json:"version"`
	SourceRef sourceRef       `json:"sourceRef"`
	Interval  metav1.Duration `json:"interval"`
}

type sourceRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type dependency struct {
	Name string `json:"name"`
}

type helmInstall struct {
	CRDs        string      `json:"crds"`
	Remediation remediation `json:"remediation"`
}

type helmUpgrade struct {
	CRDs        string      `json:"crds"`
	Remediation remediation `json:"remediation"`
}

type remediation struct {
	Retries int `json:"retries"`
}

// chart names one chart of a Helm repository and the versions accepted.
type chart struct {
	repo    string // HelmRepository name
	url     string
	name    string
	version string // semver range: patch releases are taken, nothing newer
}

// The charts the tree installs. Versions are semver ranges over patch
// releases of a minor known to exist; bump them here.
var (
	chartCertManager = chart{repo: "jetstack", url: "https://charts.jetstack.io",
		name: "cert-manager", version: "1.18.x"}
	chartIngressNginx = chart{repo: "ingress-nginx", url: "https://kubernetes.github.io/ingress-nginx",
		name: "ingress-nginx", version: "4.13.x"}
	chartCNPGOperator = chart{repo: "cloudnative-pg", url: "https://cloudnative-pg.github.io/charts",
		name: "cloudnative-pg", version: "0.27.x"}
	chartCNPGCluster = chart{repo: "cloudnative-pg", url: "https://cloudnative-pg.github.io/charts",
		name: "cluster", version: "0.3.x"}
)

// Reconcile intervals of the Flux objects.
const (
	releaseInterval    = 30 * time.Minute
	repositoryInterval = 12 * time.Hour
)

// helmRepository is the Flux source of c's repository, in the Flux namespace.
func helmRepository(p Params, c chart) *sourcev1.HelmRepository {
	return &sourcev1.HelmRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.HelmRepositoryKind},
		ObjectMeta: metav1.ObjectMeta{Name: c.repo, Namespace: p.FluxNamespace},
		Spec: sourcev1.HelmRepositorySpec{
			URL:      c.url,
			Interval: metav1.Duration{Duration: repositoryInterval},
		},
	}
}

// release is a HelmRelease of c named name, installed into namespace with
// the same release name. It lives in the Flux namespace beside its
// HelmRepository, so it works where cross-namespace references are off.
// CRDs shipped in a chart's crds/ directory are created and upgraded.
func release(p Params, name, namespace string, c chart, values map[string]any, dependsOn ...string) *helmRelease {
	r := &helmRelease{
		TypeMeta:   metav1.TypeMeta{APIVersion: helmReleaseAPIVersion, Kind: "HelmRelease"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.FluxNamespace},
		Spec: helmReleaseSpec{
			Interval: metav1.Duration{Duration: releaseInterval},
			Chart: helmChartHolder{Spec: helmChartSpec{
				Chart: c.name, Version: c.version,
				SourceRef: sourceRef{Kind: sourcev1.HelmRepositoryKind, Name: c.repo},
				Interval:  metav1.Duration{Duration: repositoryInterval},
			}},
			ReleaseName:     name,
			TargetNamespace: namespace,
			Install:         helmInstall{CRDs: "CreateReplace", Remediation: remediation{Retries: 3}},
			Upgrade:         helmUpgrade{CRDs: "CreateReplace", Remediation: remediation{Retries: 3}},
			Values:          values,
		},
	}
	for _, d := range dependsOn {
		r.Spec.DependsOn = append(r.Spec.DependsOn, dependency{Name: d})
	}
	return r
}
