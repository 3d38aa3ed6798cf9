// Package fluxsync points Flux on a target cluster at the GitOps tree the
// pipeline pushed, and reads back whether Flux applied a given commit.
//
// For cluster <id> it owns, in namespace flux-system, a GitRepository
// "kubeopera-<id>" and three Kustomizations: "kubeopera-<id>-infrastructure"
// (path <Path>/infrastructure), "kubeopera-<id>-apps" (path <Path>/apps)
// and "kubeopera-<id>-tls" (path <Path>/tls, the ClusterIssuer), the last
// two applied only once infrastructure is Ready; Check reports Ready on
// apps, since tls waits for cert-manager's CRDs. Each carries the label
// kubeopera.io/cluster-id=<id>, by which the HostCluster finalizer deletes
// them. The Kustomizations have deletionPolicy Orphan: deleting them leaves
// what they applied running. Flux itself (its CRDs and controllers) must
// already run there.
package fluxsync

import (
	"fmt"
	"path"
	"strings"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// Namespace is where the Flux objects live (Flux's own namespace).
const Namespace = "flux-system"

// FieldOwner is the server-side apply field manager of the objects.
const FieldOwner = "kubeopera"

// DefaultInterval is how often Flux polls the repository and re-applies the
// tree when Sync.Interval is zero.
const DefaultInterval = time.Minute

// DefaultBranch is used when Sync.Branch is empty.
const DefaultBranch = "main"

// AddToScheme registers the Flux GitRepository and Kustomization types; the
// client given to Check needs them in its scheme.
func AddToScheme(s *runtime.Scheme) error {
	b := runtime.NewSchemeBuilder(sourcev1.AddToScheme, kustomizev1.AddToScheme)
	return b.AddToScheme(s)
}

// Sync says where Flux finds a cluster's GitOps tree.
type Sync struct {
	// ClusterID is clusters.id; it names and labels the objects.
	ClusterID string
	// URL is the repository's clone URL; Branch is the branch to follow
	// (DefaultBranch when empty).
	URL, Branch string
	// SecretName is the git credentials Secret in flux-system (username and
	// password keys, as Flux reads them); "" for a public repository.
	SecretName string
	// Path is the cluster's gitOpsPath; the tree has <Path>/infrastructure
	// and <Path>/apps. "" means the repository root.
	Path string
	// Interval is how often Flux fetches and re-applies (DefaultInterval
	// when zero).
	Interval time.Duration
}

// GitRepositoryName is the name of the cluster's GitRepository.
func GitRepositoryName(clusterID string) string { return "kubeopera-" + clusterID }

// InfrastructureName is the name of the cluster's infrastructure Kustomization.
func InfrastructureName(clusterID string) string {
	return GitRepositoryName(clusterID) + "-infrastructure"
}

// AppsName is the name of the cluster's apps Kustomization.
func AppsName(clusterID string) string { return GitRepositoryName(clusterID) + "-apps" }

// TLSName is the name of the cluster's tls Kustomization.
func TLSName(clusterID string) string { return GitRepositoryName(clusterID) + "-tls" }

// normalized validates s and fills in the defaults; Path comes back without
// "./" or slashes at either end.
func (s Sync) normalized() (Sync, error) {
	if s.ClusterID == "" {
		return s, fmt.Errorf("flux sync: cluster ID is empty")
	}
	if errs := validation.IsValidLabelValue(s.ClusterID); len(errs) > 0 {
		return s, fmt.Errorf("flux sync: cluster ID %q cannot be a label value: %s", s.ClusterID, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(AppsName(s.ClusterID)); len(errs) > 0 {
		return s, fmt.Errorf("flux sync: cluster ID %q cannot be part of an object name: %s", s.ClusterID, strings.Join(errs, "; "))
	}
	if s.URL == "" {
		return s, fmt.Errorf("flux sync: repository URL is empty")
	}
	if s.Branch == "" {
		s.Branch = DefaultBranch
	}
	if s.Interval == 0 {
		s.Interval = DefaultInterval
	}
	if s.Interval < 0 {
		return s, fmt.Errorf("flux sync: interval %s is negative", s.Interval)
	}
	p := strings.Trim(path.Clean("/"+s.Path), "/")
	for _, seg := range strings.Split(s.Path, "/") {
		if seg == ".." {
			return s, fmt.Errorf("flux sync: path %q leaves the repository; use a path inside it", s.Path)
		}
	}
	s.Path = p
	return s, nil
}

// kustomizationPath is the Flux path of one layer: "./<Path>/<layer>".
func (s Sync) kustomizationPath(layer string) string {
	if s.Path == "" {
		return "./" + layer
	}
	return "./" + s.Path + "/" + layer
}

// labels are put on every object.
func (s Sync) labels() map[string]string {
	return map[string]string{v1.ClusterIDLabel: s.ClusterID, "app.kubernetes.io/managed-by": FieldOwner}
}
