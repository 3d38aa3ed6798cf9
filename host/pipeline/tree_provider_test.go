package pipeline

import (
	"testing"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
)

// Any plugin provisions, so the tree must accept the cluster of a provider
// it has no storage for (the local provider's, an outsider's) as "other".
func TestTreeProviderMapsUnknownCloudsToOther(t *testing.T) {
	for in, want := range map[string]string{"aws": "aws", "gcp": "gcp", "azure": "azure", "": "",
		"local": gitops.ProviderOther, "hetzner": gitops.ProviderOther} {
		if got := treeProvider(in); got != want {
			t.Errorf("treeProvider(%q) = %q, want %q", in, got, want)
		}
		p := gitops.Params{ClusterID: "c1", ClusterName: "c1", Domain: "c1.example.com", Path: "clusters/c1",
			Provider: treeProvider(in), FluxNamespace: "flux-system", Version: "v0.1.0"}
		if err := p.Validate(); err != nil {
			t.Errorf("provider %q: tree params refused: %v", in, err)
		}
	}
}

// The tree's StorageClass is the default on the clusters the AWS plugins
// provision, which have none, and not on connected ones, which may.
func TestTreeStorageClassIsDefaultOnlyOnProvisionedAWSClusters(t *testing.T) {
	for mode, want := range map[v1.Mode]bool{v1.ModeProvisionVanilla: true, v1.ModeProvisionEKS: true,
		v1.ModeConnectExisting: false, v1.ModeProvision: false, "": false} {
		if got := madeWithoutDefaultStorageClass(mode); got != want {
			t.Errorf("mode %q: default StorageClass %v, want %v", mode, got, want)
		}
	}
}
