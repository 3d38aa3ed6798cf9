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

// EKS is a fake Amazon EKS speaking its REST-JSON protocol:
// DescribeClusterVersions (GET /cluster-versions).
type EKS struct {
	iam *IAM

	mu       sync.Mutex
	versions []ClusterVersion
	calls    int
}

// NewEKS returns an EKS offering DefaultClusterVersions that accepts the
// keys of iam.
func NewEKS(iam *IAM) *EKS {
	return &EKS{iam: iam, versions: slices.Clone(DefaultClusterVersions)}
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
	if r.Method != http.MethodGet || r.URL.Path != "/cluster-versions" {
		eksError(w, http.StatusNotFound, "ResourceNotFoundException", "no route for "+r.Method+" "+r.URL.Path)
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

func eksError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", code)
	w.Header().Set("X-Amzn-Requestid", requestID())
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}
