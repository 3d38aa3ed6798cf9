package gitops

import (
	"strings"
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

// chart names one chart of a Helm repository and the exact release the
// tree installs.
type chart struct {
	repo    string // HelmRepository name
	url     string // https:// index, or oci:// for an OCI repository
	name    string
	version string // an exact release, never a range
	checked string // the day version was checked to be the newest release
}

// charts is every chart the tree may install, each pinned to one release;
// TestEveryChartComesFromTheTable holds the tree to it. A bump is an edit
// here with the day it was checked. cert-manager and Envoy Gateway
// publish each chart release with a Go module release of the same tag,
// which the tests read; the CloudNativePG charts were checked against the
// chart repository's Chart.yaml files (the chart repository's newest
// commit then was of 2026-07-20).
var (
	chartCertManager = chart{repo: "jetstack", url: "https://charts.jetstack.io",
		name: "cert-manager", version: "v1.21.2", checked: "2026-12-01"}
	// Envoy Gateway serves the tree's Gateway. Chosen because it is a
	// Gateway API implementation first (no Ingress or CRD routing of its
	// own to carry), maintained by the Envoy project (CNCF), conformant to
	// Gateway API's standard channel, ships Helm charts (OCI) with its CRDs
	// in a chart of their own, and needs no particular CNI (Cilium's
	// Gateway does). cert-manager's HTTP-01 gatewayHTTPRoute solver
	// attaches a route to its Gateway like any other.
	chartEnvoyGateway = chart{repo: "envoy-gateway", url: "oci://docker.io/envoyproxy",
		name: "gateway-helm", version: "v1.9.1", checked: "2026-12-01"}
	chartEnvoyGatewayCRDs = chart{repo: "envoy-gateway", url: "oci://docker.io/envoyproxy",
		name: "gateway-crds-helm", version: "v1.9.1", checked: "2026-12-01"}
	// ingress-nginx was retired on 2026-03-24 (no releases or security
	// fixes since); it is installed only for a cluster that asks for it,
	// at its last release (4.15.1, of 2026-03-20).
	chartIngressNginx = chart{repo: "ingress-nginx", url: "https://kubernetes.github.io/ingress-nginx",
		name: "ingress-nginx", version: "4.15.1", checked: "2026-12-01"}
	chartCNPGOperator = chart{repo: "cloudnative-pg", url: "https://cloudnative-pg.github.io/charts",
		name: "cloudnative-pg", version: "0.29.0", checked: "2026-12-01"}
	chartCNPGCluster = chart{repo: "cloudnative-pg", url: "https://cloudnative-pg.github.io/charts",
		name: "cluster", version: "0.8.1", checked: "2026-12-01"}
)

// pinnedCharts is the one table of charts, for the tests and the README.
var pinnedCharts = []chart{chartCertManager, chartEnvoyGatewayCRDs, chartEnvoyGateway,
	chartIngressNginx, chartCNPGOperator, chartCNPGCluster}

// Reconcile intervals of the Flux objects.
const (
	releaseInterval    = 30 * time.Minute
	repositoryInterval = 12 * time.Hour
)

// helmRepository is the Flux source of c's repository, in the Flux namespace.
func helmRepository(p Params, c chart) *sourcev1.HelmRepository {
	r := &sourcev1.HelmRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.HelmRepositoryKind},
		ObjectMeta: metav1.ObjectMeta{Name: c.repo, Namespace: p.FluxNamespace},
		Spec: sourcev1.HelmRepositorySpec{
			URL:      c.url,
			Interval: metav1.Duration{Duration: repositoryInterval},
		},
	}
	if strings.HasPrefix(c.url, "oci://") {
		r.Spec.Type = sourcev1.HelmRepositoryTypeOCI
	}
	return r
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
