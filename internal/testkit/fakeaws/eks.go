package fakeaws

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// EKS version statuses, as DescribeClusterVersions answers them.
const (
	StandardSupport = "STANDARD_SUPPORT"
	ExtendedSupport = "EXTENDED_SUPPORT"
	Unsupported     = "UNSUPPORTED"
)

// ClusterVersion is one Kubernetes version the fake EKS offers.
type ClusterVersion struct {
	Version string
	Status  string
}

// DefaultClusterVersions are what EKS offered on 2026-11-30.
var DefaultClusterVersions = []ClusterVersion{
	{"1.36", StandardSupport}, {"1.35", StandardSupport}, {"1.34", StandardSupport},
	{"1.33", ExtendedSupport}, {"1.32", ExtendedSupport},
}

// AddonVersion is one version of an add-on and the Kubernetes minors it
// runs on.
type AddonVersion struct {
	Addon, Version string
	Minors         []string
}

// DefaultAddonVersions are the add-on versions a new fake EKS offers: the
// builds the plugins pin (EBS CSI driver, vpc-cni, kube-proxy, CoreDNS),
// each for the minors it is pinned for and some more.
var DefaultAddonVersions = []AddonVersion{
	{"aws-ebs-csi-driver", "v1.64.0-eksbuild.1", []string{"1.36", "1.35", "1.34", "1.33", "1.32"}},
	{"vpc-cni", "v1.21.1-eksbuild.1", []string{"1.36", "1.35", "1.34", "1.33", "1.32"}},
	{"kube-proxy", "v1.35.0-eksbuild.2", []string{"1.35"}},
	{"kube-proxy", "v1.36.0-eksbuild.1", []string{"1.36"}},
	{"coredns", "v1.13.1-eksbuild.1", []string{"1.35", "1.34"}},
	{"coredns", "v1.13.2-eksbuild.1", []string{"1.36", "1.35"}},
}

// EKS is a fake Amazon EKS speaking its REST-JSON protocol:
// DescribeClusterVersions (GET /cluster-versions), DescribeAddonVersions
// (GET /addons/supported-versions), DescribeAddonConfiguration (GET
// /addons/configuration-schemas, eksaddon.go) and DescribeCluster (GET
// /clusters/{name}, eksaddon.go).
type EKS struct {
	iam *IAM

	mu       sync.Mutex
	versions []ClusterVersion
	addons   []AddonVersion
	clusters map[string]Cluster
	schemas  map[string][]byte
	calls    int
}

// NewEKS returns an EKS offering DefaultClusterVersions and
// DefaultAddonVersions that accepts the keys of iam.
func NewEKS(iam *IAM) *EKS {
	return &EKS{iam: iam, versions: slices.Clone(DefaultClusterVersions), addons: slices.Clone(DefaultAddonVersions)}
}

// SetAddonVersions replaces the add-on versions EKS offers.
func (e *EKS) SetAddonVersions(v ...AddonVersion) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.addons = slices.Clone(v)
}

// SetVersions replaces the versions EKS offers.
func (e *EKS) SetVersions(v ...ClusterVersion) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.versions = slices.Clone(v)
}

// Calls returns how many DescribeClusterVersions calls were answered.
func (e *EKS) Calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

type clusterVersionOut struct {
	ClusterType    string `json:"clusterType"`
	ClusterVersion string `json:"clusterVersion"`
	Status         string `json:"status"`
	VersionStatus  string `json:"versionStatus"`
}

// ServeHTTP answers one REST-JSON request.
func (e *EKS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, _, aerr := e.iam.verifyHeader(r, nil, "eks", time.Now()); aerr != nil {
		code := "UnrecognizedClientException"
		switch aerr.kind {
		case authMissing:
			code = "MissingAuthenticationTokenException"
		case authBadSignature, authIncomplete, authSignatureExpired:
			code = "InvalidSignatureException"
		case authExpiredToken:
			code = "ExpiredTokenException"
		}
		eksError(w, http.StatusForbidden, code, aerr.msg)
		return
	}
	action := map[string]string{"/cluster-versions": "eks:DescribeClusterVersions",
		"/addons/supported-versions":    "eks:DescribeAddonVersions",
		"/addons/configuration-schemas": "eks:DescribeAddonConfiguration"}[r.URL.Path]
	if strings.HasPrefix(r.URL.Path, "/clusters/") && strings.Count(r.URL.Path, "/") == 2 {
		action = "eks:DescribeCluster"
	}
	if r.Method != http.MethodGet || action == "" {
		eksError(w, http.StatusNotFound, "ResourceNotFoundException", "no route for "+r.Method+" "+r.URL.Path)
		return
	}
	if e.iam.denied(action) {
		eksError(w, http.StatusForbidden, "AccessDeniedException", "User is not authorized to perform: "+action)
		return
	}
	switch action {
	case "eks:DescribeAddonVersions":
		e.describeAddonVersions(w, r)
		return
	case "eks:DescribeAddonConfiguration":
		e.describeAddonConfiguration(w, r)
		return
	case "eks:DescribeCluster":
		e.describeCluster(w, strings.TrimPrefix(r.URL.Path, "/clusters/"))
		return
	}
	want := r.URL.Query()["clusterVersions"]
	e.mu.Lock()
	e.calls++
	out := []clusterVersionOut{}
	for _, v := range e.versions {
		if len(want) == 0 || slices.Contains(want, v.Version) {
			out = append(out, clusterVersionOut{ClusterType: "eks", ClusterVersion: v.Version,
				Status: strings.ReplaceAll(strings.ToLower(v.Status), "_", "-"), VersionStatus: v.Status})
		}
	}
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Requestid", requestID())
	_ = json.NewEncoder(w).Encode(map[string]any{"clusterVersions": out})
}

type addonVersionOut struct {
	AddonVersion    string `json:"addonVersion"`
	Compatibilities []struct {
		ClusterVersion string `json:"clusterVersion"`
	} `json:"compatibilities"`
}

func (e *EKS) describeAddonVersions(w http.ResponseWriter, r *http.Request) {
	name, minor := r.URL.Query().Get("addonName"), r.URL.Query().Get("kubernetesVersion")
	e.mu.Lock()
	e.calls++
	byAddon := map[string][]addonVersionOut{}
	for _, a := range e.addons {
		if (name != "" && a.Addon != name) || (minor != "" && !slices.Contains(a.Minors, minor)) {
			continue
		}
		out := addonVersionOut{AddonVersion: a.Version}
		for _, m := range a.Minors {
			out.Compatibilities = append(out.Compatibilities, struct {
				ClusterVersion string `json:"clusterVersion"`
			}{m})
		}
		byAddon[a.Addon] = append(byAddon[a.Addon], out)
	}
	e.mu.Unlock()
	addons := []map[string]any{}
	for n, versions := range byAddon {
		addons = append(addons, map[string]any{"addonName": n, "owner": "aws", "addonVersions": versions})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Requestid", requestID())
	_ = json.NewEncoder(w).Encode(map[string]any{"addons": addons})
}

func eksError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", code)
	w.Header().Set("X-Amzn-Requestid", requestID())
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}
